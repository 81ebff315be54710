package plegvet

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/engine"
	"github.com/plegvet/plegvet/internal/release"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
)

// Options say which tree to analyse.
type Options struct {
	// Dir is the root of a Kubernetes checkout (a fork's, say); "" means
	// the current directory.
	Dir string
	// Kubernetes, when set, is a released version (v1.36.1) whose
	// k8s.io/kubernetes and k8s.io/cri-api modules are fetched with the
	// go command and analysed as if they were a checkout. Dir is then
	// ignored.
	Kubernetes string
	// Proto, when set, is the CRI api.proto to read instead of the
	// tree's. Alone (Dir and Kubernetes empty) it is read without a tree.
	Proto string
	// CacheDir, when set, keeps the answers Inspect and Gates give for a
	// released version (Kubernetes set, Proto not) in this directory,
	// keyed by the program's build ID and the fetched modules' go.sum
	// hashes, and reads them from there when asked again: a release's
	// content never changes. A checkout is never cached. "" caches
	// nothing; the command line uses DefaultCacheDir().
	CacheDir string
	// Fetch says how the go command fetches a released version.
	Fetch FetchOptions
	// SkipIndex reads a node's source (LoadNodeSource, Node) from the
	// release itself even when plegvet's index holds it.
	SkipIndex bool
}

// FetchOptions say how the go command that fetches released source (or
// lists a range's patches) runs.
type FetchOptions struct {
	// Timeout bounds each run of the go command: one download of a
	// release (k8s.io/kubernetes and k8s.io/cri-api together), of a
	// runtime's module, or one listing of a minor's patches. On expiry
	// the go command is stopped, its temporary directory removed, and the
	// answer is an error that wraps context.DeadlineExceeded and names
	// GOPROXY. Zero means DefaultFetchTimeout; less than zero, no limit
	// but the context's. The command line sets it from
	// PLEGVET_FETCH_TIMEOUT.
	Timeout time.Duration
	// Progress, when set, is told as each run of the go command that
	// downloads modules begins, with what it fetches ("fetching
	// k8s.io/kubernetes@v1.36.1, k8s.io/cri-api@v0.36.1"); the func it
	// returns is called as the run ends. Runs may overlap (a timeline
	// fetches releases at once). A module already in the module cache
	// makes a run of a few tens of milliseconds.
	Progress func(what string) (done func())
}

// DefaultFetchTimeout is the limit of a run of the go command when
// FetchOptions.Timeout is zero, for a run that downloads one module (30 s
// more for each further one, as a release's staging modules come in one
// run): a cold download of k8s.io/kubernetes
// (about 20 MB zipped) takes seconds to a minute or two, and a proxy that
// accepts the connection and never answers is given up on in bounded
// time. With GOPROXY=direct the go command clones the repository instead;
// raise the limit for that.
const DefaultFetchTimeout = release.DefaultFetchTimeout

// fetcher is the release fetcher these options describe.
func (o FetchOptions) fetcher() release.Fetcher {
	return release.Fetcher{Timeout: o.Timeout, Progress: o.Progress}
}

// open resolves the options to a tree and the Source that describes it.
func open(ctx context.Context, opts Options, withCRI bool) (*tree.Tree, Source, error) {
	if opts.Kubernetes != "" {
		t, err := opts.Fetch.fetcher().Fetch(ctx, opts.Kubernetes, withCRI)
		if err != nil {
			return nil, Source{}, kubernetesError(err)
		}
		return t, releaseSource(t.Version), nil
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	t, err := tree.Open(dir)
	if err != nil {
		return nil, Source{}, err
	}
	return t, Source{Dir: filepath.ToSlash(filepath.Clean(dir))}, nil
}

// kubernetesError is err, an OptionError when Options.Kubernetes (or a
// range) names no release.
func kubernetesError(err error) error {
	if errors.Is(err, release.ErrNotARelease) || errors.Is(err, release.ErrRangeGoesDown) || errors.Is(err, release.ErrRangeTooWide) {
		return &OptionError{Option: "Kubernetes", Err: err}
	}
	return err
}

// releaseSource is the Source of a fetched release.
func releaseSource(version string) Source {
	return Source{Dir: tree.KubernetesModule + "@" + version, KubernetesVersion: version}
}

// load type-checks the packages (import paths) from source, with the
// imports also picks when the tree holds them, runs the analyzers over
// them (nil: the suite's) and records how in src.Load, after the problems
// found before it.
func load(ctx context.Context, t *tree.Tree, src *Source, also func(string) bool, problems []string, analyzers []*analysis.Analyzer, paths ...string) (*engine.Run, error) {
	if analyzers == nil {
		analyzers = suite.Defaults()
	}
	run, err := engine.Analyse(ctx, engine.Request{Tree: t, Paths: paths, FromSource: also, Answer: true, Reads: suite.Reads, Analyzers: analyzers})
	if err != nil {
		return nil, err
	}
	src.Load = Load{Mode: engine.Mode, Modelled: append([]string{}, run.Modelled...), Stubbed: len(run.Stubbed), Problems: append([]string{}, problems...), Unfollowed: []string{}}
	for _, p := range run.Problems {
		src.Load.Problems = append(src.Load.Problems, p.Error())
	}
	return run, nil
}

// analysed is one load of a tree and one run of the analyzers over it,
// from which every answer is read.
type analysed struct {
	tree *tree.Tree
	src  Source
	res  *engine.Run
}

// analyse loads the packages (relative to the tree's module) and runs
// the suite's analyzers, as configured by default, over them.
func analyse(ctx context.Context, t *tree.Tree, src Source, also func(string) bool, rel ...string) (*analysed, error) {
	paths := make([]string, len(rel))
	for i, r := range rel {
		paths[i] = t.Module + "/" + r
	}
	run, err := load(ctx, t, &src, also, nil, nil, paths...)
	if err != nil {
		return nil, err
	}
	return &analysed{tree: t, src: src, res: run}, nil
}

// outcome is what an analyzer produced for a package (relative path).
func (a *analysed) outcome(an *analysis.Analyzer, rel string) (*engine.Outcome, error) {
	out := a.res.Root(an, a.tree.Module+"/"+rel)
	if out == nil {
		return nil, fmt.Errorf("%s: %s was not analysed", a.src.Dir, rel)
	}
	if out.Err != nil {
		return nil, fmt.Errorf("%s: %s: %w", a.src.Dir, rel, out.Err)
	}
	return out, nil
}

// unreadIn names, for an error that says something is absent, the files of
// the packages (relative paths) that were not read in full: what is absent
// may be in them.
func (a *analysed) unreadIn(rel ...string) string {
	var in []string
	for _, p := range a.res.Problems {
		if slices.Contains(rel, path.Dir(p.Pos.Filename)) {
			in = append(in, p.Error())
		}
	}
	switch len(in) {
	case 0:
		return ""
	case 1:
		return "; it may be in the file that was not read: " + in[0]
	}
	return fmt.Sprintf("; it may be in the %d files that were not read, first %s", len(in), in[0])
}
