// Package stalelist checks a committed feature list against the code:
// Kubernetes' versioned_feature_list.yaml (or a list in its format), and
// its feature_list.md (v1.36 on), each compared with what the tree's own
// generators write from the feature maps read. The library runs it
// (plegvet.CheckFeatureList, CheckMarkdownList; plegvet gates -check and
// -update); its findings are the group "featurelist" of the suite.
//
//   - stale-list: a committed feature list (the format of Kubernetes'
//     versioned_feature_list.yaml) differs from the code: a spec that
//     differs, or a gate or spec that one has and the other lacks; plegvet
//     gates -update rewrites it.
//   - stale-markdown: a committed feature_list.md (v1.36 on) is not what
//     the tree's cmd/genfeaturegates writes: a row that differs, is missing
//     or names no gate of the maps it lists, or the text around the rows;
//     plegvet gates -update rewrites it.
//   - removed-too-early: a committed feature list holds a gate the code no
//     longer declares, and the tree's own feature-list tool
//     (test/compatibility_lifecycle) refuses to drop it yet: a Beta gate, a
//     GA or Deprecated one not locked to its default, or locked fewer
//     minors ago than the tool requires; hack/verify-featuregates.sh and
//     hack/update-featuregates.sh both fail.
package stalelist

import (
	_ "embed" // the package comment above, for Checks

	"github.com/plegvet/plegvet/internal/analysis/check"
)

//go:embed doc.go
var docGo string

// The checks, as the bullets above name them.
const (
	StaleList       check.Check = "stale-list"
	StaleMarkdown   check.Check = "stale-markdown"
	RemovedTooEarly check.Check = "removed-too-early"
)

// Checks are the package's checks and their documentation, from the
// bullets above.
func Checks() []check.Doc { return check.FromPackageDoc(docGo) }
