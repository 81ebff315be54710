// Which releases the module proxy serves: a minor's patches, each asked
// for by name, a minor's newest, and ranges and lists of versions.

package release

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Resolve returns the release a version names: a release itself, in
// canonical form (v1.36.1, or a pre-release: v1.38.0-beta.0), without
// asking the go command; for a minor (v1.36 or 1.36), its newest patch
// that the module proxy serves, every patch asked for by name, or, with
// PreReleases and no patch served, its newest pre-release.
func (f Fetcher) Resolve(ctx context.Context, version string) (string, error) {
	v, err := parse(version)
	if err != nil {
		return "", err
	}
	if !v.IsMinor() {
		return v.Semver(), nil
	}
	newest, err := f.newest(ctx, v.Minor, kubeversion.Version{}, kubeversion.Version{})
	if err == nil && newest == "" {
		err = fmt.Errorf("%q: %w", version, refusal(fmt.Sprintf("the module proxy serves no %s %s of %s", v.Semver(), f.what(), tree.KubernetesModule)))
	}
	return newest, err
}

// what names the versions a minor's newest is taken from.
func (f Fetcher) what() string {
	if f.PreReleases {
		return "patch or pre-release"
	}
	return "patch"
}

// MaxRangeMinors is the most minors a range may span.
const MaxRangeMinors = 64

// Range expands "v1.26.0..v1.37.2" to the newest patch of each minor from
// the first to the last that the proxy serves, none before the first
// version nor after the last (a bound that is a minor, v1.26..v1.37,
// bounds nothing within it), and "v1.25.0,v1.30" to its list, a minor
// standing for its newest patch (as Resolve). A range or a minor takes
// pre-releases only with PreReleases (then a minor that has no release
// yet, or whose releases are all after the last bound, gives its newest
// pre-release); a pre-release named in a list is taken as named. A
// single version is a list of one; a list holding a range is an error
// (ErrListAndRange).
func (f Fetcher) Range(ctx context.Context, spec string) ([]string, error) {
	if strings.Contains(spec, "..") && strings.Contains(spec, ",") {
		return nil, fmt.Errorf("%q: %w; want a comma list (v1.25.16,v1.30.14) or one range (v1.26.0..v1.37.2)", spec, ErrListAndRange)
	}
	if from, to, ok := strings.Cut(spec, ".."); ok {
		return f.minorRange(ctx, spec, from, to)
	}
	var versions []kubeversion.Version
	for _, part := range strings.Split(spec, ",") {
		v, err := parse(part)
		if err != nil {
			return nil, err
		}
		versions = append(versions, v)
	}
	// Resolve asks no go command for a release.
	return probe(len(versions), func(i int) (string, error) { return f.Resolve(ctx, versions[i].Semver()) })
}

// probingMinors bounds the minors asked about at once: each answer is
// network-bound, and each minor runs a few go commands.
const probingMinors = 4

