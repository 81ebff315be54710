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
	// blank: its function bodies are blanked before it is parsed
	// (blankBodies), in src itself when blankInPlace (no one else reads
	// it: not the caller's overlay, no cache keeps it).
	blank, blankInPlace bool
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
	cpus    *cpuSlots // shared with whoever else works on every CPU
	base    int       // the next fresh file's
	walk    bool      // files are walked for their selections (prune.go) as parsed
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
// (nil: new ones) bound the files parsed at once.
func (l *loader) newParses(cpus *cpuSlots) *parses {
	if cpus == nil {
		cpus = newCPUSlots()
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
			ps.cpus.take(false)
			defer ps.cpus.give()
			fset := token.NewFileSet()
			if b.bases[i] > 1 {
				// A file with no lines moves the set's next base to bases[i].
				fset.AddFile("", -1, b.bases[i]-2)
			}
			src := s.src
			if s.blank {
				src = blankBodies(src, s.blankInPlace)
			}
			f, err := parser.ParseFile(fset, s.name, src, s.mode)
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

// cpuSlots bound the work done at once to the CPUs there are, and let
// the urgent work (prefetch's reads, which find what to read next) go
// before the rest (the parses of what was read before): a crawl kept
// waiting behind the parse of pkg/kubelet finds the packages it leads to
// last, and their parses start late.
type cpuSlots struct {
	mu      sync.Mutex
	cond    *sync.Cond
	free    int
	urgent  int // urgent work expected and not started
	waiters int // takers waiting, for a test to see
}

func newCPUSlots() *cpuSlots {
	s := &cpuSlots{free: runtime.GOMAXPROCS(0)}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// expect tells of urgent work to come, whose taker has not started yet:
// the others wait for it from now, not from when its goroutine first runs
// (Go runs the goroutines a parse batch starts before older ones).
func (s *cpuSlots) expect() {
	s.mu.Lock()
	s.urgent++
	s.mu.Unlock()
}

// take waits for a slot: urgent work (expected) for a free one, other
// work also for no urgent work to be waiting.
func (s *cpuSlots) take(urgent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.free == 0 || !urgent && s.urgent > 0 {
		s.waiters++
		s.cond.Wait()
		s.waiters--
	}
	s.free--
	if urgent {
		if s.urgent--; s.urgent == 0 && s.free > 0 {
			s.cond.Broadcast() // the others may take what is left
		}
	}
}

// give gives a slot back.
func (s *cpuSlots) give() {
	s.mu.Lock()
	s.free++
	s.cond.Broadcast()
	s.mu.Unlock()
}
