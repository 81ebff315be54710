// Package release fetches released Kubernetes source (k8s.io/kubernetes and
// k8s.io/cri-api) with the user's own go command, so that plegvet can answer
// for a version without a checkout.
package release

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/internal/kubeversion"
	"github.com/plegvet/plegvet/internal/tree"
)

// Errors a caller can test with errors.Is. Their messages name no flag or
// option: the caller says where the version came from.
var (
	// ErrNotARelease: a version that names no Kubernetes release.
	ErrNotARelease = errors.New("not a Kubernetes release version")
	// ErrRangeGoesDown: a range whose last minor is before its first.
	ErrRangeGoesDown = errors.New("the range goes down")
	// ErrRangeTooWide: a range of more minors than MaxRangeMinors; each
	// minor costs go commands, and Kubernetes has had some forty.
	ErrRangeTooWide = errors.New("the range spans too many minors")
	// ErrNoSuchRelease: a release after the newest the module proxy
	// serves (v1.99.0). It is also ErrProxyRefused.
	ErrNoSuchRelease = errors.New("no such Kubernetes release")
	// ErrProxyRefused: the go command, through the module proxy (GOPROXY),
	// did not serve a version asked for; the error's text is the go
	// command's own, which says why (an unknown revision, lookup disabled,
	// a proxy it could not reach).
	ErrProxyRefused = errors.New("the module proxy does not serve the version")
)

// noSuchRelease is a refusal the proxy made because the release does not
// exist yet: errors.Is finds both ErrNoSuchRelease and ErrProxyRefused.
type noSuchRelease string

func (e noSuchRelease) Error() string { return string(e) }
func (noSuchRelease) Is(target error) bool {
	return target == ErrNoSuchRelease || target == ErrProxyRefused
}

// refusal is the go command's message for a version it did not serve.
type refusal string

func (r refusal) Error() string      { return string(r) }
func (refusal) Is(target error) bool { return target == ErrProxyRefused }

// ParseVersion checks a Kubernetes release version such as v1.36.1 (a
// leading "v" may be omitted) and returns it in canonical form. A minor
// without a patch (v1.36) is not a release: Resolve picks its newest.
func ParseVersion(s string) (string, error) {
	v, err := parse(s)
	if err != nil || !v.IsRelease() {
		return "", notARelease(s) // parse's error too
	}
	return v.Semver(), nil
}

// parse reads a release (v1.36.1) or a minor of major 1 (v1.36).
func parse(s string) (kubeversion.Version, error) {
	v, ok := kubeversion.Parse(s)
	if !ok || !v.IsRelease() && !(v.IsMinor() && v.Major == 1) {
		return kubeversion.Version{}, notARelease(s)
	}
	return v, nil
}

func notARelease(s string) error {
	return fmt.Errorf("%q: %w; want v1.MINOR.PATCH, such as v1.36.1", s, ErrNotARelease)
}

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

// unserved explains a release the proxy refused by the newest release it
// serves (k8s.io/kubernetes@latest): a version after it is no release at
// all, which the proxy's "403 Forbidden" does not say; one before it is
// one this proxy lacks, and the go command's words stay. When even the
// newest cannot be asked for (no network, GOPROXY=off) the go command's
// first answer is the whole answer.
func (f Fetcher) unserved(ctx context.Context, v string, refused error) error {
	out, _, err := f.runGo(ctx, "asking the go command for the newest "+tree.KubernetesModule, os.TempDir(),
		"list", "-m", "-f", "{{.Version}}", tree.KubernetesModule+"@latest")
	newest := strings.TrimSpace(string(out))
	if err != nil || semver.Compare(newest, "v1.0.0") < 0 {
		return refused
	}
	if semver.Compare(v, newest) > 0 {
		return noSuchRelease(fmt.Sprintf("%s@%s: %v: the newest the module proxy serves is %s",
			tree.KubernetesModule, v, ErrNoSuchRelease, newest))
	}
	return fmt.Errorf("%w (the newest release the module proxy serves is %s)", refused, newest)
}

// StagingVersion maps a Kubernetes version to the version of its staging
// modules: v1.36.1 -> v0.36.1.
func StagingVersion(v string) string { return "v0." + strings.TrimPrefix(v, "v1.") }

// Module is one module the go command downloaded.
type Module struct {
	Path, Version, Dir string
	// Sum is the module's go.sum hash (h1:...): its content, fixed.
	Sum string
}

// Fetch downloads k8s.io/kubernetes@version and, when withCRI is set,
// k8s.io/cri-api at the matching staging version, and describes them as one
// tree. A minor (v1.36) means its newest patch, as Resolve finds it; the
// tree's Version says which release was fetched. It runs "go mod download -json" outside any module, so GOPROXY,
// GOFLAGS, GOMODCACHE and GONOSUMDB apply as the user set them.
func (f Fetcher) Fetch(ctx context.Context, version string, withCRI bool) (*tree.Tree, error) {
	v, err := f.Resolve(ctx, version)
	if err != nil {
		return nil, err
	}
	want := []string{tree.KubernetesModule + "@" + v}
	if withCRI {
		want = append(want, tree.CRIAPIModule+"@"+StagingVersion(v))
	}
	mods, err := f.Download(ctx, want...)
	if errors.Is(err, ErrProxyRefused) {
		return nil, f.unserved(ctx, v, err)
	}
	if err != nil {
		return nil, err
	}
	t := &tree.Tree{Dir: mods[0].Dir, Module: tree.KubernetesModule, Version: v, Modules: map[string]string{}, Sums: map[string]string{}}
	for _, m := range mods {
		t.Sums[m.Path] = m.Sum
	}
	if withCRI {
		t.Modules[tree.CRIAPIModule] = mods[1].Dir
	}
	return t, nil
}

