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

// SchemaVersion is the version of the JSON form of every result. It
// changes only when a key is removed or changes meaning.
const SchemaVersion = 1

// Pos is a position in the tree: File relative to the checkout root.
type Pos = srcpos.Pos

// Source says what was analysed and how it was loaded.
type Source struct {
	// Dir is the checkout as the user named it, or module@version for a
	// fetched release.
	Dir               string `json:"dir"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// From says where a node verdict's source answer came from: FromIndex
	// or FromSource. Empty in the other answers, always read from source.
	From string `json:"from,omitempty"`
	Load Load   `json:"load"`
}

// Where a node verdict's source answer came from (Source.From).
const (
	// FromIndex: plegvet's index of releases, computed from each
	// release's source by plegvet itself when it was built.
	FromIndex = "index"
	// FromSource: the source, read for this answer (or kept from such a
	// read in the answer cache).
	FromSource = "source"
)

// Load says how packages were type-checked.
type Load struct {
	// Mode is "source": the needed packages type-checked from source,
	// their other imports stubbed.
	Mode string `json:"mode"`
	// Modelled are imports answered by plegvet's built-in models of their API.
	Modelled []string `json:"modelled"`
	// Stubbed counts the imports answered by empty packages; expressions
	// that reach into them are untyped, and what depends on them is
	// reported as unresolved.
	Stubbed int `json:"stubbed"`
	// Problems are files that could not be read or parsed in full; the
	// rest was analysed.
	Problems []string `json:"problems"`
	// Unfollowed are constructs plegvet read but could not follow (a gate
	// test it could not trace to a gate, a feature map entry it could not
	// read), each "FILE:LINE:COL: why"; they are also diagnostics. Like
	// Problems, they mean the answer is not whole: the command exits 1.
	Unfollowed []string `json:"unfollowed"`
}

// unfollowedChecks are the checks whose findings say that part of the tree
// was not followed, rather than that the tree breaks a rule.
var unfollowedChecks = map[string]bool{
	string(pleg.GateTestUnresolved):    true,
	string(featuregate.GateUnreadable): true,
}

// noteUnfollowed records the diagnostics that say part of the tree was not
// followed in Load.Unfollowed.
func (s *Source) noteUnfollowed(ds []Diagnostic) {
	s.Load.Unfollowed = []string{}
	for _, d := range ds {
		if unfollowedChecks[d.Category] {
			s.Load.Unfollowed = append(s.Load.Unfollowed, fmt.Sprintf("%s:%d:%d: %s", d.Pos.File, d.Pos.Line, d.Pos.Column, d.Message))
		}
	}
}

// Diagnostic is one finding of a check.
type Diagnostic struct {
	Category string    `json:"category"`
	Message  string    `json:"message"`
	Pos      Pos       `json:"pos"`
	End      *Pos      `json:"end,omitempty"`
	Related  []Related `json:"related"`
	Fixes    []Fix     `json:"fixes,omitempty"`
}

// Fix is a suggested fix: edits to apply together.
type Fix struct {
	Message string `json:"message"`
	Edits   []Edit `json:"edits"`
}

// Edit replaces the text from Pos to End with NewText.
type Edit struct {
	Pos     Pos    `json:"pos"`
	End     Pos    `json:"end"`
	NewText string `json:"newText"`
}

// Related is a position that explains a diagnostic.
type Related struct {
	Message string `json:"message"`
	Pos     Pos    `json:"pos"`
}

// diagnostics resolves an analyzer's diagnostics in a file set whose
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
