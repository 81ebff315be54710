#!/usr/bin/env bash
# bench/ab.sh: two revisions of plegvet, old and new, timed in turn (old new old new ...) on the
# same commands, so that a refactor can show it is no slower. Medians of wall time and peak RSS.
#
# usage: bench/ab.sh OLD_REV CHECKOUT
#   OLD_REV    a git revision of this repository (built in a temporary worktree); "new" is the
#              working tree as it is
#   CHECKOUT   a Kubernetes checkout, e.g. one made by ../shared/tools/k8s-checkout.sh v1.36.1 DIR
# env:
#   ROUNDS=3              rounds (each runs old then new once per command)
#   K8S_VERSION=v1.X.Y    the checkout's release (default: CHECKOUT/.make-checkout.stamp)
#   RESULTS=DIR           where logs go (default: a new temp dir; kept)
#
# The commands are bench/run.sh's items 1, 2, 4 and 6 (json, sarif): report -C with a fresh
# GOCACHE, report -k8s with the answer cached and with PLEGVET_CACHE=off, plegvet ./pkg/...,
# and its -json and -sarif modes (-pleg.note, so that there is a finding to print). Each round
# also times, once, the baselines issue 43 sets its goals against: the go command's listing of
# ./pkg/... (go list -e -json=... -deps=true) and bench/parsebound (its files, then with
# -answer those the report reads), and the script prints the ratios: plegvet ./pkg/... against
# go list, report -C against each parse bound, report -k8s computed against report -C. Wall
# time and CPU (user+sys of the command and its children, GNU time) are both given: on a
# loaded machine CPU is the figure to compare.
set -Eeuo pipefail

if [[ $# -ne 2 ]]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
OLD_REV=$1
CHECKOUT=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
RESULTS=${RESULTS:-$(mktemp -d /tmp/plegvet-ab.XXXXXX)}
K8S_VERSION=${K8S_VERSION:-$(cat "$CHECKOUT/.make-checkout.stamp" 2>/dev/null || true)}
case "$K8S_VERSION" in
  v1.*.*) ;;
  *) echo "ab.sh: set K8S_VERSION=v1.X.Y, the release of $CHECKOUT" >&2; exit 2 ;;
esac
[[ -x /usr/bin/time ]] || { echo "ab.sh: /usr/bin/time (GNU time) is missing: apt-get install -y time" >&2; exit 2; }
CHECKOUT_GOFLAGS=$(cat "$CHECKOUT/.make-checkout.goflags" 2>/dev/null || true)
mkdir -p "$RESULTS/bin"
log() { echo "[ab] $*" >&2; }

OLD_TREE=$(mktemp -d)
EMPTY=$(mktemp -d) # no go.mod, no go.work
trap 'git -C "$ROOT" worktree remove --force "$OLD_TREE" >/dev/null 2>&1 || true; rm -rf "$EMPTY"' EXIT
git -C "$ROOT" worktree add -q --detach "$OLD_TREE" "$OLD_REV"
log "building old ($OLD_REV) and new (working tree)"
(cd "$OLD_TREE" && go build -o "$RESULTS/bin/old" ./cmd/plegvet)
(cd "$ROOT" && go build -o "$RESULTS/bin/new" ./cmd/plegvet && go build -o "$RESULTS/bin/parsebound" ./bench/parsebound)

RUNS=$RESULTS/runs.tsv
: >"$RUNS"
# measure KEY SIDE ROUND DIR CMD...: one line of runs.tsv (key, side, round, wall s, peak RSS
# KiB, rc, cpu s, 1-minute load average before the run)
measure() {
  local key=$1 side=$2 round=$3 dir=$4; shift 4
  local tf=$RESULTS/$key.$side.$round.time rc=0 t0 t1 load
  load=$(cut -d' ' -f1 /proc/loadavg)
  t0=$EPOCHREALTIME
  (cd "$dir" && /usr/bin/time -f '%M %U %S' -o "$tf" "$@") >"$RESULTS/$key.$side.$round.out" 2>"$RESULTS/$key.$side.$round.err" || rc=$?
  t1=$EPOCHREALTIME
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$side" "$round" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')" \
    "$(tail -n 1 "$tf" | cut -d' ' -f1)" "$rc" "$(tail -n 1 "$tf" | awk '{printf "%.2f", $2+$3}')" "$load" >>"$RUNS"
}
median() { # KEY SIDE FIELD
  awk -F'\t' -v k="$1" -v s="$2" -v f="$3" '$1==k && $2==s {print $f}' "$RUNS" | sort -g |
    awk '{v[NR]=$1} END{if(NR==0){print "-"; exit} if(NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'
}
rcs() { awk -F'\t' -v k="$1" -v s="$2" '$1==k && $2==s {printf "%s%s", c, $6; c=","}' "$RUNS"; }

# Warm-ups, untimed: the release's modules, go list's cache, each side's answer cache.
(cd "$EMPTY" && GOWORK=off go mod download "k8s.io/kubernetes@$K8S_VERSION" "k8s.io/cri-api@v0.${K8S_VERSION#v1.}")
for side in old new; do
  mkdir -p "$RESULTS/answers-$side"
  (cd "$EMPTY" && GOWORK=off PLEGVET_CACHE=$RESULTS/answers-$side "$RESULTS/bin/$side" report -k8s "$K8S_VERSION" >/dev/null)
  (cd "$CHECKOUT" && GOFLAGS="$CHECKOUT_GOFLAGS" "$RESULTS/bin/$side" -pleg.note ./pkg/... >/dev/null 2>&1) || true
