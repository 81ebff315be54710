// Package srcload type-checks the few packages of a Kubernetes tree that
// plegvet needs straight from their source, without compiling anything
// and without running the go command: the APIs the answer is made of
// (package time, the feature-gate API) come from small built-in models,
// and every other import, the rest of the standard library included, is
// stubbed as an empty package. The result is partially typed: the
// tree's own declarations are fully typed, expressions that reach into a
// stubbed package are not, and the result says which imports were stubbed.
//
// A load finds and parses its packages first, all at once (prefetch.go),
// and without a cache type-checks on every CPU the packages that import
// none of each other's (plan.go); what it records, positions and problems
// included, is what checking one package at a time records, in the same
// order, run after run.
package srcload

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Mode names how packages were loaded, for the result's "load" field.
const Mode = "source"

// Problem is a file that could not be read or parsed in full. The rest of
// its package is still analysed.
type Problem struct {
	Pos token.Position
	Msg string
}

// Error is the problem on one line: the file name is quoted when it holds
// control characters, and so are those of the message.
func (p Problem) Error() string {
	name, msg := inputfile.QuoteName(p.Pos.Filename), inputfile.OneLine(p.Msg)
	if p.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", name, p.Pos.Line, p.Pos.Column, msg)
	}
	return fmt.Sprintf("%s: %s", name, msg)
}

// Result is what Load produced.
type Result struct {
	Fset *token.FileSet
	// Packages are the requested packages, in the order requested, each
	// with syntax and (partial) type information, ready for
	// golang.org/x/tools/go/analysis/checker. Imports between requested
	// packages are linked, so facts flow from one to the next.
	Packages []*packages.Package
	Modelled []string // imports answered by built-in models of their API
	Stubbed  []string // imports answered by empty packages
	// Problems are the files of the loaded packages that were not read in
	// full: unreadable, not Go source, syntax errors, another package
	// clause. Nothing is left out without one.
	Problems []Problem
	// LeftOut say why requested packages were left out of Packages
	// (Imports.LeaveOut): the tree does not hold them, or none of their
	// files could be loaded (their Problems say why).
	LeftOut []error
}

type loader struct {
	cutting     bool                                     // declarations-only imports are cut to what is reached
	cutNames    map[string]map[string]bool               // per cut package, the names cut
	cutMethods  map[string]map[string]bool               // per cut package, the methods of kept types cut
	sels        map[*ast.File]map[string]map[string]bool // selectedFrom's walks, once a file
	walked      map[*ast.File]fileSelections             // files walked as they were parsed, for sels
	methodNames map[string]bool                          // the names selected and interface methods of the files walked (methodsUsed)
	ahead       map[string]*aheadPkg                     // packages parsed ahead of their import, for a cut
	planned     map[string]*plannedPkg                   // packages planned to be checked at once (plan.go)
	Imports
	requested map[string]bool
	tree      *tree.Tree
	fset      *token.FileSet
	want      map[string]bool
	parsed    map[string]*parsedPkg
	checked   map[string]*packages.Package
	pkgs      map[string]*types.Package // every import answered so far
	modelled  map[string]bool
	stubbed   map[string]bool
	tried     map[string]bool // imports parsed for also, usable or not
	problems  []Problem
}

type parsedPkg struct {
	dir      string
	name     string // the package name its files agree on
	files    []*ast.File
	names    []string
	problems []Problem // of this directory's files
}

// Load parses and type-checks the packages with the given import paths
// from the tree's source. A package the tree does not hold, or none of
// whose files can be loaded, is an error naming it; files with syntax
// errors are kept as far as they parsed, and they and every file left out
// are reported in Result.Problems. A cancelled ctx stops the load between
// files and between packages.
func Load(ctx context.Context, t *tree.Tree, importPaths ...string) (*Result, error) {
	return LoadWith(ctx, t, nil, importPaths...)
}

// LoadWith is Load, and also type-checks from source every import for
// which also returns true and that the tree holds (in staging/ or
// vendor/), instead of stubbing it, so that its constants resolve and its
// facts reach the requested packages.
func LoadWith(ctx context.Context, t *tree.Tree, also func(importPath string) bool, importPaths ...string) (*Result, error) {
	return LoadImports(ctx, t, Imports{FromSource: also}, importPaths...)
}

