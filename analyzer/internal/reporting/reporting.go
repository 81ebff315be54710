// Package reporting is the one place plegvet's analyzers turn a finding
// into a diagnostic: a precise range, the check's category, related
// positions and, where the fix is obvious, a suggested fix.
package reporting

import (
	"cmp"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/analysis/check"
)

// Related is a position that explains a finding (the constant a value
// came from, the earlier spec a later one contradicts).
type Related struct {
	Pos, End token.Pos
	Message  string
}

// Finding is one problem an analyzer found.
type Finding struct {
	Pos, End token.Pos
	Check    check.Check // the diagnostic's category, documented in the analyzer's doc.go
	Message  string
	Related  []Related
	Fixes    []analysis.SuggestedFix
}

// Report hands a finding to the pass. Related positions that are unknown
// (NoPos) are dropped rather than reported at the top of no file.
//
// Findings in _test.go files are not reported: tests build feature maps
// and PLEGs with odd values on purpose (a threshold below the period, to
// see the PLEG turn unhealthy), and the checks guard the code that ships.
func Report(pass *analysis.Pass, f Finding) {
	if strings.HasSuffix(pass.Fset.Position(f.Pos).Filename, "_test.go") {
		return
	}
	d := analysis.Diagnostic{
		Pos:            f.Pos,
		End:            f.End,
		Category:       string(f.Check),
		Message:        f.Message,
		SuggestedFixes: f.Fixes,
	}
	for _, r := range f.Related {
		if !r.Pos.IsValid() {
			continue
		}
		d.Related = append(d.Related, analysis.RelatedInformation{Pos: r.Pos, End: cmp.Or(r.End, r.Pos), Message: r.Message})
	}
	pass.Report(d)
}
