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

	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Resolve returns the release a version names: a release itself, in
// canonical form (v1.36.1), without asking the go command; for a minor
// (v1.36 or 1.36), its newest patch that the module proxy serves, every
// patch asked for by name.
func (f Fetcher) Resolve(ctx context.Context, version string) (string, error) {
	v, err := parse(version)
	if err != nil {
		return "", err
	}
	if !v.IsMinor() {
		return v.Semver(), nil
	}
	newest, err := f.newestPatch(ctx, v.Minor, maxPatchProbe)
	if err == nil && newest == "" {
		err = fmt.Errorf("%q: %w", version, refusal(fmt.Sprintf("the module proxy serves no %s patch of %s", v.Semver(), tree.KubernetesModule)))
	}
	return newest, err
}

// MaxRangeMinors is the most minors a range may span.
const MaxRangeMinors = 64

// Range expands "v1.26.0..v1.37.2" to the newest patch of each minor from
// the first to the last that the proxy serves (the last minor capped at
// the given patch, uncapped when it is a minor: v1.26..v1.37), and
// "v1.25.0,v1.30" to its list, a minor standing for its newest patch (as
// Resolve). A single version is a list of one.
func (f Fetcher) Range(ctx context.Context, spec string) ([]string, error) {
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
		m, maxPatch := lo.Minor+uint(i), uint(maxPatchProbe)
		if m == hi.Minor && hi.Patch != nil {
			maxPatch = *hi.Patch
		}
		return f.newestPatch(ctx, m, maxPatch)
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

// newestPatch finds the newest patch of v1.<minor> the proxy serves, not
// after maxPatch; "" when it serves none and the go command said nothing
// of why.
func (f Fetcher) newestPatch(ctx context.Context, minor, maxPatch uint) (string, error) {
	served, err := f.patches(ctx, minor, maxPatch)
	if len(served) == 0 {
		return "", err
	}
	return fmt.Sprintf("v1.%d.%d", minor, slices.Max(served)), nil
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
	args := []string{"list", "-m", "-e", "-f", "{{.Version}} {{if .Error}}missing {{.Error.Err}}{{else}}ok{{end}}"}
	for p := from; p <= to; p++ {
		args = append(args, fmt.Sprintf("%s@v1.%d.%d", tree.KubernetesModule, minor, p))
	}
	what := fmt.Sprintf("asking the go command for v1.%d patches", minor)
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
	var served []uint
	why := ""
	for _, line := range strings.Split(string(out), "\n") {
		listed, state, ok := strings.Cut(strings.TrimSpace(line), " ")
		v, isVersion := kubeversion.Parse(listed)
		if ok && state == "ok" && isVersion && v.IsRelease() && v.Pre == "" && v.Minor == minor {
			served = append(served, *v.Patch)
		} else if reason, missing := strings.CutPrefix(state, "missing "); missing && why == "" {
			why = reason
		}
	}
	if len(served) == 0 && why != "" {
		return nil, fmt.Errorf("the go command serves no v1.%d patch: %w", minor, refusal(oneLine(why)))
	}
	return served, nil
}
