package srcload

import (
	"go/ast"
	"go/parser"
	"go/token"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

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

// parseAll parses files on every CPU, with the positions a parse in order
// would give: each file gets, in its own file set, the base it would get
// in the loader's (the bases before it plus their sizes), and the files
// then join the loader's set in order. Positions, and anything sorted by
// them, are the same from run to run. The largest files start first, so
// that one large file (the CRI API's) does not finish alone.
func (l *loader) parseAll(sources []source) []parsed {
	out := make([]parsed, len(sources))
	sets := make([]*token.FileSet, len(sources))
	bases := make([]int, len(sources))
	base := l.fset.Base()
	for i, s := range sources {
		bases[i] = base
		base += len(s.src) + 1
	}
	order := make([]int, len(sources))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(sources[b].src) - len(sources[a].src) })
	// A load that cuts walks every file for its selections (prune.go):
	// on the CPU that parsed it.
	walk := l.cutting && l.DeclarationsOnly != nil
	walked := make([]fileSelections, len(sources))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, i := range order {
		s := sources[i]
		g.Go(func() error {
			fset := token.NewFileSet()
			if bases[i] > 1 {
				// A file with no lines moves the set's next base to bases[i].
				fset.AddFile("", -1, bases[i]-2)
			}
			f, err := parser.ParseFile(fset, s.name, s.src, s.mode)
			workcount.FileParsed()
			if f != nil {
				workcount.BodiesParsed(bodies(f))
				if walk {
					walked[i] = walkSelections(f)
				}
			}
			out[i], sets[i] = parsed{f, err}, fset
			return nil
		})
	}
	g.Wait()
	if walk {
		for i, p := range out {
			if p.file != nil {
				l.walked[p.file] = walked[i]
			}
		}
	}
	for i := range sources {
		if tf := sets[i].File(token.Pos(bases[i])); tf != nil && tf.Name() == sources[i].name {
			l.fset.AddExistingFiles(tf)
		}
	}
	return out
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
