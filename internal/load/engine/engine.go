// Package engine is the one place that loads a tree's packages and runs
// plegvet's analyzers over them: the library, the standalone driver and
// the language server all go through it, so that each loads the same way
// (internal/load/srcload: the needed packages type-checked from source, the
// rest stubbed; or go/packages, for the driver's fallback) and runs x/tools'
// checker behind the same guard.
package engine

import (
	"context"
	"fmt"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/srcload"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Mode names how Load loads packages, for an answer's "load" field.
const Mode = srcload.Mode

// The loader's and the checker's types, named here so that their users
// need not import either.
type (
	// Loaded is what Load produced: the packages, their FileSet, the
	// imports modelled and stubbed, the files not read in full.
	Loaded = srcload.Result
	// Cache keeps what one Load parsed and type-checked for the next.
	Cache = srcload.Cache
	// Graph is the checker's actions, with its printers.
	Graph = checker.Graph
	// Action is one analyzer on one package: its result, diagnostics and
	// error.
	Action = checker.Action
	// Options are the checker's debugging options.
	Options = checker.Options
)

// NewCache is an empty Cache, for a run of loads of one tree (a language
// server's, at each edit).
func NewCache() *Cache { return srcload.NewCache() }

// Modelled reports whether Load answers an import with a built-in model
// of its API.
func Modelled(importPath string) bool { return srcload.Modelled(importPath) }

// Request says which packages of a tree to load, how, and which analyzers
// to run over them.
type Request struct {
	Tree  *tree.Tree
	Paths []string // import paths of the packages analysed
	// FromSource picks the imports type-checked from source when the tree
	// holds them, so that their constants resolve and their facts flow;
	// the others are stubbed.
	FromSource func(importPath string) bool
	// Answer loads for one of the library's answers: an import whose
	// function bodies no analyzer reads (Reads false) is checked for its
	// declarations only, and files are named relative to the tree, as an
	// answer prints them.
	Answer bool
	// Reads picks the packages whose function bodies an analyzer reads
	// (suite.Reads): the caller's, so that the engine needs no list of
	// analyzers (the suite's checks import the answer, which imports
	// extractors that load through the engine).
	Reads func(importPath string) bool
	// Overlay, Cache and LeaveOut are the editor's: open buffers by
	// absolute file name, read instead of the disk; what the last load
	// parsed and checked; and a package that cannot be loaded left out
	// (Loaded.LeftOut says why) instead of failing the load.
	Overlay  map[string][]byte
	Cache    *Cache
	LeaveOut bool
	// Analyzers are those Analyse runs.
	Analyzers []*analysis.Analyzer
	// Beside, when set, is work Analyse runs on what Load loaded while
	// the analyzers run (an answer's own extraction from the packages,
	// which needs no analyzer): it must only read the packages. Analyse
	// returns once it is done.
	Beside func(*Loaded)
}

// Load loads the requested packages from the tree's source. A cancelled
// ctx stops it between files and between packages.
func Load(ctx context.Context, r Request) (*Loaded, error) {
	imports := srcload.Imports{FromSource: r.FromSource, Overlay: r.Overlay, Cache: r.Cache, LeaveOut: r.LeaveOut}
	if r.Answer {
		imports.DeclarationsOnly = func(p string) bool { return r.Reads == nil || !r.Reads(p) }
		imports.TreeRelativeNames = true
	}
	return srcload.LoadImports(ctx, r.Tree, imports, r.Paths...)
}

// Analyze runs the analyzers over packages Load loaded (whose Imports
// link them, so facts flow from one to the next), opts may be nil, after
// refusing, with its name, a package without types: the checker would
// panic on it in a goroutine no caller can recover.
func Analyze(analyzers []*analysis.Analyzer, pkgs []*packages.Package, opts *Options) (*Graph, error) {
	var untyped error
	packages.Visit(pkgs, func(p *packages.Package) bool {
		if untyped == nil && (p.Name == "" || p.PkgPath == "" || p.Types == nil || p.TypesInfo == nil || p.Fset == nil || p.TypesSizes == nil) {
			untyped = fmt.Errorf("%s: the package could not be type-checked (no usable package clause?)", p.PkgPath)
		}
		return untyped == nil
	}, nil)
	if untyped != nil {
		return nil, untyped
	}
	graph, err := AnalyzePackages(analyzers, pkgs, opts)
	if err != nil {
		return nil, fmt.Errorf("running analyzers: %w", err)
	}
	return graph, nil
}

// Run is one load of a tree and one run of the analyzers over it: the
// packages and what each analyzer did on each.
type Run struct {
	*Loaded
	roots map[*analysis.Analyzer]map[string]*Outcome
}

// Outcome is what one analyzer did on one package: its root action's
// fields, without the action, whose dependencies (the results of the
// analyzers it requires) an answer need not keep alive.
type Outcome struct {
	Package     *packages.Package
	Result      any
	Diagnostics []analysis.Diagnostic
	Err         error
}

// Analyse loads the requested packages and runs the analyzers over them.
func Analyse(ctx context.Context, r Request) (*Run, error) {
	res, err := Load(ctx, r)
	if err != nil {
		return nil, err
	}
	// A panic in Beside is raised again here, on the caller's goroutine,
	// as if Beside had run there (the language server recovers its own).
	beside := make(chan any, 1)
	if r.Beside != nil {
		go func() {
			defer func() { beside <- recover() }()
			r.Beside(res)
		}()
	} else {
		beside <- nil
	}
	graph, err := Analyze(r.Analyzers, res.Packages, nil)
	if p := <-beside; p != nil {
		panic(p)
	}
	if err != nil {
		return nil, err
	}
	run := &Run{Loaded: res, roots: map[*analysis.Analyzer]map[string]*Outcome{}}
	for _, act := range graph.Roots {
		m := run.roots[act.Analyzer]
		if m == nil {
			m = map[string]*Outcome{}
			run.roots[act.Analyzer] = m
		}
		m[act.Package.PkgPath] = &Outcome{Package: act.Package, Result: act.Result, Diagnostics: act.Diagnostics, Err: act.Err}
	}
	return run, nil
}

// Root is what an analyzer did on a requested package (import path); nil
// when it did not run on it.
func (r *Run) Root(a *analysis.Analyzer, importPath string) *Outcome {
	return r.roots[a][importPath]
}
