#!/usr/bin/env bash
# bench/run.sh: plegvet's benchmark pairs, run in turn (A B A B ...), with medians, ratios and peak RSS.
#
# usage: bench/run.sh CHECKOUT
#   CHECKOUT   a Kubernetes checkout, e.g. one made, from the repository's root, by
#              ../shared/tools/k8s-checkout.sh v1.36.1 CHECKOUT
# env:
#   ROUNDS=3                 rounds per pair (each round runs A then B once)
#   ITEMS="1 2 3 4 5 6 7 8"  which items to run (see bench/README.md)
#   K8S_VERSION=v1.X.Y       the checkout's release (default: CHECKOUT/.make-checkout.stamp)
#   VET_PATTERNS="./pkg/..." package patterns for item 3 (each pattern is its own pair)
#   STANDALONE_PATTERNS="./pkg/..."  package patterns for items 4 and 6
#   MODES="json sarif diff fix c1"   item 6: the modes, each paired with the plain run
#   MODE_FLAGS=-pleg.note    item 6: analyzer flags added to every run of the item (a finding to print)
#   MODE_FULL_REF=1          item 6: also time the full driver's -json (PLEGVET_FULL_DRIVER=1), for reference
#   TIMELINE=v1.26.15,...    the explicit twelve releases of item 5
#   TIMELINE_RANGE=v1.26.0..v1.37.2  also measured in item 5 (proxy probing included); empty: skip
#   VET_RSS=1                item 3: one extra run per side with the analysis tool wrapped in
#                            /usr/bin/time, for the peak RSS of the analysis processes alone
#   GOLANGCI_PATTERNS="./pkg/kubelet/..."  package patterns for item 7
#   GOLANGCI_LINT=FILE       item 7: a golangci-lint with plegvet's plugin compiled in (default: built
#                            from tools/golangci-lint, minutes on a cold build cache)
#   RESULTS=DIR              where logs go (default: a new temp dir; kept)
#
# Wall time is measured with bash's EPOCHREALTIME; peak RSS is /usr/bin/time's "Maximum resident
# set size" (%M), which for a command that forks (go vet, go mod download) is the largest single
# process of the tree, not the sum of processes running at once.
set -Eeuo pipefail

if [[ $# -ne 1 ]]; then
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "run.sh: /usr/bin/time (GNU time) is missing; install it with:" >&2
  echo "    apt-get update && apt-get install -y time" >&2
  exit 2
fi
CHECKOUT=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-3}
ITEMS=${ITEMS:-"1 2 3 4 5 6 7 8"}
VET_PATTERNS=${VET_PATTERNS:-./pkg/...}
STANDALONE_PATTERNS=${STANDALONE_PATTERNS:-./pkg/...}
TIMELINE=${TIMELINE:-v1.26.15,v1.27.16,v1.28.15,v1.29.15,v1.30.14,v1.31.14,v1.32.13,v1.33.13,v1.34.12,v1.35.8,v1.36.5,v1.37.2}
TIMELINE_RANGE=${TIMELINE_RANGE-v1.26.0..v1.37.2}
VET_RSS=${VET_RSS:-1}
MODES=${MODES:-"json sarif diff fix c1"}
MODE_FLAGS=${MODE_FLAGS--pleg.note}
MODE_FULL_REF=${MODE_FULL_REF:-1}
GOLANGCI_PATTERNS=${GOLANGCI_PATTERNS:-./pkg/kubelet/...}
GOLANGCI_LINT=${GOLANGCI_LINT:-}
RESULTS=${RESULTS:-$(mktemp -d /tmp/plegvet-bench.XXXXXX)}
mkdir -p "$RESULTS"
K8S_VERSION=${K8S_VERSION:-$(cat "$CHECKOUT/.make-checkout.stamp" 2>/dev/null || true)}
case "$K8S_VERSION" in
  v1.*.*) ;;
  *) echo "run.sh: set K8S_VERSION=v1.X.Y, the release of $CHECKOUT" >&2; exit 2 ;;
