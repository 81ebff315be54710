#!/usr/bin/env bash
# bench/kubectl-pleg-cold.sh: kubectl pleg against a fake API server of 1,000 nodes on a
# few kubelet releases, each release's source answer read three ways, each run from a
# cold start (an empty module cache, no answer cache):
#   source    --index=false: every release fetched with the go command and read (what
#             kubectl pleg did before plegvet's index)
#   index     the default: the answers built into the binary
#   no-go     the default with no go command on PATH (a krew install)
#
# usage: bench/kubectl-pleg-cold.sh
# env:
#   NODES=1000                           cluster size
#   RELEASES=v1.34.4,v1.35.4,v1.36.5     the kubelet releases, node i running the i-th modulo 3
#   ROUNDS=3                             runs of each way
#   FLAGS="--qps 1000 --burst 2000 --skip-runtime-source"
#
# Each run gets a fresh GOMODCACHE and PLEGVET_CACHE; GOPROXY and GOFLAGS are the
# environment's. Peak RSS is /usr/bin/time's %M, of the plugin alone (the go command it
# starts is a child it waits for, and counts in %M only as its own peak would).
set -Eeuo pipefail
cd "$(dirname "$0")/.."
NODES=${NODES:-1000}
RELEASES=${RELEASES:-v1.34.4,v1.35.4,v1.36.5}
ROUNDS=${ROUNDS:-3}
FLAGS=${FLAGS:---qps 1000 --burst 2000 --skip-runtime-source}
work=$(mktemp -d)
server=
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

(cd tools/kubectl-pleg && go build -o "$work/kubectl-pleg" ./cmd/kubectl-pleg && go build -o "$work/fakecluster" ./cmd/fakecluster)
mkdir "$work/nogo"
"$work/fakecluster" -nodes "$NODES" -kubelet-version "$RELEASES" -kubeconfig "$work/kc" >"$work/server.log" &
server=$!
for _ in $(seq 50); do [[ -s $work/kc ]] && break; sleep 0.1; done

printf '%-7s %-5s %8s %10s %s\n' way round wall_s peak_rss_kb summary
for way in source index no-go; do
  for r in $(seq "$ROUNDS"); do
    chmod -R u+w "$work/mod" 2>/dev/null || true
    rm -rf "$work/mod" "$work/answers"
    extra=() path=$PATH
    case $way in
      source) extra=(--index=false) ;;
      no-go) path=$work/nogo ;;
    esac
    # shellcheck disable=SC2086
    GOMODCACHE=$work/mod PLEGVET_CACHE=$work/answers PATH=$path /usr/bin/time -f '%e %M' -o "$work/time" \
      "$work/kubectl-pleg" --kubeconfig "$work/kc" "${extra[@]}" $FLAGS >"$work/out" 2>"$work/err" || true
    read -r wall rss <"$work/time"
    printf '%-7s %-5s %8s %10s %s\n' "$way" "$r" "$wall" "$rss" "$(tail -n 1 "$work/out")"
  done
done
