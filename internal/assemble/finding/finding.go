// Package finding converts go/analysis diagnostics into the one model of a
// finding every output is written from (answer.Diagnostic: position,
// category, related positions, fixes): the library's JSON, SARIF and the
// drivers' converters all start here.
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
	pos := func(p token.Pos) srcpos.Pos {
		if !p.IsValid() {
			return srcpos.Pos{}
		}
		out := srcpos.Of(fset, p)
		out.File = rel(out.File)
		return out
	}
	out := make([]answer.Diagnostic, 0, len(ds))
	for _, d := range ds {
		f := answer.Diagnostic{Category: d.Category, Message: d.Message, Pos: pos(d.Pos), Related: []answer.Related{}}
		if d.End.IsValid() && d.End != d.Pos {
			end := pos(d.End)
			f.End = &end
		}
		for _, r := range d.Related {
			f.Related = append(f.Related, answer.Related{Message: r.Message, Pos: pos(r.Pos)})
		}
		for _, fx := range d.SuggestedFixes {
			fix := answer.Fix{Message: fx.Message, Edits: []answer.Edit{}}
			for _, e := range fx.TextEdits {
				fix.Edits = append(fix.Edits, answer.Edit{Pos: pos(e.Pos), End: pos(e.End), NewText: string(e.NewText)})
			}
			f.Fixes = append(f.Fixes, fix)
		}
		out = append(out, f)
	}
	answer.SortDiagnostics(out)
	return out
}
