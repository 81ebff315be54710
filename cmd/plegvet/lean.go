package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/analysisrun"
	"github.com/plegvet/plegvet/internal/srcload"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
)

// loadLean is the driver's loading for every mode: it asks the go command
// which packages match (and, for the order of the output, what they
// import: names only, nothing parsed), keeps those that can matter
// (suite.Matters: they are, or directly import, the feature-gate API, a
// features package or the pleg package), and
// type-checks only those from source, with the imports the suite picks
// (suite.FromSource) loaded from the tree so that facts flow, the others
// stubbed. Of the rest of the import graph it keeps only what the go
// command lists (names, files, imports): nothing else is parsed.
//
// run is nil, with why, when the lean loading cannot answer as the full
// driver would; nothing has been printed then. code is >= 0 when the run
// ended here (an error was printed, or nothing matched).
func loadLean(o *driverOptions, stderr io.Writer) (run *loaded, why string, code int) {
	meta, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule}, o.patterns...)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return nil, "", exitFailure
	}
	if len(meta) == 0 {
		fmt.Fprintf(stderr, "plegvet: %s matched no packages\n", errorLine(strings.Join(o.patterns, " ")))
		return nil, "", exitFailure
	}
	var roots []*packages.Package
	for _, p := range meta {
		if suite.Matters(p.PkgPath, maps.Keys(p.Imports)) {
			roots = append(roots, p)
		}
	}
	if len(roots) == 0 {
		// Nothing here can declare or use what plegvet reads: no
		// analyzer reports anything, nothing needs parsing; every mode
		// still says so in its form ("{}", an empty SARIF log).
		failed := printErrors(stderr, meta) > 0
		graph, err := analysisrun.Analyze(o.analyzers, nil, nil)
		if err != nil {
			fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
			return nil, "", exitFailure
		}
		return &loaded{graph: graph, failed: failed, driver: "lean"}, "", -1
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, "the working directory: " + err.Error(), -1
	}
	t, err := tree.OpenModule(wd)
	if err != nil {
		return nil, err.Error(), -1
	}
	// The go command and the tree must agree on where each package is,
	// or the positions (and the files -fix writes) would differ.
	dirOf := func(p *packages.Package) string {
		if len(p.GoFiles) == 0 {
			return ""
		}
		return filepath.Dir(p.GoFiles[0])
	}
	var paths []string
	for _, r := range roots {
		dir := t.PackageDir(r.PkgPath)
		if dir == "" || r.ID != r.PkgPath {
			return nil, r.ID + " is not in the module at " + t.Dir, -1
		}
		if want := dirOf(r); want != "" && !sameDir(dir, want) {
			return nil, fmt.Sprintf("%s: the go command reads %s, the tree holds %s", r.PkgPath, want, dir), -1
		}
		paths = append(paths, r.PkgPath)
	}
	res, err := srcload.LoadWith(context.Background(), t, suite.FromSource, paths...)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return nil, "", exitFailure
	}
	// An import whose facts or constants the analysis reads must come
	// from the same files as for the go command.
	byImport := map[string]*packages.Package{}
	packages.Visit(meta, nil, func(p *packages.Package) {
		for path, dep := range p.Imports {
			byImport[path] = dep
		}
	})
	for _, s := range res.Stubbed {
		if suite.FromSource(s) && byImport[s] != nil {
			return nil, s + " is needed from source and the tree does not hold it", -1
		}
	}
	var check func(p *packages.Package) string
	seen := map[*packages.Package]bool{}
	check = func(p *packages.Package) string {
		if seen[p] {
			return ""
		}
		seen[p] = true
		for path, dep := range p.Imports {
			m := byImport[path]
			if m == nil || len(dep.GoFiles) == 0 || !sameDir(filepath.Dir(dep.GoFiles[0]), dirOf(m)) {
				return path + ": the go command and the tree disagree on its directory"
			}
			if why := check(dep); why != "" {
				return why
			}
		}
		return ""
	}
	for _, p := range res.Packages {
		if why := check(p); why != "" {
			return nil, why, -1
		}
	}

	// From here on the lean loading answers.
	failed := printErrors(stderr, meta) > 0
	for _, p := range res.Problems {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(p.Error()))
		failed = true
	}
	graph, err := analysisrun.Analyze(o.analyzers, res.Packages, checkerOptions(o, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return nil, "", exitFailure
	}
	return &loaded{
		graph:  graph,
		roots:  fullDriverOrder(o.analyzers, meta, graph),
		failed: failed,
		driver: "lean",
	}, "", -1
}

// sameDir is true when the go command and the tree name a directory
// alike: the same path, so that positions print the same (a directory
// reached through a symbolic link is another name for it, and the full
// driver answers then).
func sameDir(a, b string) bool { return a != "" && filepath.Clean(a) == filepath.Clean(b) }

// fullDriverOrder orders the lean graph's root actions as the full
// driver's depth-first walk (checker.Graph.All) first reaches them: its
// graph has an action per analyzer and package of the whole import graph,
// each depending on its analyzer's requirements on the same package, then,
// for an analyzer with facts, on the same analyzer on each import in path
// order; a root is printed when first reached. The go command's import
// graph (meta, the initial packages in its order) stands in for it.
func fullDriverOrder(analyzers []*analysis.Analyzer, meta []*packages.Package, graph *checker.Graph) []*checker.Action {
	type node struct {
		a *analysis.Analyzer
		p *packages.Package
	}
	lean := map[node]*checker.Action{}
	byPath := map[string]*packages.Package{}
	for _, p := range meta {
		byPath[p.PkgPath] = p
	}
	for _, act := range graph.Roots {
		if p := byPath[act.Package.PkgPath]; p != nil {
			lean[node{act.Analyzer, p}] = act
		}
	}
	var out []*checker.Action
	seen := map[node]bool{}
	var visit func(n node)
	visit = func(n node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, req := range n.a.Requires {
			visit(node{req, n.p})
		}
		if len(n.a.FactTypes) > 0 {
			for _, path := range slices.Sorted(maps.Keys(n.p.Imports)) {
				visit(node{n.a, n.p.Imports[path]})
			}
		}
		if act := lean[n]; act != nil {
			out = append(out, act)
		}
	}
	for _, a := range analyzers {
		for _, p := range meta {
			visit(node{a, p})
		}
	}
	if len(out) < len(graph.Roots) { // not reached: every root is an initial package
		in := map[*checker.Action]bool{}
		for _, act := range out {
			in[act] = true
		}
		for _, act := range graph.Roots {
			if !in[act] {
				out = append(out, act)
			}
		}
	}
	return out
}
