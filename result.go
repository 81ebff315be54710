package plegvet

import (
	"cmp"
	"fmt"
	"go/token"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/srcpos"
)

// unfollowedChecks are the checks whose findings say that part of the tree
// was not followed, rather than that the tree breaks a rule.
var unfollowedChecks = map[string]bool{
	string(pleg.GateTestUnresolved):    true,
	string(featuregate.GateUnreadable): true,
}

// noteUnfollowed records the diagnostics that say part of the tree was not
// followed in Load.Unfollowed.
func noteUnfollowed(s *Source, ds []Diagnostic) {
	s.Load.Unfollowed = []string{}
	for _, d := range ds {
		if unfollowedChecks[d.Category] {
			s.Load.Unfollowed = append(s.Load.Unfollowed, fmt.Sprintf("%s:%d:%d: %s", d.Pos.File, d.Pos.Line, d.Pos.Column, d.Message))
		}
	}
}

// files are named relative to the tree (srcload.Imports.TreeRelativeNames).
func diagnostics(fset *token.FileSet, ds []analysis.Diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		jd := Diagnostic{Category: d.Category, Message: d.Message, Pos: srcpos.Of(fset, d.Pos), Related: []Related{}}
		if d.End.IsValid() && d.End != d.Pos {
			jd.End = srcpos.At(fset, d.End)
		}
		for _, r := range d.Related {
			jd.Related = append(jd.Related, Related{Message: r.Message, Pos: srcpos.Of(fset, r.Pos)})
		}
		for _, f := range d.SuggestedFixes {
			fix := Fix{Message: f.Message, Edits: []Edit{}}
			for _, e := range f.TextEdits {
				fix.Edits = append(fix.Edits, Edit{Pos: srcpos.Of(fset, e.Pos), End: srcpos.Of(fset, e.End), NewText: string(e.NewText)})
			}
			jd.Fixes = append(jd.Fixes, fix)
		}
		out = append(out, jd)
	}
	sortDiagnostics(out)
	return out
}

func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column), strings.Compare(a.Category, b.Category))
	})
}
