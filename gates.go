package plegvet

import (
	"context"
	"strconv"
	"strings"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/check/stalelist"
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/assemble"
)

// Gates reads every feature gate of the tree and checks them: the feature
// maps (recognised by their types) of every package of pkg/ and of every
// staging module, as Kubernetes' own feature-list generator walks them.
// For a release (Options.Kubernetes), the staging modules its go.mod
// requires are fetched with it; one the proxy does not serve is named in
// Unfetched (a whole list is then not whole). Names, when given, keep only
// those gates; a name the tree does not declare is an error.
func Gates(ctx context.Context, opts Options, names ...string) (*GatesReport, error) {
	return assemble.Gates(ctx, opts.internal(), names...)
}

// RegistrationConflict is a gate that two feature map entries register
// with specs component-base does not take for the same: the second
// FeatureGate.Add or AddVersioned fails, and runtime.Must panics at init
// in every binary that makes both registrations.
type RegistrationConflict struct {
	Gate string
	// First is the registration component-base keeps (an imported
	// package's, or the first map of a package), Again the one it refuses.
	First, Again Pos
	// Message is the diagnostic's: for conflicting-registration,
	// component-base's error word for word, then both packages.
	Message string
}

// RegistrationConflicts picks, once each, the conflicts that diagnostics
// report: conflicting-registration (reported at both entries) and
// conflicting-spec (two maps of one package), in the order of ds.
func RegistrationConflicts(ds []Diagnostic) []RegistrationConflict {
	var out []RegistrationConflict
	seen := map[[2]Pos]bool{}
	for _, d := range ds {
		if len(d.Related) == 0 {
			continue
		}
		first := d.Category == string(featuregate.ConflictingRegistration) && strings.HasPrefix(d.Related[0].Message, featuregate.RegisteredFirst)
		if !first && d.Category != string(featuregate.ConflictingSpec) {
			continue // the other end of a conflict, or no conflict
		}
		c := RegistrationConflict{Gate: conflictGate(d.Message), First: d.Related[0].Pos, Again: d.Pos, Message: d.Message}
		if k := [2]Pos{c.First, c.Again}; !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// conflictGate reads the gate's name from a conflict's message:
// `feature gate "X" with ...` (component-base's words) or `feature gate X is ...`.
func conflictGate(msg string) string {
	rest := strings.TrimPrefix(msg, "feature gate ")
	if q, err := strconv.QuotedPrefix(rest); err == nil {
		if name, err := strconv.Unquote(q); err == nil {
			return name
		}
	}
	name, _, _ := strings.Cut(rest, " ")
	return name
}

// ReferenceLists returns where Kubernetes keeps its generated feature
// list, relative to the tree's root: since v1.33, and in v1.32. The slice
// is new on each call.
func ReferenceLists() []string {
	return assemble.ReferenceLists()
}

// CheckFeatureList compares the tree's FeatureList with a committed list
// (featurelist.Parse's), named as the list names gates (NamingOf), and
// returns each difference as a stale-list diagnostic at the gate's spec
// in the code, or removed-too-early where the tree's feature-list tool
// refuses to drop a gate (stalelist.List). rewrite, when set, is the
// command that rewrites the list; each message ends with it.
func CheckFeatureList(r *GatesReport, file string, list []featurelist.Gate, rewrite string) []Diagnostic {
	return stalelist.List(r, file, list, rewrite)
}

// CheckMarkdownList compares a committed feature_list.md with the one
// the tree's generator writes, as hack/verify-featuregates.sh does, and
// says where, each difference a stale-markdown diagnostic
// (stalelist.Markdown). rewrite, when set, ends each message.
func CheckMarkdownList(r *GatesReport, file string, data []byte, rewrite string) ([]Diagnostic, error) {
	return stalelist.Markdown(r, file, data, rewrite)
}
