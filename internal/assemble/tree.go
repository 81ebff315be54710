// Package assemble puts each of the library's answers together: it opens
// the tree (a checkout, or a release fetched with the go command, or the
// answer cache), has internal/load/engine load it and run the suite, and reads
// the analyzers' results into the answer types. The root package is its
// facade: one function per answer.
package assemble

import (
	"context"
	"errors"
	"fmt"
	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/assemble/finding"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
	"github.com/plegvet/plegvet/internal/load/answercache"
	"github.com/plegvet/plegvet/internal/load/buildenv"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/release"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/runtimehang"
	"go/token"
	"golang.org/x/tools/go/analysis"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// open resolves the options to a tree and the Source that describes it.
func open(ctx context.Context, opts Options, withCRI bool) (*tree.Tree, answer.Source, error) {
	buildenv.Start() // needed next (cached, the loader)
	if opts.Kubernetes != "" {
		t, err := opts.Fetch.Fetch(ctx, opts.Kubernetes, withCRI)
		if err != nil {
			return nil, answer.Source{}, kubernetesError(err)
		}
		return t, releaseSource(t.Version), nil
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	t, err := tree.Open(dir)
	if err != nil {
		return nil, answer.Source{}, err
	}
	return t, answer.Source{Dir: filepath.ToSlash(filepath.Clean(dir))}, nil
}

// kubernetesError is err, an OptionError when Options.Kubernetes (or a
// range) names no release.
func kubernetesError(err error) error {
	if errors.Is(err, release.ErrNotARelease) || errors.Is(err, release.ErrRangeGoesDown) || errors.Is(err, release.ErrRangeTooWide) || errors.Is(err, release.ErrListAndRange) {
		return &OptionError{Option: "Kubernetes", Err: err}
	}
	return err
}

// releaseSource is the Source of a fetched release.
func releaseSource(version string) answer.Source {
	return answer.Source{Dir: tree.KubernetesModule + "@" + version, KubernetesVersion: version}
}

// load type-checks the packages (import paths) from source, with the
// imports also picks when the tree holds them, runs the analyzers over
// them (nil: the suite's), runs beside (when not nil) on the packages
// meanwhile, and records how in src.Load, after the problems found
// before it.
func load(ctx context.Context, t *tree.Tree, src *answer.Source, also func(string) bool, problems []string, analyzers []*analysis.Analyzer, beside func(*engine.Loaded), paths ...string) (*engine.Run, error) {
	if analyzers == nil {
		analyzers = suite.Defaults()
	}
	run, err := engine.Analyse(ctx, engine.Request{Tree: t, Paths: paths, FromSource: also, Answer: true, Reads: reads, Analyzers: analyzers, Beside: beside})
	if err != nil {
		return nil, err
	}
	// A checkout whose staging module the go command builds from a copy
	// plegvet does not read is named: the answer is not the kubelet's.
	problems = append(slices.Clip(problems), t.Redirects()...)
	src.Load = answer.Load{Mode: engine.Mode, Modelled: append([]string{}, run.Modelled...), Stubbed: len(run.Stubbed), Problems: append([]string{}, problems...), Unfollowed: []string{}, Copies: t.CopiesRead()}
	for _, p := range run.Problems {
		src.Load.Problems = append(src.Load.Problems, p.Error())
	}
	return run, nil
}

// reads picks the imports checked whole: those an analyzer reads, and
// those the report's runtimehang follows calls through (only read from
// source when also picks them, as Inspect's does).
func reads(importPath string) bool { return suite.Reads(importPath) || runtimehang.Reads(importPath) }

// analysed is one load of a tree and one run of the analyzers over it,
// from which every answer is read.
type analysed struct {
	tree *tree.Tree
	src  answer.Source
	res  *engine.Run
}

// analyse loads the packages (relative to the tree's module) and runs
// the suite's analyzers, as configured by default, over them, and beside
// (when not nil) on the packages meanwhile.
func analyse(ctx context.Context, t *tree.Tree, src answer.Source, also func(string) bool, beside func(*engine.Loaded), rel ...string) (*analysed, error) {
	paths := make([]string, len(rel))
	for i, r := range rel {
		paths[i] = t.Module + "/" + r
	}
	run, err := load(ctx, t, &src, also, nil, nil, beside, paths...)
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

// unfollowedChecks are the checks whose findings say that part of the tree
// was not followed, rather than that the tree breaks a rule.
var unfollowedChecks = map[string]bool{
	string(pleg.GateTestUnresolved):    true,
	string(pleg.FallbackUnfollowed):    true,
	string(pleg.GateWriteUnfollowed):   true,
	string(pleg.HealthUnknown):         true,
	string(featuregate.GateUnreadable): true,
}

// noteUnfollowed records the diagnostics that say part of the tree was not
// followed in Load.Unfollowed.
func noteUnfollowed(s *answer.Source, ds []answer.Diagnostic) {
	s.Load.Unfollowed = []string{}
	for _, d := range ds {
		if unfollowedChecks[d.Category] {
			s.Load.Unfollowed = append(s.Load.Unfollowed, fmt.Sprintf("%s:%d:%d: %s", d.Pos.File, d.Pos.Line, d.Pos.Column, d.Message))
		}
	}
}

// files are named relative to the tree (srcload.Imports.TreeRelativeNames).
func diagnostics(fset *token.FileSet, ds []analysis.Diagnostic) []answer.Diagnostic {
	return finding.FromAnalysis(fset, func(name string) string { return name }, ds)
}

// cached answers a question about a fetched release from opts.CacheDir,
// or computes the answer and keeps it there (answercache.Answer); a
// checkout's answer, or one read from a proto the caller names, is
// computed and not kept.
func cached[T any](opts Options, t *tree.Tree, question []string, compute func() (*T, error)) (*T, error) {
	dir := opts.CacheDir
	if opts.Kubernetes == "" || opts.Proto != "" {
		dir = ""
	}
	// The files read depend on the platform: another one's answer is
	// another answer (the default's key stays as it was).
	if p := buildenv.Platform(buildenv.Context(nil)); p != buildenv.DefaultPlatform {
		question = append(slices.Clip(question), "platform "+p)
	}
	return answercache.Answer(dir, t, question, compute)
}

// Options say which tree to read: the library's Options, with the
// fetcher they describe and plegvet's index of node sources.
type Options struct {
	Dir, Kubernetes, Proto, CacheDir string
	Fetch                            release.Fetcher
	SkipIndex                        bool
	// Index is plegvet's index of node-source answers, read once.
	Index func() (map[string]nodeindex.Entry, error)
	// Scrape is how Prometheus scrapes the kubelets, for Alerts; zero
	// means answer.DefaultScrapeLayout().
	Scrape answer.ScrapeLayout
}

// openWithStaging is open for Gates: a release comes with its staging
// modules, and those the proxy did not serve are returned as problems.
func openWithStaging(ctx context.Context, opts Options) (*tree.Tree, answer.Source, []string, error) {
	if opts.Kubernetes == "" {
		t, src, err := open(ctx, opts, false)
		return t, src, nil, err
	}
	t, missing, err := opts.Fetch.FetchWithStaging(ctx, opts.Kubernetes)
	if err != nil {
		return nil, answer.Source{}, nil, kubernetesError(err)
	}
	var problems []string
	for _, m := range missing {
		mod, _, _ := strings.Cut(m.Module, "@")
		problems = append(problems, fmt.Sprintf("staging/src/%s: staging module %s not fetched, its feature gates are not read: %s", mod, m.Module, m.Why))
	}
	return t, releaseSource(t.Version), problems, nil
}

// index is the Index, an empty one when there is none.
func (o Options) index() (map[string]nodeindex.Entry, error) {
	if o.Index == nil {
		return nil, nil
	}
	return o.Index()
}
