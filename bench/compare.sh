#!/usr/bin/env bash
# bench/compare.sh: the standalone driver's modes on a real checkout, through its two loaders
# (the lean one, and go/packages with PLEGVET_FULL_DRIVER=1): output, exit status and SARIF must
# agree byte for byte. -fix and -diff run `go fix -fixtool=plegvet` (the go command applies the
# fixes, whichever loader plegvet would use): the files -fix writes must be what -diff shows.
# cmd/plegvet's TestDriversAgree does the same on the fixtures.
#
# usage: bench/compare.sh CHECKOUT
# env:
#   PATTERNS="./pkg/..."         package patterns
#   FLAGS="-pleg.note"           analyzer flags added to every run (the gate-note gives a finding
#                                on an unmodified release)
#   INJECT=1                     first edit CHECKOUT/pkg/features/kube_features.go so that it has
#                                fixable findings (an Alpha spec on by default, a patch-release
#                                Version); the file is restored on exit, however the script ends
#   RESULTS=DIR                  where outputs go (default: a new temp dir; kept)
#
# Each full-driver run holds about 4 GiB (./pkg/...); the script runs them one at a time.
set -Eeuo pipefail

if [[ $# -ne 1 ]]; then
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
CHECKOUT=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PATTERNS=${PATTERNS:-./pkg/...}
FLAGS=${FLAGS--pleg.note}
INJECT=${INJECT:-0}
RESULTS=${RESULTS:-$(mktemp -d /tmp/plegvet-compare.XXXXXX)}
mkdir -p "$RESULTS"
export GOFLAGS=$(cat "$CHECKOUT/.make-checkout.goflags" 2>/dev/null || true)
log() { echo "[compare] $*" >&2; }

BIN=$RESULTS/plegvet
(cd "$ROOT" && go build -o "$BIN" ./cmd/plegvet)

FEATURES=$CHECKOUT/pkg/features/kube_features.go
SAVED=$RESULTS/kube_features.go.orig
cp "$FEATURES" "$SAVED"
# Every file -fix may write is saved here first, and restored after each -fix run.
BACKUP=$RESULTS/backup
restore_all() {
  if [[ -d $BACKUP ]]; then (cd "$BACKUP" && find . -type f) | while read -r f; do cp "$BACKUP/$f" "$CHECKOUT/$f"; done; fi
  cp "$SAVED" "$FEATURES" # last: the backup may hold the injected file
}
trap restore_all EXIT
if [[ $INJECT == 1 ]]; then
  alpha=$(grep -n 'Default: false, PreRelease: featuregate.Alpha}' "$FEATURES" | sed -n 2p | cut -d: -f1)
  patch=$(grep -n 'Default: false, PreRelease: featuregate.Alpha}' "$FEATURES" | sed -n 1p | cut -d: -f1)
  [[ -n $alpha && -n $patch ]] || { echo "compare.sh: no Alpha spec to edit in $FEATURES" >&2; exit 2; }
  sed -i "${alpha}s/Default: false/Default: true/" "$FEATURES"
  sed -i "${patch}s/MustParse(\"\([0-9]*\.[0-9]*\)\")/MustParse(\"\1.3\")/" "$FEATURES"
  log "injected: $FEATURES lines $alpha (Alpha on by default) and $patch (patch-release Version)"
  cp "$FEATURES" "$SAVED.injected"
fi

# run KEY DRIVER ARGS...: stdout, stderr and exit status to $RESULTS/KEY.{out,err,rc}; paths of the
# checkout written $CHECKOUT.
run() {
  local key=$1 driver=$2; shift 2
  local rc=0 t0 t1
  t0=$EPOCHREALTIME
  (cd "$CHECKOUT" && PLEGVET_FULL_DRIVER=$driver "$BIN" "$@") >"$RESULTS/$key.out" 2>"$RESULTS/$key.err" || rc=$?
  t1=$EPOCHREALTIME
  sed -i "s#$CHECKOUT#\$CHECKOUT#g" "$RESULTS/$key.out" "$RESULTS/$key.err"
  echo "$rc" >"$RESULTS/$key.rc"
  log "$(printf '%-34s exit %s  %6.1f s' "$key" "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")"
}
FAILS=0
same() { # FILE_A FILE_B WHAT
  if cmp -s "$1" "$2"; then log "  same: $3"; else log "  DIFFERENT: $3 ($1 vs $2)"; FAILS=$((FAILS + 1)); fi
}

# shellcheck disable=SC2086
for pat in $PATTERNS; do
  p=${pat//[^A-Za-z0-9]/_}
  for mode in plain c1 json sarif; do
    case $mode in
      plain) args=() ;;
      c1) args=(-c=1) ;;
      json) args=(-json) ;;
      sarif) args=() ;;
    esac
    for d in lean full; do
      driver=; [[ $d == full ]] && driver=1
      a=("${args[@]}")
      [[ $mode == sarif ]] && a=(-sarif "$RESULTS/$p.$d.sarif")
      run "$p.$mode.$d" "$driver" $FLAGS "${a[@]}" "$pat"
    done
    k=$RESULTS/$p.$mode
    same "$k.lean.out" "$k.full.out" "$pat $mode stdout, lean = full"
    same "$k.lean.err" "$k.full.err" "$pat $mode stderr, lean = full"
    same "$k.lean.rc" "$k.full.rc" "$pat $mode exit, lean = full"
    [[ $mode == sarif ]] && same "$RESULTS/$p.lean.sarif" "$RESULTS/$p.full.sarif" "$pat SARIF file, lean = full"
  done
  # The finding count is the same in every mode: text lines that start a finding, JSON posn
  # entries at the top level of a finding, SARIF results.
  n_text=$(grep -cP '^\$CHECKOUT/\S*:\d+:\d+: (?!\t)' "$RESULTS/$p.plain.lean.err" || true)
  n_json=$(grep -cP '^\t{4}"posn"' "$RESULTS/$p.json.lean.out" || true)
  n_sarif=$(grep -c '"ruleId"' "$RESULTS/$p.lean.sarif" || true)
  log "findings: text $n_text, -json $n_json, SARIF $n_sarif"
  [[ $n_text == "$n_json" && $n_json == "$n_sarif" ]] || { log "  finding counts DIFFER"; FAILS=$((FAILS + 1)); }

  # -diff, then -fix from the same files: what -fix writes is what -diff showed (x/tools' diff
  # names each file "--- /abs/FILE (old)").
  run "$p.diff" "" $FLAGS -diff "$pat"
  files=$(sed -n 's#^--- \(/.*\) (old)$#\1#p' "$RESULTS/$p.diff.out")
  mkdir -p "$BACKUP"
  for f in $files; do mkdir -p "$BACKUP/$(dirname "$f")"; cp "$f" "$BACKUP/$f"; done
  run "$p.fix" "" $FLAGS -fix "$pat"
  for f in $files; do
    if (cd / && patch -s -o - "$BACKUP/$f" < <(awk -v f="$f" '$0 == "--- " f " (old)" {on=1} on && /^--- / && $0 != "--- " f " (old)" {on=0} on' "$RESULTS/$p.diff.out")) | cmp -s - "$f"; then
      log "  same: $f as -diff showed"
    else
      log "  DIFFERENT: $f is not what -diff showed"; FAILS=$((FAILS + 1))
    fi
    cp "$BACKUP/$f" "$f"
  done
done
log "results: $RESULTS"
if [[ $FAILS -gt 0 ]]; then
  log "$FAILS comparisons failed"
  exit 1
fi
log "every comparison agreed"
