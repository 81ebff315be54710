#!/usr/bin/env bash

# This script runs plegvet (https://github.com/plegvet/plegvet) over pkg/:
# the feature gates of pkg/features against the rules component-base
# enforces when a kubelet starts, and the kubelet's PLEG wiring (the relist
# safety net behind the evented PLEG).
#
# Copy it to hack/verify-plegvet.sh of a Kubernetes fork: `make verify`
# then runs it with the other hack/verify-*.sh, and `make verify
# WHAT=plegvet` runs it alone.
#
# Usage: hack/verify-plegvet.sh [plegvet flags] [packages]
#   Arguments starting with "-" are plegvet's flags (plegvet help
#   featuregate, plegvet help pleg), the others packages (default ./pkg/...).
#
# Environment:
#   PLEGVET_VERSION  the plegvet module version to install (default below)
#   PLEGVET_BIN      a plegvet binary to run instead of installing one
#                    (offline runs, or a plegvet built from source)
#   PLEGVET_SARIF    also write the findings to this file as SARIF 2.1.0,
#                    for code scanning
#
# Exit status: 0 no findings, 3 findings, 1 packages that do not load
# (plegvet's own codes), or 1 when plegvet cannot be installed.

set -o errexit
set -o nounset
set -o pipefail

KUBE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")"/.. && pwd -P)"

# The plegvet release this script runs. Bump it on purpose: a newer plegvet
# may know checks an older one did not. v0.1.0 is the first tag, still to
# come: until it exists, set PLEGVET_BIN to a plegvet built from a clone
# (git clone https://github.com/plegvet/plegvet && go install ./cmd/plegvet).
PLEGVET_VERSION="${PLEGVET_VERSION:-v0.1.0}"
PLEGVET_MODULE="github.com/plegvet/plegvet"

# Flags this tree always passes, e.g. exemptions from alpha-default-on.
# The list replaces plegvet's default one (WindowsHostNetwork), so keep that:
#   plegvet_flags=(-featuregate.alpha-default-exempt=WindowsHostNetwork,MyGate)
plegvet_flags=()

invocation=(./hack/verify-plegvet.sh "$@")

targets=()
for arg; do
  if [[ "${arg}" == -* ]]; then
    plegvet_flags+=("${arg}")
  else
    targets+=("${arg}")
  fi
done
if [[ "${#targets[@]}" -eq 0 ]]; then
  targets=(./pkg/...)
fi

if [[ -n "${PLEGVET_SARIF:-}" ]]; then
  # Relative to where the script was started, not to KUBE_ROOT.
  if [[ "${PLEGVET_SARIF}" != /* ]]; then
    PLEGVET_SARIF="${PWD}/${PLEGVET_SARIF}"
  fi
  mkdir -p "$(dirname "${PLEGVET_SARIF}")"
  plegvet_flags+=(-sarif "${PLEGVET_SARIF}")
fi

# plegvet asks the go command which packages match, so go must be there
# even with PLEGVET_BIN.
if ! command -v go >/dev/null 2>&1; then
  echo "ERROR: go is not on PATH: plegvet lists the packages to check with the go command" >&2
  exit 1
fi

if [[ -n "${PLEGVET_BIN:-}" ]]; then
  plegvet="${PLEGVET_BIN}"
  if [[ ! -f "${plegvet}" || ! -x "${plegvet}" ]]; then
    echo "ERROR: PLEGVET_BIN=${PLEGVET_BIN} is not an executable file" >&2
    exit 1
  fi
  echo "using plegvet ${plegvet} ($("${plegvet}" version 2>/dev/null || echo "version unknown"))"
else
  gobin="$(mktemp -d "${TMPDIR:-/tmp}/verify-plegvet.XXXXXX")"
  trap 'rm -rf "${gobin}"' EXIT
  echo "installing plegvet ${PLEGVET_VERSION} into ${gobin}"
  # Installed outside the tree (no go.mod, go.work or vendor of the tree in
  # the way) with the Go that plegvet's own go.mod asks for: GOTOOLCHAIN=auto
  # fetches it when this tree's Go is older.
  if ! (cd "${gobin}" && GOBIN="${gobin}" GOWORK=off GOFLAGS='' GOTOOLCHAIN=auto \
      go install "${PLEGVET_MODULE}/cmd/plegvet@${PLEGVET_VERSION}"); then
    {
      echo
      echo "ERROR: could not install ${PLEGVET_MODULE}/cmd/plegvet@${PLEGVET_VERSION} (the go command's error is above)."
      echo "Check GOPROXY and the network, or set PLEGVET_VERSION to a released version,"
      echo "or point PLEGVET_BIN at a plegvet binary to run without installing one."
    } >&2
    exit 1
  fi
  plegvet="${gobin}/plegvet"
fi

cd "${KUBE_ROOT}"

# Each line plegvet prints is a finding or a load error: prefix them with
# "ERROR: " so that they stand out in the Prow log viewer and make up the
# failure message of make verify's JUnit report.
res=0
echo "running plegvet ${plegvet_flags[*]+${plegvet_flags[*]} }${targets[*]} in ${KUBE_ROOT}" >&2
"${plegvet}" ${plegvet_flags[@]+"${plegvet_flags[@]}"} "${targets[@]}" 2>&1 | sed -e 's;^;ERROR: ;' >&2 || res=$?

details="go run ${PLEGVET_MODULE}/cmd/plegvet@${PLEGVET_VERSION}"
case "${res}" in
  0)
    echo "plegvet found nothing to report in ${targets[*]}: feature gates and PLEG wiring pass."
    ;;
  3)
    {
      echo
      echo "plegvet reported the findings above (FILE:LINE:COL: message [CHECK]): a feature gate that"
      echo "breaks component-base's rules or Kubernetes' policy (an Alpha gate on by default),"
      echo "or a PLEG wiring that loses the relist safety net."
      echo "Rerun this check with \"${invocation[*]}\". To see more, from ${KUBE_ROOT}:"
      echo "  each finding's check and related positions:  ${details} -json ${targets[*]}"
      echo "  the fixes plegvet suggests:                  ${details} -fix -diff ${targets[*]}"
      echo "  what the checks mean:                        ${details} help featuregate (or: help pleg)"
      echo "  which PLEG this tree runs, and why:          ${details} report -C ."
      echo "A gate that is Alpha and on by default on purpose can be exempted in plegvet_flags"
      echo "at the top of hack/verify-plegvet.sh (-featuregate.alpha-default-exempt)."
      echo
    } >&2
    ;;
  1)
    {
      echo
      echo "plegvet could not load or analyse the packages (exit 1): the lines above name the"
      echo "file and what was wrong. plegvet type-checks what the go command lists, so the tree"
      echo "must build: try \"go build ${targets[*]}\". Rerun with \"${invocation[*]}\"."
      echo
    } >&2
    ;;
  *)
    {
      echo
      echo "plegvet stopped with exit code ${res}; the lines above say why"
      echo "(2: a flag plegvet does not know; see \"${details} help\")."
      echo
    } >&2
    ;;
esac

# preserve the result
exit "${res}"
