package sarif

import (
	"go/token"
	"sort"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/tree"
)

// Results converts go/analysis diagnostics to results, with paths relative
// to root (as a driver run in a checkout prints them), sorted by position:
// what the standalone driver writes as SARIF.
func Results(fset *token.FileSet, root string, ds []analysis.Diagnostic) []Result {
	t := &tree.Tree{Dir: root}
	pos := func(p token.Pos) Pos {
		if !p.IsValid() {
			return Pos{}
		}
		pp := fset.Position(p)
		return Pos{File: t.Rel(pp.Filename), Line: pp.Line, Column: pp.Column}
	}
	out := make([]Result, 0, len(ds))
	for _, d := range ds {
		res := Result{Check: d.Category, Message: d.Message, Pos: pos(d.Pos)}
		if d.End.IsValid() && d.End != d.Pos {
			end := pos(d.End)
			res.End = &end
		}
		for _, r := range d.Related {
			res.Related = append(res.Related, Related{Message: r.Message, Pos: pos(r.Pos)})
		}
		for _, f := range d.SuggestedFixes {
			fix := Fix{Message: f.Message}
			for _, e := range f.TextEdits {
				fix.Edits = append(fix.Edits, Edit{Pos: pos(e.Pos), End: pos(e.End), NewText: string(e.NewText)})
			}
			res.Fixes = append(res.Fixes, fix)
		}
		out = append(out, res)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return out[i].Check < out[j].Check
	})
	return out
}
