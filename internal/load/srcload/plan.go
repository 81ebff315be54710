package srcload

import (
	"context"
	"errors"
	"go/ast"
	"go/types"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/tools/go/packages"
)

// A load without a cache type-checks its packages on every CPU: those that
// import none of each other's (the CRI client and the stats providers
// beside the pleg package, say) at once. First plan walks the imports as
// go/types would ask for them one package at a time (check's order), and
// takes each import there, cuts each declarations-only package and
// answers each model and stub in that same order; so what the load
// records in order (its problems, the models' positions) is what a load
// one package at a time records. Then checkPlanned checks each package
// once the packages it imports are checked. A load with a cache (a
// language server's) checks one package at a time: its checks are
// reused, which check decides as it goes.

// Tests' hooks: checkOneAtATime turns plan off; onPlanned is told the
// plan.
var (
	checkOneAtATime bool
	onPlanned       func(order []string, planned map[string]*plannedPkg)
)

// plannedPkg is a package as plan found it: the files to check (a cut
// package's, those left) and the packages from source they import.
type plannedPkg struct {
	files []*ast.File
	deps  []string
}

// errUnplanned stops a plan that check, one package at a time, must
// finish: it names what is wrong (an import cycle) as a plan does not.
var errUnplanned = errors.New("not planned")

// plan walks, from a requested package, what check would: it returns the
// packages to check, each after the ones it imports. It fails with
// errUnplanned where check would fail, and with ctx's error.
func (l *loader) plan(ctx context.Context, importPath string, stack []string, order []string) ([]string, error) {
	if _, ok := l.checked[importPath]; ok {
		return order, nil
	}
	if _, ok := l.planned[importPath]; ok {
		return order, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if slices.Contains(stack, importPath) {
		return nil, errUnplanned
	}
	stack = append(stack, importPath)
	pp := l.parsed[importPath]
	files := pp.files
	if l.ignoreBodies(importPath) && l.cutting {
		var err error
		if files, err = l.cut(ctx, importPath, pp); err != nil {
			return nil, err
		}
	}
	pl := &plannedPkg{files: files}
	asked := map[string]bool{}
	for _, f := range files {
		for _, spec := range f.Imports {
			p, ok := askedImport(spec)
			if !ok || asked[p] {
				continue
			}
			asked[p] = true
			if err := l.takeImport(ctx, p); err != nil {
				return nil, err
			}
			if !l.want[p] {
				l.importOther(p)
				continue
			}
			var err error
			if order, err = l.plan(ctx, p, stack, order); err != nil {
				return nil, err
			}
			pl.deps = append(pl.deps, p)
		}
	}
	l.planned[importPath] = pl
	return append(order, importPath), nil
}

// askedImport is the path go/types asks its importer for, for an import
// spec: none when the path is not valid ("C", as FakeImportC is set, and
// go/types' own errors), and each path once per package.
func askedImport(spec *ast.ImportSpec) (string, bool) {
	if spec.Path == nil || spec.Path.Value == "" {
		return "", false
	}
	p, err := strconv.Unquote(spec.Path.Value)
	if err != nil || p == "" || p == "C" {
		return "", false
	}
	const illegal = "!\"#$%&'()*,:;<=>?[\\]^{|}`\uFFFD"
	for _, r := range p {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || strings.ContainsRune(illegal, r) {
			return "", false
		}
	}
	return p, true
}

// checkPlanned type-checks the planned packages, each once those it
// imports are checked, as many at once as there are CPUs. Its importer
// answers from what is checked, the models and the stubs, which plan has
// all made. The first error stops it.
func (l *loader) checkPlanned(ctx context.Context, order []string) error {
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		cpus     = make(chan struct{}, runtime.GOMAXPROCS(0))
		done     = map[string]chan struct{}{}
	)
	for _, p := range order {
		done[p] = make(chan struct{})
	}
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return firstErr != nil
	}
	for _, p := range order {
		pl := l.planned[p]
		pp := l.parsed[p]
		ignore := l.ignoreBodies(p)
		wg.Go(func() {
			defer close(done[p])
			for _, d := range pl.deps {
				<-done[d]
			}
			if failed() {
				return
			}
			if err := ctx.Err(); err != nil {
				mu.Lock()
				firstErr = firstOf(firstErr, err)
				mu.Unlock()
				return
			}
			cpus <- struct{}{}
			pkg, _, err := l.typeCheck(p, pp, pl.files, ignore, func(q string, pkg *packages.Package) (*types.Package, error) {
				mu.Lock()
				defer mu.Unlock()
				if !l.want[q] {
					return l.importOther(q), nil
				}
				dep, ok := l.checked[q]
				if !ok {
					return nil, errUnplanned // plan makes every import's check come first
				}
				pkg.Imports[q] = dep
				return dep.Types, nil
			})
			<-cpus
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				firstErr = firstOf(firstErr, err)
				return
			}
			l.checked[p] = pkg
		})
	}
	wg.Wait()
	return firstErr
}

// firstOf keeps the first error.
func firstOf(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// ignoreBodies says whether a package is checked for its declarations
// only: an import DeclarationsOnly picks.
func (l *loader) ignoreBodies(importPath string) bool {
	return !l.requested[importPath] && l.DeclarationsOnly != nil && l.DeclarationsOnly(importPath)
}
