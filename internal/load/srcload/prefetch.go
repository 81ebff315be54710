package srcload

import (
	"context"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"sync"
)

// prefetch reads and parses, before anything is type-checked, the
// requested packages and every package the load will take from source:
// the imports FromSource picks that the tree holds, of these,
// transitively (as parseAhead finds them; go/types asks its importer for
// every import of a file). A load is mostly small packages, and parsed
// one at a time as go/types asked for them, their few files kept one CPU
// busy while type-checking waited: here directories are read on every
// CPU as their importers are found (the CRI API's bodies are blanked
// meanwhile), and their files parsed on every CPU too (parses): the
// requested packages' as soon as they and those requested before them
// are read, the others' once all are found. The packages join the file
// set in that fixed order, the requested in order and then the others by
// import path, so positions are the same from run to run.
//
// It returns the requested packages; the others are left parsed ahead
// (l.ahead) for importFor to take, with their problems, as it would
// have parsed them. A package prefetched that no checked file imports
// (its importer was cut) costs its parse and nothing else.
func (l *loader) prefetch(ctx context.Context, requested []string) map[string]*aheadPkg {
	type found struct {
		rp    *readPkg
		err   error
		batch *parseBatch
	}
	var (
		mu    sync.Mutex
		seen  = map[string]bool{}
		reads = map[string]*found{}
		wg    sync.WaitGroup
		cpus  = newCPUSlots()
		ps    = l.newParses(cpus)
		dirs  [][2]string
		ready int // the requested packages (dirs) whose parse has started
	)
	// startReady starts parsing the requested packages read, in order, up
	// to the first one not read yet.
	startReady := func() {
		for ; ready < len(dirs); ready++ {
			f := reads[dirs[ready][0]]
			if f == nil {
				return
			}
			if f.err == nil {
				f.batch = ps.add(f.rp.sources)
			}
		}
	}
	var visit func(p, dir string)
	visit = func(p, dir string) {
		cpus.expect()
		wg.Go(func() {
			cpus.take(true)
			rp, err := l.read(ctx, p, dir)
			var imports []string
			if err == nil {
				imports = importsOf(rp.sources)
			}
			cpus.give()
			mu.Lock()
			reads[p] = &found{rp: rp, err: err}
			if l.requested[p] {
				startReady()
			}
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
	for _, p := range requested {
		seen[p] = true
		if dir := l.tree.PackageDir(p); dir != "" && !slices.ContainsFunc(dirs, func(d [2]string) bool { return d[0] == p }) {
			dirs = append(dirs, [2]string{p, dir})
		}
	}
	for _, d := range dirs {
		visit(d[0], d[1])
	}
	wg.Wait()
	var others []string
	for _, p := range slices.Sorted(maps.Keys(reads)) {
		if f := reads[p]; !l.requested[p] {
			others = append(others, p)
			if f.err == nil {
				f.batch = ps.add(f.rp.sources)
			}
		}
	}
	ps.wait()
	out := map[string]*aheadPkg{}
	for _, p := range append(slices.Clone(requested), others...) {
		f := reads[p]
		if _, done := out[p]; done || f == nil {
			continue // requested twice; or not in the tree: parseRequested says so
		}
		a := &aheadPkg{err: f.err}
		if f.err == nil {
			a.pp = l.take(f.rp, f.batch.out)
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