esac
STAGING_VERSION=v0.${K8S_VERSION#v1.}
# Releases up to v1.32 need GOFLAGS=-mod=readonly inside a checkout made by k8s-checkout.sh.
CHECKOUT_GOFLAGS=$(cat "$CHECKOUT/.make-checkout.goflags" 2>/dev/null || true)
NONCE=$$x$RANDOM

log() { echo "[bench] $*" >&2; }

# --- build once --------------------------------------------------------------
BIN=$RESULTS/bin
mkdir -p "$BIN"
log "building plegvet and parsebound into $BIN"
(cd "$ROOT" && go build -o "$BIN/plegvet" ./cmd/plegvet && go build -o "$BIN/parsebound" ./bench/parsebound && go build -o "$BIN/novettool" ./bench/novettool && go build -o "$BIN/noopvet" ./bench/noopvet)
PLEGVET=$BIN/plegvet
PARSEBOUND=$BIN/parsebound

# --- measuring ---------------------------------------------------------------
# Every run is one line of $RESULTS/runs.tsv: key, round, wall seconds, peak RSS KiB, exit code,
# CPU seconds (user+sys of the command and its children), and the 1-minute load average before the run
# (the machine may be shared: a load above the CPU count means the wall times are inflated).
RUNS=$RESULTS/runs.tsv
: >"$RUNS"
# measure KEY ROUND DIR CMD...: run CMD in DIR, stdout/stderr to $RESULTS/KEY.ROUND.{out,err}
measure() {
  local key=$1 round=$2 dir=$3; shift 3
  local tf=$RESULTS/$key.$round.time rc=0 t0 t1 load
  load=$(cut -d' ' -f1 /proc/loadavg)
  t0=$EPOCHREALTIME
  (cd "$dir" && /usr/bin/time -f '%M %U %S' -o "$tf" "$@") >"$RESULTS/$key.$round.out" 2>"$RESULTS/$key.$round.err" || rc=$?
  t1=$EPOCHREALTIME
  local rss cpu wall
  read -r rss cpu < <(tail -n 1 "$tf" | awk '{printf "%d %.2f\n", $1, $2+$3}')
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$round" "$wall" "$rss" "$rc" "$cpu" "$load" >>"$RUNS"
  log "$(printf '%-28s round %s  %8.3f s  cpu %7.2f s  %8d KiB  rc=%s  load %s' "$key" "$round" "$wall" "$cpu" "$rss" "$rc" "$load")"
}
# median of the wall times (field 3) or RSS (field 4) of KEY
median() {
  awk -F'\t' -v k="$1" -v f="$2" '$1==k{print $f}' "$RUNS" | sort -g |
    awk '{v[NR]=$1} END{if(NR==0){print "-"; exit} if(NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'
}
maxof() { awk -F'\t' -v k="$1" -v f="$2" '$1==k{ if($f>m) m=$f } END{print m+0}' "$RUNS"; }
rcs() { awk -F'\t' -v k="$1" '$1==k{printf "%s%s", s, $5; s=","}' "$RUNS"; }
mib() { awk -v k="$1" 'BEGIN{printf "%.0f", k/1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if (b>0) printf "%.2f", a/b; else print "-"}'; }

SUMMARY=$RESULTS/summary.txt
: >"$SUMMARY"
row() { # ITEM TARGET KEY_A KEY_B: one summary line for a pair (KEY_B may be "-")
  local item=$1 target=$2 a=$3 b=$4
  local ma mb ra rb ca cb
  ma=$(median "$a" 3); ra=$(median "$a" 4); ca=$(median "$a" 6)
  line() { printf '%-4s %-38s wall %9s s  cpu %9s s  peak RSS %6s MiB (max %s)  load %s  rc=%s\n' \
    "$1" "$2" "$(median "$2" 3)" "$(median "$2" 6)" "$(mib "$(median "$2" 4)")" "$(mib "$(maxof "$2" 4)")" "$(median "$2" 7)" "$(rcs "$2")" | tee -a "$SUMMARY"; }
  line "$item" "$a"
  if [[ $b == - ]]; then
    printf '%-4s %-38s target: %s\n' "" "" "$target" | tee -a "$SUMMARY"
    return
  fi
  line "" "$b"
  mb=$(median "$b" 3); rb=$(median "$b" 4); cb=$(median "$b" 6)
  printf '%-4s %-38s wall ratio %s, cpu ratio %s, RSS ratio %s   target: %s\n' "" "A/B" "$(ratio "$ma" "$mb")" "$(ratio "$ca" "$cb")" "$(ratio "$ra" "$rb")" "$target" | tee -a "$SUMMARY"
}

EMPTY=$(mktemp -d)   # a directory with no go.mod and no go.work
trap 'rm -rf "$EMPTY"' EXIT

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo), $(go version), $(date -u)" | tee -a "$SUMMARY"
echo "checkout: $CHECKOUT ($K8S_VERSION), rounds: $ROUNDS, results: $RESULTS" | tee -a "$SUMMARY"