// probe runs ask for 0..n-1, probingMinors at once, and returns the
// answers in order, or the first error in order, so that a failing list
// says the same whichever probe failed first in time.
func probe(n int, ask func(i int) (string, error)) ([]string, error) {
	out := make([]string, n)
	errs := make([]error, n)
	var g errgroup.Group
	g.SetLimit(probingMinors)
	for i := range n {
		g.Go(func() error {
			out[i], errs[i] = ask(i)
			return nil
		})
	}
	_ = g.Wait() // the probes' errors are in errs, in order
	if err := cmp.Or(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// minorRange expands the range spec, from..to: the newest patch of each
// minor between them that the proxy serves.
func (f Fetcher) minorRange(ctx context.Context, spec, from, to string) ([]string, error) {
	lo, err := parse(from)
	if err != nil {
		return nil, err
	}
	hi, err := parse(to)
	if err != nil {
		return nil, err
	}
	if lo.Minor > hi.Minor {
		return nil, fmt.Errorf("%q: %w from minor %d to %d", spec, ErrRangeGoesDown, lo.Minor, hi.Minor)
	}
	if hi.Minor-lo.Minor >= MaxRangeMinors {
		return nil, fmt.Errorf("%q: %w: %d, more than %d", spec, ErrRangeTooWide, hi.Minor-lo.Minor+1, MaxRangeMinors)
	}
	found, err := probe(int(hi.Minor-lo.Minor+1), func(i int) (string, error) {
		return f.newest(ctx, lo.Minor+uint(i), lo, hi)
	})
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(found, func(v string) bool { return v == "" })
	if len(out) == 0 {
		return nil, fmt.Errorf("%q: %w", spec, refusal("the module proxy serves no "+tree.KubernetesModule+" release in that range"))
	}
	return out, nil
}

// maxPatchProbe bounds the patches asked for: no Kubernetes minor has had
// more than about 20.
const maxPatchProbe = 31

// newest finds the newest version of v1.<minor> the proxy serves, not
// before lo nor after hi (a zero Version, or a minor, bounds nothing in
// its minor): a patch, else, with PreReleases, a pre-release of
// v1.<minor>.0 (Kubernetes tags alpha, beta and rc of a minor's first
// release only, and each comes before it). "" when it serves none and
// the go command said nothing of why.
func (f Fetcher) newest(ctx context.Context, minor uint, lo, hi kubeversion.Version) (string, error) {
	maxPatch := uint(maxPatchProbe)
	if hi.Minor == minor && hi.Patch != nil {
		if hi.Pre != "" && !f.PreReleases {
			return "", nil // every release of the minor is after hi
		}
		maxPatch = *hi.Patch
	}
	within := func(v string) bool {
		return (lo.Patch == nil || semver.Compare(v, lo.Semver()) >= 0) && (hi.Patch == nil || semver.Compare(v, hi.Semver()) <= 0)
	}
	served, err := f.patches(ctx, minor, maxPatch)
	var found []string
	for _, p := range served {
		if v := fmt.Sprintf("v1.%d.%d", minor, p); within(v) {
			found = append(found, v)
		}
	}
	if len(found) == 0 && f.PreReleases {
		pre, preErr := f.servedVersions(ctx, fmt.Sprintf("asking the go command for v1.%d.0 pre-releases", minor), preReleaseNames(minor))
		for _, v := range pre {
			if within(v) {
				found = append(found, v)
			}
		}
		if len(found) > 0 {
			err = nil
		} else if err == nil {
			err = preErr
		}
	}
	if len(found) == 0 {
		return "", err
	}
	return slices.MaxFunc(found, semver.Compare), nil
}

// preReleaseNames are the pre-releases of v1.<minor>.0 asked for by name:
// Kubernetes has tagged up to four alphas, four betas and four release
// candidates of a minor.
func preReleaseNames(minor uint) []string {
	var out []string
	for _, stage := range []string{"alpha", "beta", "rc"} {
		for n := range 4 {
			out = append(out, fmt.Sprintf("v1.%d.0-%s.%d", minor, stage, n))
		}
	}
	return out
}

// Patches lists the patches of v1.<minor> the proxy serves, in order:
// none, without an error, when it serves none and the go command said
// nothing of why.
func (f Fetcher) Patches(ctx context.Context, minor uint) ([]uint, error) {
	served, err := f.patches(ctx, minor, maxPatchProbe) // nil when err
	slices.Sort(served)
	return served, err
}

// patches finds the patches of v1.<minor> the proxy serves, not after
// maxPatch. The proxy's version list may be partial and a proxy may serve
// some patches and not others, so every patch is asked for by name, a few
// per go command, the commands at once. A failed command is an answer
// (those patches are not served) unless every command failed or one was
// stopped; the error then says why.
func (f Fetcher) patches(ctx context.Context, minor, maxPatch uint) ([]uint, error) {
	maxPatch = min(maxPatch, maxPatchProbe)
	const chunk = 8
	chunks := int(maxPatch/chunk) + 1
	served := make([][]uint, chunks)
	errs := make([]error, chunks)
	var g errgroup.Group
	for i := range chunks {
		start := uint(i) * chunk
		g.Go(func() error {
			served[i], errs[i] = f.servedPatches(ctx, minor, start, min(start+chunk-1, maxPatch))
			if isStopped(errs[i]) {
				// A stopped chunk may have held the newest patch, so the
				// others' answer is not the answer.
				return errs[i]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	found := slices.Concat(served...)
	if len(found) == 0 {
		return nil, cmp.Or(errs...) // every chunk failed: say why
	}
	return found, nil
}

// servedPatches asks the go command, in one run, which of the patches
// from..to of k8s.io/kubernetes@v1.minor the proxy serves.
func (f Fetcher) servedPatches(ctx context.Context, minor, from, to uint) ([]uint, error) {
	var names []string
	for p := from; p <= to; p++ {
		names = append(names, fmt.Sprintf("v1.%d.%d", minor, p))
	}
	versions, err := f.servedVersions(ctx, fmt.Sprintf("asking the go command for v1.%d patches", minor), names)
	if r := refusal(""); errors.As(err, &r) {
		return nil, fmt.Errorf("the go command serves no v1.%d patch: %w", minor, err)
	} else if err != nil {
		return nil, err
	}
	var served []uint
	for _, s := range versions {
		v, _ := kubeversion.Parse(s)
		served = append(served, *v.Patch)
	}
	return served, nil
}

// servedVersions asks the go command, in one run, which of the versions
// of k8s.io/kubernetes the proxy serves. When it serves none, the error
// is the go command's first reason (a refusal), or what stopped it.
func (f Fetcher) servedVersions(ctx context.Context, what string, versions []string) ([]string, error) {
	args := []string{"list", "-m", "-e", "-f", "{{.Version}} {{if .Error}}missing {{.Error.Err}}{{else}}ok{{end}}"}
	for _, v := range versions {
		args = append(args, tree.KubernetesModule+"@"+v)
	}
	tmp, err := tempDir()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, errOut, err := f.runGo(ctx, what, tmp, args...)
	if isStopped(err) {
		return nil, err
	}
	if err != nil && len(out) == 0 {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("%s: %s", what, oneLine(string(errOut)))
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var served []string
	why := ""
	for _, line := range strings.Split(string(out), "\n") {
		listed, state, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && state == "ok" && slices.Contains(versions, listed) {
			served = append(served, listed)
		} else if reason, missing := strings.CutPrefix(state, "missing "); missing && why == "" {
			why = reason
		}
	}
	if len(served) == 0 && why != "" {
		return nil, refusal(oneLine(why))
	}
	return served, nil
}
