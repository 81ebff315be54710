package srcload

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"runtime"
	"slices"
	"sync"

	"github.com/plegvet/plegvet/internal/load/workcount"
)

// source is a file read and about to be parsed.
type source struct {
	filename string
	name     string // the file's name in the file set
	src      []byte
	mode     parser.Mode // with comments, or without (a declarations-only import's)
}

// parsed is a file's syntax, or as much as parsed, and its syntax error.
type parsed struct {
	file *ast.File
	err  error
}

// parseAll parses files on every CPU (parses), with the positions a
// parse in order would give.
func (l *loader) parseAll(sources []source) []parsed {
	ps := l.newParses(nil)
	b := ps.add(sources)
	ps.wait()
	return b.out
}

// parses parses files on every CPU as they are added, with the positions
// a parse in the order added would give: each file gets, in its own file
// set, the base it would get in the loader's (the bases before it plus
// their sizes), and wait then joins the files to the loader's set in
// order. Positions, and anything sorted by them, are the same from run to
// run. A batch's largest files start first, so that one large file (the
// CRI API's) does not finish alone. With a cache, a file whose content it
// has seen is answered from it, and the others are kept in it.
type parses struct {
	l       *loader
	cpus    chan struct{} // shared with whoever else works on every CPU
	base    int           // the next fresh file's
	walk    bool          // files are walked for their selections (prune.go) as parsed
	wg      sync.WaitGroup
	batches []*parseBatch
}

// parseBatch is one add's files: out is theirs once wait returned.
type parseBatch struct {
	sources []source
	out     []parsed
	fresh   []bool // parsed here, not answered from the cache
	bases   []int
	sets    []*token.FileSet
	walked  []fileSelections
}

// newParses starts parsing at the loader's file set's next base; cpus
// (nil: a new one) bounds the files parsed at once.
func (l *loader) newParses(cpus chan struct{}) *parses {
	if cpus == nil {
		cpus = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	// A load that cuts walks every file for its selections: on the CPU
	// that parsed it.
	return &parses{l: l, cpus: cpus, base: l.fset.Base(), walk: l.cutting && l.DeclarationsOnly != nil}
}

// add starts parsing sources; calls to add must not overlap.
func (ps *parses) add(sources []source) *parseBatch {
	n := len(sources)
	b := &parseBatch{sources: sources, out: make([]parsed, n), fresh: make([]bool, n), bases: make([]int, n), sets: make([]*token.FileSet, n), walked: make([]fileSelections, n)}
	ps.batches = append(ps.batches, b)
	var order []int
	for i, s := range sources {
		if c := ps.l.Cache; c != nil {
			k := fileKey{s.filename, s.name, s.mode}
			c.used[k] = true
			if f, ok := c.files[k]; ok && bytes.Equal(f.src, s.src) {
				b.out[i] = f.parsed
				continue
			}
		}
		b.fresh[i], b.bases[i] = true, ps.base
		ps.base += len(s.src) + 1
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(x, y int) int { return len(sources[y].src) - len(sources[x].src) })
	for _, i := range order {
		s := sources[i]
		ps.wg.Go(func() {
			ps.cpus <- struct{}{}
			defer func() { <-ps.cpus }()
			fset := token.NewFileSet()
			if b.bases[i] > 1 {
				// A file with no lines moves the set's next base to bases[i].
				fset.AddFile("", -1, b.bases[i]-2)
			}
			f, err := parser.ParseFile(fset, s.name, s.src, s.mode)
			workcount.FileParsed()
			if f != nil {
				workcount.BodiesParsed(bodies(f))
				if ps.walk {
					b.walked[i] = walkSelections(f)
				}
			}
			b.out[i], b.sets[i] = parsed{f, err}, fset
		})
	}
	return b
}

// wait waits for every file added, and joins them to the loader's file
// set (and cache) in order.
func (ps *parses) wait() {
	ps.wg.Wait()
	l := ps.l
	for _, b := range ps.batches {
		for i, s := range b.sources {
			if !b.fresh[i] {
				continue
			}
			p := b.out[i]
			if tf := b.sets[i].File(token.Pos(b.bases[i])); tf != nil && tf.Name() == s.name {
				l.fset.AddExistingFiles(tf)
			}
			if ps.walk && p.file != nil {
				l.walked[p.file] = b.walked[i]
			}
			if c := l.Cache; c != nil {
				k := fileKey{s.filename, s.name, s.mode}
				if old, ok := c.files[k]; ok {
					c.drop(k, old)
				}
				c.files[k] = &cachedFile{src: s.src, parsed: p}
			}
		}
	}
	ps.batches = nil
}

// bodies counts a file's function declarations whose body holds
// statements.
func bodies(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && len(fd.Body.List) > 0 {
			n++
		}
	}
	return n
}
