package sarif

import (
	"cmp"
	"go/token"
	"slices"
	"strings"

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
	slices.SortStableFunc(out, func(a, b Result) int {
		return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column), strings.Compare(a.Check, b.Check))
	})
	return out
}
