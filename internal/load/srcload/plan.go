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
// plan, and onCheck each package as its check starts.
var (
	checkOneAtATime bool
	onPlanned       func(order []string, planned map[string]*plannedPkg)
	onCheck         func(importPath string)
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
// imports are checked, as many at once as there are CPUs. Of the packages
// ready, the one with the most source still to check after it, along its
// importers, goes first: the load ends with pkg/kubelet, which imports
// all the others, and whatever it waits for is checked first. Its
// importer answers from what is checked, the models and the stubs, which
// plan has all made. The first error stops it.
func (l *loader) checkPlanned(ctx context.Context, order []string) error {
	waiting := map[string]int{}        // imports not checked yet
	importers := map[string][]string{} // in plan order
	rank := map[string]int{}           // its size and the largest rank of its importers
	for _, p := range order {
		waiting[p] = len(l.planned[p].deps)
		for _, d := range l.planned[p].deps {
			importers[d] = append(importers[d], p)
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		p := order[i]
		most := 0
		for _, q := range importers[p] {
			most = max(most, rank[q])
		}
		rank[p] = checkSize(l.planned[p].files, l.ignoreBodies(p)) + most
	}
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		ready    []string
		left     = len(order)
		firstErr error
		wg       sync.WaitGroup
	)
	for _, p := range order {
		if waiting[p] == 0 {
			ready = append(ready, p)
		}
	}
	// next takes the ready package of the highest rank (the first in plan
	// order on a tie), or "" when nothing is left to do.
	next := func() string {
		mu.Lock()
		defer mu.Unlock()
		for len(ready) == 0 && left > 0 && firstErr == nil {
			cond.Wait()
		}
		if len(ready) == 0 || firstErr != nil {
			return ""
		}
		best := 0
		for i, p := range ready {
			if rank[p] > rank[ready[best]] {
				best = i
			}
		}
		p := ready[best]
		ready = slices.Delete(ready, best, best+1)
		if onCheck != nil {
			onCheck(p)
		}
		return p
	}
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Go(func() {
			for p := next(); p != ""; p = next() {
				err := ctx.Err()
				var pkg *packages.Package
				if err == nil {
					pkg, _, err = l.typeCheck(p, l.parsed[p], l.planned[p].files, l.ignoreBodies(p), func(q string, pkg *packages.Package) (*types.Package, error) {
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
				}
				mu.Lock()
				left--
				if err != nil {
					firstErr = firstOf(firstErr, err)
				} else {
					l.checked[p] = pkg
					for _, q := range importers[p] {
						if waiting[q]--; waiting[q] == 0 {
							ready = append(ready, q)
						}
					}
				}
				cond.Broadcast()
				mu.Unlock()
			}
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
