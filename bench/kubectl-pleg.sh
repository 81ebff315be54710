#!/usr/bin/env bash
# bench/kubectl-pleg.sh: kubectl pleg against a fake API server of 10, 100 and 1,000 nodes:
# wall time and peak RSS of the plugin.
#
# usage: bench/kubectl-pleg.sh
# env:
#   SIZES="10 100 1000"   cluster sizes
#   ROUNDS=3              runs per size (each line printed; compare medians)
#   SOURCE=v1.36.1        --source-k8s: one release read for every node (fetched once, then cached)
#   FAMILIES=300          metric families each fake kubelet serves besides the PLEG's (~190 kB a body)
#   FLAGS="--qps 1000 --burst 2000"   more plugin flags (the defaults, 50/100, would measure
#                         the client's rate limiter: 2 requests a node at 50/s)
#
# The fake server (tools/kubectl-pleg/cmd/fakecluster) serves the node list and each kubelet's
# configz and metrics through nodes/proxy over HTTPS, on this machine: the figures are the
# plugin's own cost, with no network or kubelet latency. Peak RSS is /usr/bin/time's %M.
set -Eeuo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-10 100 1000}
ROUNDS=${ROUNDS:-3}
SOURCE=${SOURCE:-v1.36.1}
FAMILIES=${FAMILIES:-300}
FLAGS=${FLAGS:---qps 1000 --burst 2000}
work=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

(cd tools/kubectl-pleg && go build -o "$work/kubectl-pleg" ./cmd/kubectl-pleg && go build -o "$work/fakecluster" ./cmd/fakecluster)

# Warm the source cache, so that every run measures the same work.
"$work/fakecluster" -nodes 1 -kubeconfig "$work/kc0" >"$work/server0.log" &
server=$!
for _ in $(seq 50); do [[ -s $work/kc0 ]] && break; sleep 0.1; done
"$work/kubectl-pleg" --kubeconfig "$work/kc0" --source-k8s "$SOURCE" --skip-runtime-source >/dev/null
kill "$server"; wait "$server" 2>/dev/null || true; server=

printf '%-6s %-5s %8s %10s %s\n' nodes round wall_s peak_rss_kb summary
for n in $SIZES; do
  rm -f "$work/kc"
  "$work/fakecluster" -nodes "$n" -families "$FAMILIES" -kubeconfig "$work/kc" >"$work/server.log" &
  server=$!
  for _ in $(seq 50); do [[ -s $work/kc ]] && break; sleep 0.1; done
  for r in $(seq "$ROUNDS"); do
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$work/time" "$work/kubectl-pleg" --kubeconfig "$work/kc" \
      --source-k8s "$SOURCE" --skip-runtime-source $FLAGS >"$work/out" 2>"$work/err" || true
    read -r wall rss <"$work/time"
    printf '%-6s %-5s %8s %10s %s\n' "$n" "$r" "$wall" "$rss" "$(tail -n 1 "$work/out")"
  done
  kill "$server"; wait "$server" 2>/dev/null || true; server=
done