// Imports say how LoadImports answers the imports of the packages it
// loads.
type Imports struct {
	// FromSource picks the imports type-checked from source when the
	// tree holds them, as LoadWith's also.
	FromSource func(importPath string) bool
	// DeclarationsOnly picks, among those, the ones whose function bodies
	// are not type-checked: their importers read only their declarations
	// (constants, types, signatures), and the bodies of a generated
	// package such as the CRI API's cost more than the rest of a load.
	// Requested packages are always checked whole.
	DeclarationsOnly func(importPath string) bool
	// TreeRelativeNames names the files in the result's FileSet as
	// tree.Rel does (relative to the checkout root), so the positions an
	// analyzer resolves from it are those an answer prints.
	TreeRelativeNames bool
	// Overlay holds the content of files as edited but not saved, by
	// absolute file name: read instead of the disk's (a language
	// server's open buffers). A name the directory lacks is added to it.
	Overlay map[string][]byte
	// LeaveOut leaves out a requested package that cannot be loaded (the
	// result's LeftOut says why) instead of failing the load: a language
	// server still checks the open files that load.
	LeaveOut bool
	// Cache, when set, keeps what a load parsed and type-checked for the
	// next load with the same cache: a file whose content is unchanged
	// is not parsed again, and a package whose files and imports are
	// unchanged is not checked again. Loads sharing a cache share its
	// FileSet and must not run at once.
	Cache *Cache
}

// LoadImports is LoadWith with the imports' handling spelled out.
func LoadImports(ctx context.Context, t *tree.Tree, imports Imports, importPaths ...string) (*Result, error) {
	// Cutting depends on what the importers select, which a cached
	// importer does not say again: with a cache, nothing is cut.
	res, cutTooMuch, err := loadImports(ctx, t, imports, imports.Cache == nil, importPaths)
	if err == nil && cutTooMuch {
		res, _, err = loadImports(ctx, t, imports, false, importPaths)
	}
	return res, err
}

func loadImports(ctx context.Context, t *tree.Tree, imports Imports, cut bool, importPaths []string) (*Result, bool, error) {
	l := &loader{
		cutting:    cut,
		cutNames:   map[string]map[string]bool{},
		cutMethods: map[string]map[string]bool{},
		sels:       map[*ast.File]map[string]map[string]bool{},
		walked:     map[*ast.File]fileSelections{},
		ahead:      map[string]*aheadPkg{},
		planned:    map[string]*plannedPkg{},
		Imports:    imports,
		requested:  map[string]bool{},
		tree:       t,
		fset:       token.NewFileSet(),
		want:       map[string]bool{},
		parsed:     map[string]*parsedPkg{},
		checked:    map[string]*packages.Package{},
		pkgs:       map[string]*types.Package{},
		modelled:   map[string]bool{},
		stubbed:    map[string]bool{},
		tried:      map[string]bool{},
	}
	if l.Cache != nil {
		l.fset, l.pkgs, l.Cache.used = l.Cache.fset, l.Cache.pkgs, map[fileKey]bool{}
	}
	for _, p := range importPaths {
		l.want[p] = true
		l.requested[p] = true
	}
	res := &Result{Fset: l.fset}
	var loadable []string
	pre := l.prefetch(ctx, importPaths)
	for _, p := range importPaths {
		err := l.parseRequested(ctx, p, pre[p])
		if err != nil && imports.LeaveOut && ctx.Err() == nil {
			res.LeftOut = append(res.LeftOut, err)
			delete(l.want, p)
			continue
		}
		if err != nil {
			return nil, false, err
		}
		loadable = append(loadable, p)
	}
	if l.Cache == nil && !checkOneAtATime {
		// On every CPU (plan.go). Whatever stops it (an import cycle, a
		// cancelled ctx), check finishes the load one package at a time
		// and says so as it always has.
		_ = l.planAndCheck(ctx, loadable)
	}
	for _, p := range loadable {
		pkg, err := l.check(ctx, p, nil)
		if err != nil {
			return nil, false, err
		}
		res.Packages = append(res.Packages, pkg)
	}
	if l.Cache != nil {
		l.Cache.end(l.checked)
	}
	res.Modelled = sortedKeys(l.modelled)
	res.Stubbed = sortedKeys(l.stubbed)
	res.Problems = l.problems
	return res, l.cutTooMuch(), nil
}

// parseRequested takes a requested package, parsed by prefetch (pre) or
// else here: an error when the tree does not hold it or none of its files
// can be loaded.
func (l *loader) parseRequested(ctx context.Context, p string, pre *aheadPkg) error {
	t := l.tree
	dir := t.PackageDir(p)
	if dir == "" {
		return fmt.Errorf("%s: the tree has no package %s (looked for %s)", inputfile.QuoteName(t.Dir), inputfile.QuoteName(p), inputfile.QuoteName(t.Rel(filepath.Join(t.Dir, strings.TrimPrefix(p, t.Module+"/")))))
	}
	var pp *parsedPkg
	var err error
	if pre != nil {
		pp, err = pre.pp, pre.err
	} else {
		pp, err = l.parse(ctx, p, dir)
	}
	if err != nil {
		return err
	}
	l.problems = append(l.problems, pp.problems...)
	if err := l.usable(pp); err != nil {
		return err
	}
	l.parsed[p] = pp
	return nil
}

func sortedKeys(m map[string]bool) []string {
	keys := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m)) // [], not null, in JSON
	slices.Sort(keys)
	return keys
}
