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
// one package at a time records. Then a checkRun checks each package
// once the packages it imports are checked. A load with a cache (a
// language server's) checks one package at a time: its checks are
// reused, which check decides as it goes. Plan walks on one CPU while the
// others check the packages it has planned (planAndCheck).

// Tests' hooks: checkOneAtATime turns plan off; onPlanned is told the
// plan, onAdded each package as plan adds it, and onCheck each package
// as its check starts.
var (
	checkOneAtATime bool
	onPlanned       func(order []string, planned map[string]*plannedPkg)
	onAdded         func(importPath string)
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

// plan walks, from a requested package, what check would, and adds to r
// the packages to check, each after the ones it imports. It fails with
// errUnplanned where check would fail, and with ctx's error.
//
// It shares the loader with the checks of r, which it adds each package to
// as it is planned: it holds r.mu where it reads or writes what a check
// reads or writes (the checked packages, the imports taken, the models
// and stubs). A cut reads and writes only what plan alone does.
func (l *loader) plan(ctx context.Context, r *checkRun, importPath string, stack []string) error {
	r.mu.Lock()
	_, checked := l.checked[importPath]
	_, planned := l.planned[importPath]
	pp := l.parsed[importPath]
	r.mu.Unlock()
	if checked || planned {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if slices.Contains(stack, importPath) {
		return errUnplanned
	}
	stack = append(stack, importPath)
	files := pp.files
	if l.ignoreBodies(importPath) && l.cutting {
		var err error
		if files, err = l.cut(ctx, importPath, pp); err != nil {
			return err
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
			r.mu.Lock()
			err := l.takeImport(ctx, p)
			want := err == nil && l.want[p]
			if err == nil && !want {
				l.importOther(p)
			}
			r.mu.Unlock()
			if err != nil {
				return err
			}
			if !want {
				continue
			}
			if err := l.plan(ctx, r, p, stack); err != nil {
				return err
			}
			pl.deps = append(pl.deps, p)
		}
	}
	r.add(importPath, pl)
	if onAdded != nil {
		onAdded(importPath)
	}
	return nil
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

// checkRun is the checks of one planned load: plan adds each package to
// it as it is planned, and its workers check each package once those it
// imports are checked, as many at once as there are CPUs, less the one
// plan walks on while it does. While plan walks, they take the packages
// in the order planned; then, of the packages ready, the one with the most
// source still to check after it, along its importers, goes first: the
// load ends with pkg/kubelet, which imports all the others, and whatever
// it waits for is checked first. A package's importer answers from what
// is checked, the models and the stubs, which plan has all made. The
// first error stops it.
type checkRun struct {
	l         *loader
	mu        sync.Mutex
	cond      *sync.Cond
	order     []string            // as planned
	waiting   map[string]int      // imports not checked yet
	importers map[string][]string // in plan order
	ready     []string
	rank      map[string]int // once planned: its size and the largest rank of its importers
	left      int            // planned and not checked
	checking  int            // checks under way
	planning  bool           // plan walks on a CPU of its own
	stopped   bool           // plan failed: no check is started
	firstErr  error
}

// planAndCheck plans the requested packages (loadable) and checks them,
// each on its own CPU as soon as plan has planned it and its imports are
// checked. It returns plan's error or the first check's; the packages
// checked then are kept for check, which finishes the load.
func (l *loader) planAndCheck(ctx context.Context, loadable []string) error {
	r := &checkRun{l: l, waiting: map[string]int{}, importers: map[string][]string{}, planning: true}
	r.cond = sync.NewCond(&r.mu)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() { r.work(ctx) })
	}
	var err error
	for _, p := range loadable {
		if err = l.plan(ctx, r, p, nil); err != nil {
			break
		}
	}
	if err == nil && onPlanned != nil {
		onPlanned(slices.Clone(r.order), l.planned)
	}
	r.mu.Lock()
	if err == nil {
		r.rankAll()
	} else {
		r.stopped = true
	}
	r.planning = false
	r.cond.Broadcast()
	r.mu.Unlock()
	wg.Wait()
	return firstOf(err, r.firstErr)
}

// add is plan's: the package is planned, and ready once the imports it
// checks are checked.
func (r *checkRun) add(p string, pl *plannedPkg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.l.planned[p] = pl
	r.order = append(r.order, p)
	r.left++
	for _, d := range pl.deps {
		r.importers[d] = append(r.importers[d], p)
		if _, ok := r.l.checked[d]; !ok {
			r.waiting[p]++
		}
	}
	if r.waiting[p] == 0 {
		r.ready = append(r.ready, p)
		r.cond.Broadcast()
	}
}

// rankAll ranks every package planned, once plan is done.
func (r *checkRun) rankAll() {
	r.rank = map[string]int{}
	for i := len(r.order) - 1; i >= 0; i-- {
		p := r.order[i]
		most := 0
		for _, q := range r.importers[p] {
			most = max(most, r.rank[q])
		}
		r.rank[p] = checkSize(r.l.planned[p].files, r.l.ignoreBodies(p)) + most
	}
}

// next takes a ready package: the first planned while plan walks, else
// the one of the highest rank (the first planned on a tie); "" when
// nothing is left to do.
func (r *checkRun) next() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.firstErr != nil || r.stopped || !r.planning && r.left == 0 {
			return ""
		}
		cpus := runtime.GOMAXPROCS(0)
		if r.planning {
			cpus-- // plan's
		}
		if len(r.ready) > 0 && r.checking < cpus {
			break
		}
		r.cond.Wait()
	}
	best := 0
	for i, p := range r.ready {
		if r.rank[p] > r.rank[r.ready[best]] {
			best = i
		}
	}
	p := r.ready[best]
	r.ready = slices.Delete(r.ready, best, best+1)
	r.checking++
	if onCheck != nil {
		onCheck(p)
	}
	return p
}

// work checks packages until none is left.
func (r *checkRun) work(ctx context.Context) {
	l := r.l
	for p := r.next(); p != ""; p = r.next() {
		err := ctx.Err()
		var pkg *packages.Package
		if err == nil {
			r.mu.Lock()
			pp, files := l.parsed[p], l.planned[p].files
			r.mu.Unlock()
			pkg, _, err = l.typeCheck(p, pp, files, l.ignoreBodies(p), func(q string, pkg *packages.Package) (*types.Package, error) {
				r.mu.Lock()
				defer r.mu.Unlock()
				if !l.want[q] {
					return l.answerOther(pkg.PkgPath, q)
				}
				dep, ok := l.checked[q]
				if !ok {
					return nil, errUnplanned // plan makes every import's check come first
				}
				pkg.Imports[q] = dep
				return dep.Types, nil
			})
		}
		r.mu.Lock()
		r.left--
		r.checking--
		if err != nil {
			r.firstErr = firstOf(r.firstErr, err)
		} else {
			l.checked[p] = pkg
			for _, q := range r.importers[p] {
				if r.waiting[q]--; r.waiting[q] == 0 {
					r.ready = append(r.ready, q)
				}
			}
		}
		r.cond.Broadcast()
		r.mu.Unlock()
	}
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
