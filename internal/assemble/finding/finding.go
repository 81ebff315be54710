// Package finding converts go/analysis diagnostics into the one model of a
// finding every output is written from (answer.Diagnostic: position,
// category, related positions, fixes): the library's JSON, SARIF and the
// language server all start here.
package finding

import (
	"go/token"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// FromAnalysis converts ds, their files named by rel (the tree's relative
// names), sorted by position then category.
func FromAnalysis(fset *token.FileSet, rel func(string) string, ds []analysis.Diagnostic) []answer.Diagnostic {
	out := make([]answer.Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, Of(fset, rel, d))
	}
	answer.SortDiagnostics(out)
	return out
}

// Of converts one diagnostic, its files named by rel (nil: as fset names
// them). Every end the diagnostic gives is kept (the related positions'
// too, which an editor shows as ranges); an end that is the start is
// left out.
func Of(fset *token.FileSet, rel func(string) string, d analysis.Diagnostic) answer.Diagnostic {
	pos := func(p token.Pos) srcpos.Pos {
		if !p.IsValid() {
			return srcpos.Pos{}
		}
		out := srcpos.Of(fset, p)
		if rel != nil {
			out.File = rel(out.File)
		}
		return out
	}
	end := func(p, e token.Pos) *srcpos.Pos {
		if !e.IsValid() || e == p {
			return nil
		}
		out := pos(e)
		return &out
	}
	f := answer.Diagnostic{Category: d.Category, Message: d.Message, Pos: pos(d.Pos), End: end(d.Pos, d.End), Related: []answer.Related{}}
	for _, r := range d.Related {
		f.Related = append(f.Related, answer.Related{Message: r.Message, Pos: pos(r.Pos), End: end(r.Pos, r.End)})
	}
	for _, fx := range d.SuggestedFixes {
		fix := answer.Fix{Message: fx.Message, Edits: []answer.Edit{}}
		for _, e := range fx.TextEdits {
			fix.Edits = append(fix.Edits, answer.Edit{Pos: pos(e.Pos), End: pos(e.End), NewText: string(e.NewText)})
		}
		f.Fixes = append(f.Fixes, fix)
	}
	return f
}
