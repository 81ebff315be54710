package sarif

import (
	"go/token"
	"sort"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/tree"
)

// Diagnostics converts go/analysis diagnostics to plegvet's JSON type,
// with paths relative to root (as a driver run in a checkout prints them),
// sorted by position: what the standalone driver writes as SARIF.
func Diagnostics(fset *token.FileSet, root string, ds []analysis.Diagnostic) []plegvet.Diagnostic {
	t := &tree.Tree{Dir: root}
	pos := func(p token.Pos) plegvet.Pos {
		if !p.IsValid() {
			return plegvet.Pos{}
		}
		pp := fset.Position(p)
		return plegvet.Pos{File: t.Rel(pp.Filename), Line: pp.Line, Column: pp.Column}
	}
	out := make([]plegvet.Diagnostic, 0, len(ds))
	for _, d := range ds {
		jd := plegvet.Diagnostic{Category: d.Category, Message: d.Message, Pos: pos(d.Pos), Related: []plegvet.Related{}}
		if d.End.IsValid() && d.End != d.Pos {
			end := pos(d.End)
			jd.End = &end
		}
		for _, r := range d.Related {
			jd.Related = append(jd.Related, plegvet.Related{Message: r.Message, Pos: pos(r.Pos)})
		}
		for _, f := range d.SuggestedFixes {
			fix := plegvet.Fix{Message: f.Message, Edits: []plegvet.Edit{}}
			for _, e := range f.TextEdits {
				fix.Edits = append(fix.Edits, plegvet.Edit{Pos: pos(e.Pos), End: pos(e.End), NewText: string(e.NewText)})
			}
			jd.Fixes = append(jd.Fixes, fix)
		}
		out = append(out, jd)
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
		return out[i].Category < out[j].Category
	})
	return out
}