// Download runs "go mod download -json" for each module@version and returns
// them in order. An error names the module and repeats what the go command
// said, in one line. The go command runs under the Fetcher's Timeout and stops with
// ctx; the error then wraps ctx.Err() (context.DeadlineExceeded or
// context.Canceled).
func (f Fetcher) Download(ctx context.Context, modules ...string) ([]Module, error) {
	found, missing, err := f.DownloadSome(ctx, modules...)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("cannot fetch %s with the go command: %w", missing[0].Module, refusal(missing[0].Why))
	}
	return found, nil
}

// Missing is a module the go command did not download, with what it said.
type Missing struct {
	Module string // module@version
	Why    string // the go command's message, on one line
}

// DownloadSome is Download in one run of the go command that keeps what it
// fetched: the modules downloaded, in the order asked, and each one that
// was not, with why. The error is for a go command that could not run,
// was stopped, or whose output could not be read.
func (f Fetcher) DownloadSome(ctx context.Context, modules ...string) ([]Module, []Missing, error) {
	what := "fetching " + strings.Join(modules, ", ")
	if len(modules) > 3 {
		what = fmt.Sprintf("fetching %s and %d more modules", strings.Join(modules[:2], ", "), len(modules)-2)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: interrupted before the go command ran: %w", what, err)
	}
	// A directory outside any module, so that no go.mod of the user's
	// applies; removed on every return, stopped runs included.
	neutral, err := os.MkdirTemp("", "plegvet-download-")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	defer os.RemoveAll(neutral)
	args := append([]string{"mod", "download", "-json"}, modules...)
	if f.Progress != nil {
		done := f.Progress(what)
		defer done()
	}
	outJSON, errOut, runErr := f.runGoFor(ctx, len(modules), what, neutral, args...)
	if isStopped(runErr) {
		return nil, nil, runErr
	}
	var execErr *exec.Error
	if errors.As(runErr, &execErr) {
		return nil, nil, fmt.Errorf("cannot run the go command to fetch %s: %w", strings.Join(modules, ", "), runErr)
	}
	type result struct {
		Module
		Error string
	}
	got := map[string]result{} // by module@version
	var errs []string
	dec := json.NewDecoder(bytes.NewReader(outJSON))
	for {
		var m result
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s: cannot read the go command's output: %w", what, err)
		}
		got[m.Path+"@"+m.Version] = m
		if m.Error != "" {
			errs = append(errs, oneLine(m.Error))
		}
	}
	runErrText := ""
	if runErr != nil {
		runErrText = runErr.Error()
	}
	out := make([]Module, 0, len(modules))
	var missing []Missing
	for _, want := range modules {
		m := got[want]
		if m.Error == "" && m.Dir != "" {
			out = append(out, m.Module)
			continue
		}
		why := cmp.Or(oneLine(m.Error), strings.Join(errs, "; "), oneLine(string(errOut)), runErrText, "the go command did not say where it is")
		missing = append(missing, Missing{Module: want, Why: why})
	}
	return out, missing, nil
}

// StagingModules reads the go.mod of k8s.io/kubernetes: the modules it
// requires and replaces with a directory of its own staging/src, in the
// order of its require lines. A release's staging modules are published
// as modules of their own at the matching v0 version (StagingVersion).
func StagingModules(gomod string) ([]string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse(gomod, data, func(_, v string) (string, error) { return v, nil })
	if err != nil {
		return nil, fmt.Errorf("%s: %v", gomod, oneLine(err.Error()))
	}
	staged := map[string]bool{}
	for _, r := range f.Replace {
		if r.New.Version == "" && strings.HasPrefix(path.Clean(r.New.Path), "staging/src/") {
			staged[r.Old.Path] = true
		}
	}
	var mods []string
	for _, r := range f.Require {
		if staged[r.Mod.Path] {
			delete(staged, r.Mod.Path) // listed once
			mods = append(mods, r.Mod.Path)
		}
	}
	return mods, nil
}

// FetchWithStaging is Fetch, with every staging module the release's
// go.mod requires (StagingModules) at the matching staging version, the
// staging modules in ONE run of the go command after k8s.io/kubernetes
// (whose go.mod names them). A staging module the proxy does not serve
// is in missing, with the go command's word; the tree holds the others.
func (f Fetcher) FetchWithStaging(ctx context.Context, version string) (*tree.Tree, []Missing, error) {
	t, err := f.Fetch(ctx, version, false)
	if err != nil {
		return nil, nil, err
	}
	mods, err := StagingModules(filepath.Join(t.Dir, "go.mod"))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the staging modules of %s@%s: %w", tree.KubernetesModule, t.Version, err)
	}
	if len(mods) == 0 {
		return t, nil, nil
	}
	want := make([]string, len(mods))
	for i, m := range mods {
		want[i] = m + "@" + StagingVersion(t.Version)
	}
	found, missing, err := f.DownloadSome(ctx, want...)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range found {
		t.Modules[m.Path] = m.Dir
		t.Sums[m.Path] = m.Sum
	}
	return t, missing, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// isStopped reports whether err says the context stopped the go command.
func isStopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
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
	out, errOut, err := f.runGo(ctx, what, os.TempDir(), args...)
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
