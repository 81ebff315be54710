package plegvet

import (
	"context"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/check/stalelist"
	"github.com/plegvet/plegvet/internal/assemble"
)

// Gates reads every feature gate of the tree and checks them: the feature
// maps (recognised by their types) of every package of pkg/ and of every
// staging module, as Kubernetes' own feature-list generator walks them.
// For a release (Options.Kubernetes), the staging modules its go.mod
// requires are fetched with it; one the proxy does not serve is named in
// Unfetched (a whole list is then not whole). Names, when given, keep only
// those gates; a name the tree does not declare is an error.
func Gates(ctx context.Context, opts Options, names ...string) (*answer.GatesReport, error) {
	return assemble.Gates(ctx, opts.internal(), names...)
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
func CheckFeatureList(r *answer.GatesReport, file string, list []answer.Gate, rewrite string) []answer.Diagnostic {
	return stalelist.List(r, file, list, rewrite)
}

// CheckMarkdownList compares a committed feature_list.md with the one
// the tree's generator writes, as hack/verify-featuregates.sh does, and
// says where, each difference a stale-markdown diagnostic
// (stalelist.Markdown). rewrite, when set, ends each message.
func CheckMarkdownList(r *answer.GatesReport, file string, data []byte, rewrite string) ([]answer.Diagnostic, error) {
	return stalelist.Markdown(r, file, data, rewrite)
}
