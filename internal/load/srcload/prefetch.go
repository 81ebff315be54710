package srcload

import (
	"context"
	"go/parser"
	"go/token"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// prefetch reads and parses, before anything is type-checked, the
// requested packages and every package the load will take from source:
// the imports FromSource picks that the tree holds, of these,
// transitively (as parseAhead finds them; go/types asks its importer for
// every import of a file). A load is mostly small packages, and parsed
// one at a time as go/types asks for them, their few files kept one CPU
// busy while type-checking waited: here directories are read on every
// CPU as their importers are found (the CRI API's bodies are blanked
// meanwhile), and then all their files are parsed at once (parseAll).
// The packages join the file set in a fixed order, the requested in
// order and then the others by import path, so positions are the same
// from run to run.
//
// It returns the requested packages; the others are left parsed ahead
// (l.ahead) for importFor to take, with their problems, as it would
// have parsed them. A package prefetched that no checked file imports
// (its importer was cut) costs its parse and nothing else.
func (l *loader) prefetch(ctx context.Context, requested []string) map[string]*aheadPkg {
	type found struct {
		rp  *readPkg
		err error
	}
	var (
		mu    sync.Mutex
		seen  = map[string]bool{}
		reads = map[string]found{}
		wg    sync.WaitGroup
		cpus  = make(chan struct{}, runtime.GOMAXPROCS(0))
	)
	var visit func(p, dir string)
	visit = func(p, dir string) {
		wg.Go(func() {
			cpus <- struct{}{}
			rp, err := l.read(ctx, p, dir)
			var imports []string
			if err == nil {
				imports = importsOf(rp.sources)
			}
			<-cpus
			mu.Lock()
			reads[p] = found{rp, err}
			var next [][2]string
			for _, q := range imports {
				if seen[q] || l.want[q] || l.FromSource == nil || isStd(q) || !l.FromSource(q) {
					continue
				}
				seen[q] = true
				if d := l.tree.PackageDir(q); d != "" {
					next = append(next, [2]string{q, d})
				}
			}
			mu.Unlock()
			for _, n := range next {
				visit(n[0], n[1])
			}
		})
	}
	var dirs [][2]string
	for _, p := range requested {
		seen[p] = true
		if dir := l.tree.PackageDir(p); dir != "" {
			dirs = append(dirs, [2]string{p, dir})
		}
	}
	for _, d := range dirs {
		visit(d[0], d[1])
	}
	wg.Wait()

	order := slices.DeleteFunc(slices.Clone(requested), func(p string) bool { _, ok := reads[p]; return !ok })
	n := len(order)
	for _, p := range slices.Sorted(maps.Keys(reads)) {
		if !slices.Contains(order[:n], p) {
			order = append(order, p)
		}
	}
	var all []source
	for _, p := range order {
		if f := reads[p]; f.err == nil {
			all = append(all, f.rp.sources...)
		}
	}
	parsed := l.parseCached(all)
	out := map[string]*aheadPkg{}
	for _, p := range order {
		f := reads[p]
		a := &aheadPkg{err: f.err}
		if f.err == nil {
			k := len(f.rp.sources)
			a.pp, parsed = l.take(f.rp, parsed[:k]), parsed[k:]
		}
		if l.requested[p] {
			out[p] = a
		} else {
			l.ahead[p] = a
		}
	}
	return out
}

// importsOf are the import paths of files, from their import clauses
// alone, as found: a file that does not parse gives those that did.
func importsOf(sources []source) []string {
	var paths []string
	fset := token.NewFileSet()
	for _, s := range sources {
		f, _ := parser.ParseFile(fset, s.name, s.src, parser.ImportsOnly|parser.SkipObjectResolution)
		if f == nil {
			continue
		}
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil {
				paths = append(paths, p)
			}
		}
	}
	return paths
}
