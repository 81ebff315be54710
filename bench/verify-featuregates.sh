#!/usr/bin/env bash
# bench/verify-featuregates.sh: plegvet gates -verify against Kubernetes'
# own hack/verify-featuregates.sh on one real checkout, on the clean tree
# and on three mutants, each verdict and each time side by side:
#
#   clean     the checkout as built
#   stale     a stale spec: EventedPLEG's first version 1.26 -> 1.25 in
#             pkg/features/kube_features.go (both lists go stale)
#   removed   a Beta gate's map entry deleted (the removal rule refuses it)
#   mdrow     one row of feature_list.md edited by hand
#
# The checkout comes from ../shared/tools/k8s-checkout.sh (v1.37.2 by
# default). Upstream's script `go run`s two programs; it runs once on the
# clean tree first to warm the build cache, and every time is warm: wall
# seconds, and CPU seconds (user+sys, children included), averaged over
# ROUNDS (default 3). Each
# mutant is undone from a copy before the next. Run from the repository's
# root:
#
#   ../shared/tools/k8s-checkout.sh v1.37.2 /tmp/k8s-v1.37.2
#   CHECKOUT=/tmp/k8s-v1.37.2 bench/verify-featuregates.sh
set -eu

CHECKOUT=${CHECKOUT:?set CHECKOUT to a checkout made by k8s-checkout.sh}
ROUNDS=${ROUNDS:-3}
features=pkg/features/kube_features.go
mdlist=test/compatibility_lifecycle/reference/feature_list.md

work=$(mktemp -d)
trap 'cp "$work/features.go" "$CHECKOUT/$features"; cp "$work/list.md" "$CHECKOUT/$mdlist"; rm -rf "$work"' EXIT INT TERM
cp "$CHECKOUT/$features" "$work/features.go"
cp "$CHECKOUT/$mdlist" "$work/list.md"
go build -o "$work/plegvet" ./cmd/plegvet

restore() {
	cp "$work/features.go" "$CHECKOUT/$features"
	cp "$work/list.md" "$CHECKOUT/$mdlist"
}

mutate() {
	case $1 in
	clean) ;;
	stale)
		python3 - "$CHECKOUT/$features" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
s2 = re.sub(r'(\tEventedPLEG: \{\n\t\t\{Version: version\.MustParse\(")1\.26', r'\g<1>1.25', s, count=1)
assert s2 != s, "no EventedPLEG entry"
open(p, "w").write(s2)
PY
		;;
	removed)
		python3 - "$CHECKOUT/$features" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
# The first entry whose only spec is Beta: from its key to its closing brace.
m = re.search(r'\n\t(\w+): \{\n\t\t\{Version: version\.MustParse\("[0-9.]+"\), Default: (true|false), PreRelease: featuregate\.Beta\},\n\t\},', s)
assert m, "no Beta-only entry"
print("removed", m.group(1), file=sys.stderr)
open(p, "w").write(s[:m.start()] + s[m.end():])
PY
		;;
	mdrow)
		sed -i 's/^| EventedPLEG |  |  | 1\.26– |/| EventedPLEG | :ballot_box_with_check:\&nbsp;1.26+ |  | 1.26– |/' "$CHECKOUT/$mdlist"
		if cmp -s "$CHECKOUT/$mdlist" "$work/list.md"; then
			echo "mdrow: no EventedPLEG row changed" >&2
			exit 1
		fi
		;;
	esac
}

# timed CMD...: runs CMD under /usr/bin/time; the wall and CPU (user+sys)
# seconds land in $work/t.
timed() { /usr/bin/time -f "%e %U %S" -o "$work/t" "$@"; }
add() { echo "$1 + $2" | bc; }

echo "warming upstream's build (not timed)"
(cd "$CHECKOUT" && bash hack/verify-featuregates.sh >/dev/null 2>&1) || true

printf '%-8s %-10s %-10s %9s %9s %9s %9s\n' case upstream plegvet up_wall pv_wall up_cpu pv_cpu
for c in clean stale removed mdrow; do
	restore
	mutate $c
	uw=0; pw=0; uc=0; pc=0
	for r in $(seq "$ROUNDS"); do
		set +e
		(cd "$CHECKOUT" && timed bash hack/verify-featuregates.sh >"$work/up.out" 2>&1); up=$?
		read -r w u s < <(tail -n 1 "$work/t") # a failed command's line comes first
		uw=$(add "$uw" "$w"); uc=$(add "$uc" "$(add "$u" "$s")")
		(cd "$CHECKOUT" && timed "$work/plegvet" gates -C . -verify >"$work/pv.out" 2>&1); pv=$?
		read -r w u s < <(tail -n 1 "$work/t") # a failed command's line comes first
		pw=$(add "$pw" "$w"); pc=$(add "$pc" "$(add "$u" "$s")")
		set -e
	done
	upv=pass; [ $up -eq 0 ] || upv="fail($up)"
	pvv=pass; [ $pv -eq 0 ] || pvv="fail($pv)"
	avg() { echo "scale=2; $1 / $ROUNDS" | bc; }
	printf '%-8s %-10s %-10s %9s %9s %9s %9s\n' $c "$upv" "$pvv" "$(avg "$uw")" "$(avg "$pw")" "$(avg "$uc")" "$(avg "$pc")"
	grep -v '^go: downloading\|^found ' "$work/up.out" | sed 's/^/    upstream: /' | cut -c1-220 | tail -3
	sed 's/^/    plegvet:  /' "$work/pv.out" | cut -c1-220 | tail -3
done