for item in $ITEMS; do
  case $item in
  1) # report on a checkout with an empty build cache vs parsing the files it needs
    log "item 1: plegvet report -C (fresh GOCACHE per run) vs parsebound"
    for r in $(seq "$ROUNDS"); do
      gc=$(mktemp -d); GOCACHE=$gc measure 1.report-C "$r" "$EMPTY" "$PLEGVET" report -C "$CHECKOUT"; rm -rf "$gc"
      gc=$(mktemp -d); GOCACHE=$gc measure 1.parsebound "$r" "$EMPTY" "$PARSEBOUND" "$CHECKOUT"; rm -rf "$gc"
    done
    row 1 "ratio <= 5" 1.report-C 1.parsebound
    ;;
  2) # report on a release whose modules are downloaded vs go mod download of those modules
    log "item 2: plegvet report -k8s $K8S_VERSION vs go mod download (modules cached; one untimed warm-up each)"
    (cd "$EMPTY" && GOWORK=off go mod download -json "k8s.io/kubernetes@$K8S_VERSION" "k8s.io/cri-api@$STAGING_VERSION" >/dev/null)
    # plegvet's answer cache: its own directory, kept by the warm-up run
    ANSWERS=$RESULTS/answer-cache
    (cd "$EMPTY" && GOWORK=off PLEGVET_CACHE=$ANSWERS "$PLEGVET" report -k8s "$K8S_VERSION" >/dev/null)
    for r in $(seq "$ROUNDS"); do
      GOWORK=off PLEGVET_CACHE=$ANSWERS measure 2.report-k8s "$r" "$EMPTY" "$PLEGVET" report -k8s "$K8S_VERSION"
      GOWORK=off measure 2.go-mod-download "$r" "$EMPTY" go mod download -json "k8s.io/kubernetes@$K8S_VERSION" "k8s.io/cri-api@$STAGING_VERSION"
      GOWORK=off PLEGVET_CACHE=off measure 2.report-k8s-uncached "$r" "$EMPTY" "$PLEGVET" report -k8s "$K8S_VERSION"
    done
    row 2 "ratio <= 3 (answer cached)" 2.report-k8s 2.go-mod-download
    row 2 "for reference: the answer computed (PLEGVET_CACHE=off)" 2.report-k8s-uncached 2.go-mod-download
    ;;
  3) # go vet with plegvet vs plain go vet: dependencies compiled, analysis results not cached
    for pat in $VET_PATTERNS; do
      p=${pat//[^A-Za-z0-9]/_}
      log "item 3 ($pat): warm-up go vet (compiles dependencies; untimed)"
      (cd "$CHECKOUT" && GOFLAGS="$CHECKOUT_GOFLAGS" go vet "$pat" >"$RESULTS/3.warmup$p.out" 2>&1) || true
      for r in $(seq "$ROUNDS"); do
        # a flag value never used before: every vet action (and its facts) misses the cache
        GOFLAGS="$CHECKOUT_GOFLAGS" measure "3.vet-plegvet$p" "$r" "$CHECKOUT" \
          go vet -vettool="$PLEGVET" -featuregate.alpha-default-exempt="WindowsHostNetwork,Run${NONCE}x$r" "$pat"
        GOFLAGS="$CHECKOUT_GOFLAGS" measure "3.vet$p" "$r" "$CHECKOUT" \
          go vet -printf.funcs="benchRun${NONCE}x$r" "$pat"
        # the floors, each copied under a new name with bytes appended
        # every round, so that its vet actions miss the cache too:
        # noopvet, a go/analysis tool whose one analyzer does nothing but
        # declare a fact type (what any fact-passing analyzer pays under
        # unitchecker: every package type-checked), and novettool, which
        # does not even read its package (go vet's own cost: one process
        # per package, the cache)
        for floor in noopvet novettool; do
          cp "$BIN/$floor" "$BIN/$floor-$r"; printf '%s' "$NONCE$r" >>"$BIN/$floor-$r"
          GOFLAGS="$CHECKOUT_GOFLAGS" measure "3.$floor$p" "$r" "$CHECKOUT" \
            go vet -vettool="$BIN/$floor-$r" "$pat"
        done
      done
      if [[ $VET_RSS == 1 ]]; then
        # peak RSS of the analysis processes alone: the tool wrapped in /usr/bin/time (untimed runs)
        for side in plegvet vet; do
          tool=$PLEGVET flag=-featuregate.alpha-default-exempt="WindowsHostNetwork,Rss$NONCE"
          if [[ $side == vet ]]; then tool=$(go env GOTOOLDIR)/vet flag=-printf.funcs="benchRss$NONCE"; fi
          w=$RESULTS/wrap-$side; : >"$w.rss"
          printf '#!/bin/sh\nexec /usr/bin/time -a -o %s -f %%M %s "$@"\n' "$w.rss" "$tool" >"$w"; chmod +x "$w"
          (cd "$CHECKOUT" && GOFLAGS="$CHECKOUT_GOFLAGS" go vet -vettool="$w" "$flag" "$pat" >"$RESULTS/3.rss-$side$p.out" 2>&1) || true
          n=$(grep -c '^[0-9]*$' "$w.rss" || true); m=$(grep '^[0-9]*$' "$w.rss" | sort -n | tail -n 1)
          echo "     $pat: $side analysis processes: $n runs, largest peak RSS $(mib "$m") MiB" | tee -a "$SUMMARY"
        done
      fi
      row 3 "cpu ratio <= 1.1 (noopvet, a do-nothing fact analyzer, is the floor)" "3.vet-plegvet$p" "3.noopvet$p"
      row 3 "for reference: go's own vet" "3.vet-plegvet$p" "3.vet$p"
      row 3 "for reference: a tool that reads nothing (go vet's own cost)" "3.vet-plegvet$p" "3.novettool$p"
    done
    ;;
  4) # standalone driver (plain run): peak RSS
    for pat in $STANDALONE_PATTERNS; do
      p=${pat//[^A-Za-z0-9]/_}
      log "item 4: plegvet $pat (standalone)"
      for r in $(seq "$ROUNDS"); do
        GOFLAGS="$CHECKOUT_GOFLAGS" measure "4.plegvet$p" "$r" "$CHECKOUT" "$PLEGVET" "$pat"
      done
      row 4 "peak RSS <= 1024 MiB" "4.plegvet$p" -
    done
    ;;
  6) # every mode of the standalone driver against the plain run, each pair in turn
    for pat in $STANDALONE_PATTERNS; do
      p=${pat//[^A-Za-z0-9]/_}
      log "item 6: plegvet MODE $MODE_FLAGS $pat vs plegvet $MODE_FLAGS $pat (modes: $MODES)"
      # -fix writes into the checkout: measured only when -diff shows it would change nothing.
      modes=$MODES
      if [[ " $modes " == *" fix "* ]]; then
        if ! (cd "$CHECKOUT" && GOFLAGS="$CHECKOUT_GOFLAGS" "$PLEGVET" -findings-exit-code=0 $MODE_FLAGS -diff "$pat" >"$RESULTS/6.fixcheck$p.out" 2>/dev/null) || [[ -s $RESULTS/6.fixcheck$p.out ]]; then
          log "item 6: -fix would change files of $CHECKOUT (see $RESULTS/6.fixcheck$p.out): not measured"
          modes=${modes//fix/}
        fi
      fi
      (cd "$CHECKOUT" && GOFLAGS="$CHECKOUT_GOFLAGS" "$PLEGVET" $MODE_FLAGS "$pat" >/dev/null 2>&1) || true # warm-up: go list's cache
      for r in $(seq "$ROUNDS"); do
        for mode in $modes; do
          case $mode in
            json) args=(-json) ;;
            sarif) args=(-sarif "$RESULTS/6.sarif$p.$r.sarif") ;;
            diff) args=(-diff) ;;
            fix) args=(-fix) ;;
            c1) args=(-c=1) ;;
            *) echo "run.sh: unknown mode $mode" >&2; exit 2 ;;
          esac
          # shellcheck disable=SC2086
          GOFLAGS="$CHECKOUT_GOFLAGS" measure "6.plain-for-$mode$p" "$r" "$CHECKOUT" "$PLEGVET" $MODE_FLAGS "$pat"
          # shellcheck disable=SC2086
          GOFLAGS="$CHECKOUT_GOFLAGS" measure "6.$mode$p" "$r" "$CHECKOUT" "$PLEGVET" $MODE_FLAGS "${args[@]}" "$pat"
        done
        if [[ $MODE_FULL_REF == 1 ]]; then
          # shellcheck disable=SC2086
          PLEGVET_FULL_DRIVER=1 GOFLAGS="$CHECKOUT_GOFLAGS" measure "6.json-full-driver$p" "$r" "$CHECKOUT" "$PLEGVET" $MODE_FLAGS -json "$pat"
        fi
      done
      for mode in $modes; do
        row 6 "wall ratio <= 1.5, peak RSS <= 512 MiB" "6.$mode$p" "6.plain-for-$mode$p"
      done
      [[ $MODE_FULL_REF == 1 ]] && row 6 "reference: the full driver (PLEGVET_FULL_DRIVER=1)" "6.json-full-driver$p" -
    done
    ;;
  7) # golangci-lint with only the plegvet plugin vs golangci-lint with only govet, empty lint cache
    gcl=$GOLANGCI_LINT
    if [[ -z $gcl ]]; then
      log "item 7: building golangci-lint with the plegvet plugin (tools/golangci-lint)"
      (cd "$ROOT/tools/golangci-lint" && go build -o "$BIN/golangci-lint" .)
      gcl=$BIN/golangci-lint
    fi
    printf 'version: "2"\nlinters:\n  default: none\n  enable: [plegvet]\n  settings:\n    custom:\n      plegvet:\n        type: module\n' >"$RESULTS/7.plegvet.yml"
    printf 'version: "2"\nlinters:\n  default: none\n  enable: [govet]\n' >"$RESULTS/7.govet.yml"
    for pat in $GOLANGCI_PATTERNS; do
      p=${pat//[^A-Za-z0-9]/_}
      log "item 7 ($pat): warm-up golangci-lint (go list and the build cache; untimed)"
      (cd "$CHECKOUT" && GOFLAGS="$CHECKOUT_GOFLAGS" GOLANGCI_LINT_CACHE=$(mktemp -d) "$gcl" run -c "$RESULTS/7.govet.yml" "$pat" >"$RESULTS/7.warmup$p.out" 2>&1) || true
      for r in $(seq "$ROUNDS"); do
        for side in plegvet govet; do
          lc=$(mktemp -d)
          GOLANGCI_LINT_CACHE=$lc GOFLAGS="$CHECKOUT_GOFLAGS" measure "7.golangci-$side$p" "$r" "$CHECKOUT" \
            "$gcl" run -c "$RESULTS/7.$side.yml" --issues-exit-code=0 "$pat"
          rm -rf "$lc"
        done
      done
      row 7 "wall and peak RSS within 1.1x of govet alone" "7.golangci-plegvet$p" "7.golangci-govet$p"
    done
    ;;
  5) # the release timeline, modules cached
    log "item 5: plegvet report -k8s TIMELINE (untimed warm-up downloads the releases)"
    (cd "$EMPTY" && GOWORK=off "$PLEGVET" report -k8s "$TIMELINE" >/dev/null) || true
    [[ -n $TIMELINE_RANGE ]] && { (cd "$EMPTY" && GOWORK=off "$PLEGVET" report -k8s "$TIMELINE_RANGE" >/dev/null) || true; }
    for r in $(seq "$ROUNDS"); do
      GOWORK=off measure 5.timeline-list "$r" "$EMPTY" "$PLEGVET" report -k8s "$TIMELINE"
      [[ -n $TIMELINE_RANGE ]] && GOWORK=off measure 5.timeline-range "$r" "$EMPTY" "$PLEGVET" report -k8s "$TIMELINE_RANGE"
      # the single-release figure it is compared with, measured in the same rounds
      GOWORK=off measure 5.report-k8s-single "$r" "$EMPTY" "$PLEGVET" report -k8s "$K8S_VERSION"
    done
    row 5 "ratio <= 6 (12 releases / 1)" 5.timeline-list 5.report-k8s-single
    [[ -n $TIMELINE_RANGE ]] && row 5 "ratio <= 6 (range, proxy probing included)" 5.timeline-range 5.report-k8s-single
    ;;
  8) # the same release's report, computed from the fetched modules vs read from the checkout
    log "item 8: plegvet report -k8s $K8S_VERSION (PLEGVET_CACHE=off, modules cached) vs report -C"
    (cd "$EMPTY" && GOWORK=off PLEGVET_CACHE=off "$PLEGVET" report -k8s "$K8S_VERSION" >/dev/null) # warm-up: the download
    for r in $(seq "$ROUNDS"); do
      GOWORK=off PLEGVET_CACHE=off measure 8.report-k8s-computed "$r" "$EMPTY" "$PLEGVET" report -k8s "$K8S_VERSION"
      PLEGVET_CACHE=off measure 8.report-C "$r" "$EMPTY" "$PLEGVET" report -C "$CHECKOUT"
    done
    row 8 "for reference (no target): -k8s computed / -C" 8.report-k8s-computed 8.report-C
    ;;
  *) echo "run.sh: unknown item $item" >&2; exit 2 ;;
  esac
done
echo "per-run figures: $RUNS" | tee -a "$SUMMARY"
