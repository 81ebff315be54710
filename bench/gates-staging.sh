#!/bin/sh
# bench/gates-staging.sh: what fetching a release's staging modules adds
# to `plegvet gates -k8s`. It builds plegvet twice, as committed (HEAD,
# which fetches k8s.io/kubernetes alone) and as in the working tree (which
# also fetches every staging module the release's go.mod requires, in one
# go mod download), and times `plegvet gates -k8s VERSION -yaml`:
#
#   cold:   each run with an empty module cache of its own (a temporary
#           GOMODCACHE, GOFLAGS=-modcacherw so that it can be removed):
#           the downloads themselves, from GOPROXY;
#   cached: ROUNDS runs each, A B A B ..., with the user's module cache
#           warmed first: what a second run costs.
#
# It prints each run and the medians. Run from the repository's root:
#
#   bench/gates-staging.sh                    # v1.37.2, 3 cached rounds, 1 cold
#   VERSION=v1.36.5 ROUNDS=5 COLD_ROUNDS=2 bench/gates-staging.sh
set -eu

VERSION=${VERSION:-v1.37.2}
ROUNDS=${ROUNDS:-3}
COLD_ROUNDS=${COLD_ROUNDS:-1}

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT INT TERM

mkdir "$work/head"
git archive HEAD | tar -x -C "$work/head"
(cd "$work/head" && go build -o "$work/plegvet-head" ./cmd/plegvet)
go build -o "$work/plegvet-new" ./cmd/plegvet

now() { date +%s%N; }
# run LABEL BINARY [env...]: one timed run, its milliseconds on stdout.
run() {
	bin=$1
	shift
	start=$(now)
	env "$@" "$bin" gates -k8s "$VERSION" -yaml >"$work/out" 2>"$work/err" || true
	end=$(now)
	echo $(((end - start) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
gates() { grep -c '^- name:' "$work/out" || true; }

echo "plegvet gates -k8s $VERSION -yaml; GOPROXY=$(go env GOPROXY)"
echo
echo "cold module cache ($COLD_ROUNDS round(s)):"
: >"$work/cold-head"
: >"$work/cold-new"
i=0
while [ $i -lt "$COLD_ROUNDS" ]; do
	for which in head new; do
		cache="$work/cache-$which-$i"
		mkdir "$cache"
		ms=$(run "$work/plegvet-$which" GOMODCACHE="$cache" GOFLAGS=-modcacherw)
		size=$(du -sm "$cache" | cut -f1)
		echo "  $which: ${ms} ms, $(gates) gates listed, module cache ${size} MB"
		echo "$ms" >>"$work/cold-$which"
		chmod -R u+w "$cache"
		rm -rf "$cache"
	done
	i=$((i + 1))
done

echo
echo "cached module cache ($ROUNDS rounds):"
"$work/plegvet-head" gates -k8s "$VERSION" -yaml >/dev/null 2>&1 || true
"$work/plegvet-new" gates -k8s "$VERSION" -yaml >/dev/null 2>&1 || true
: >"$work/warm-head"
: >"$work/warm-new"
i=0
while [ $i -lt "$ROUNDS" ]; do
	for which in head new; do
		ms=$(run "$work/plegvet-$which")
		echo "  $which: ${ms} ms, $(gates) gates listed"
		echo "$ms" >>"$work/warm-$which"
	done
	i=$((i + 1))
done

echo
printf 'median cold:   head %s ms, new %s ms\n' "$(median <"$work/cold-head")" "$(median <"$work/cold-new")"
printf 'median cached: head %s ms, new %s ms\n' "$(median <"$work/warm-head")" "$(median <"$work/warm-new")"