done

KEYS="report-C report-k8s report-k8s-uncached pkg json sarif"
for r in $(seq "$ROUNDS"); do
  GOFLAGS="$CHECKOUT_GOFLAGS" measure golist base "$r" "$CHECKOUT" go list -e -json=Name,ImportPath,Error,Dir,GoFiles,Imports -deps=true ./pkg/...
  measure parsebound base "$r" "$EMPTY" "$RESULTS/bin/parsebound" "$CHECKOUT"
  if "$RESULTS/bin/parsebound" -answer "$CHECKOUT" >/dev/null 2>&1; then
    measure parsebound-answer base "$r" "$EMPTY" "$RESULTS/bin/parsebound" -answer "$CHECKOUT"
  fi
  for side in old new; do
    bin=$RESULTS/bin/$side
    gc=$(mktemp -d); GOCACHE=$gc measure report-C "$side" "$r" "$EMPTY" "$bin" report -C "$CHECKOUT"; rm -rf "$gc"
    GOWORK=off PLEGVET_CACHE=$RESULTS/answers-$side measure report-k8s "$side" "$r" "$EMPTY" "$bin" report -k8s "$K8S_VERSION"
    GOWORK=off PLEGVET_CACHE=off measure report-k8s-uncached "$side" "$r" "$EMPTY" "$bin" report -k8s "$K8S_VERSION"
    GOFLAGS="$CHECKOUT_GOFLAGS" measure pkg "$side" "$r" "$CHECKOUT" "$bin" -pleg.note ./pkg/...
    GOFLAGS="$CHECKOUT_GOFLAGS" measure json "$side" "$r" "$CHECKOUT" "$bin" -pleg.note -json ./pkg/...
    GOFLAGS="$CHECKOUT_GOFLAGS" measure sarif "$side" "$r" "$CHECKOUT" "$bin" -pleg.note -sarif "$RESULTS/sarif.$side.$r" ./pkg/...
  done
  log "round $r of $ROUNDS done"
done

echo "machine: $(nproc) CPUs, $(go version), $(date -u); old $OLD_REV, new $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo '+dirty'); $K8S_VERSION; $ROUNDS rounds; $RESULTS"
echo "1-minute load average before the runs: $(awk -F'\t' '{print $8}' "$RUNS" | sort -g | sed -n '1p;$p' | paste -sd- -)"
printf '%-22s %10s %10s %10s %10s %8s %8s  %s\n' command "old wall" "new wall" "old cpu" "new cpu" "old MiB" "new MiB" "exit codes old/new"
for k in $KEYS; do
  printf '%-22s %10s %10s %10s %10s %8s %8s  %s / %s\n' "$k" "$(median "$k" old 4)" "$(median "$k" new 4)" "$(median "$k" old 7)" "$(median "$k" new 7)" \
    "$(awk -v k="$(median "$k" old 5)" 'BEGIN{printf "%.0f", k/1024}')" "$(awk -v k="$(median "$k" new 5)" 'BEGIN{printf "%.0f", k/1024}')" \
    "$(rcs "$k" old)" "$(rcs "$k" new)"
done
for k in golist parsebound parsebound-answer; do
  [[ $(median "$k" base 4) == - ]] && continue
  printf '%-22s %10s %10s %10s %10s %8s %8s  %s\n' "$k" "$(median "$k" base 4)" "" "$(median "$k" base 7)" "" \
    "$(awk -v k="$(median "$k" base 5)" 'BEGIN{printf "%.0f", k/1024}')" "" "$(rcs "$k" base)"
done
# ratio A SIDE_A B SIDE_B FIELD: the medians' quotient
ratio() { awk -v a="$(median "$1" "$2" "$5")" -v b="$(median "$3" "$4" "$5")" 'BEGIN{if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a/b}'; }
echo "ratios of medians, old / new (wall; cpu):"
row() { # LABEL A B SIDE_B (same: B of A's side)
  local bo=$4 bn=$4
  [[ $4 == same ]] && bo=old bn=new
  printf '  %-40s %s / %s; %s / %s\n' "$1" "$(ratio "$2" old "$3" "$bo" 4)" "$(ratio "$2" new "$3" "$bn" 4)" "$(ratio "$2" old "$3" "$bo" 7)" "$(ratio "$2" new "$3" "$bn" 7)"
}
row "plegvet ./pkg/... / go list (<= 1.5)" pkg golist base
row "-json / plain (<= 1.5)" json pkg same
row "-sarif / plain (<= 1.5)" sarif pkg same
row "report -C / parsebound (<= 3)" report-C parsebound base
[[ $(median parsebound-answer base 4) == - ]] || row "report -C / parsebound -answer (<= 3)" report-C parsebound-answer base
row "report -k8s computed / report -C (<= 1.2)" report-k8s-uncached report-C same
# Same answers: every old output equals the new one (the SARIF files too).
differ=0
for f in "$RESULTS"/*.old.*.out; do
  cmp -s "$f" "${f/.old./.new.}" || { echo "differs: $f"; differ=1; }
done
# The SARIF documents themselves (sarif.old.N), not their .time files, which always differ.
for f in "$RESULTS"/sarif.old.[0-9]*; do
  [[ $f == *.* && ${f##*.} != [0-9]* ]] && continue
  cmp -s "$f" "${f/sarif.old./sarif.new.}" || { echo "differs: $f"; differ=1; }
done
[[ $differ == 0 ]] && echo "outputs: old and new byte-identical"
