#!/usr/bin/env bash
# bench/pgo.sh: rewrites cmd/plegvet/default.pgo, the CPU profile the go
# command builds plegvet with (profile-guided optimization).
#
# usage: bench/pgo.sh CHECKOUT
#   CHECKOUT   a Kubernetes checkout, e.g. one made, from the repository's root, by
#              ../shared/tools/k8s-checkout.sh v1.37.2 CHECKOUT
#
# The profile merges two routes: `plegvet report -C CHECKOUT`'s answer,
# computed 40 times in one process (bench/pgo), and the standalone
# driver on CHECKOUT's ./pkg/... (plegvet -cpuprofile). Both are built
# without a profile, so the new one does not learn from the old.
# Review the figures (bench/README.md, "profile-guided optimization")
# before committing a new profile.
set -Eeuo pipefail

if [[ $# -ne 1 ]]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
CHECKOUT=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cd "$ROOT"
go build -pgo=off -o "$WORK/pgo" ./bench/pgo
go build -pgo=off -o "$WORK/plegvet" ./cmd/plegvet
"$WORK/pgo" "$CHECKOUT" "$WORK/answer.pprof"
# Findings exit 3; a load error exits 1 and stops the script.
(cd "$CHECKOUT" && "$WORK/plegvet" -cpuprofile "$WORK/driver.pprof" ./pkg/... >/dev/null) || [[ $? -eq 3 ]]
go tool pprof -proto "$WORK/answer.pprof" "$WORK/driver.pprof" > "$WORK/default.pgo"
mv "$WORK/default.pgo" cmd/plegvet/default.pgo
echo "bench/pgo.sh: wrote cmd/plegvet/default.pgo ($(wc -c < cmd/plegvet/default.pgo) bytes)"
