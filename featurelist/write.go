package featurelist

import (
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet/featuregates"
)

// Annotate gives, for a gate of a list being written, the position of
// its declaration and of each spec, written as comment lines ("" writes
// none).
type Annotate func(gate, spec int) string

// WriteYAML writes gates as Kubernetes' feature-list tool writes
// versioned_feature_list.yaml: header, then yaml.v2's rendering of each
// gate in the order given (the tool sorts names without case; so does
// the caller). With annotate, each gate and spec is preceded by a comment
// line naming its position: the file is then the tool's plus comments.
func WriteYAML(w io.Writer, header string, gates []featuregates.Gate, annotate Annotate) error {
	var b strings.Builder
	b.WriteString(header)
	comment := func(indent string, gate, spec int) {
		if annotate == nil {
			return
		}
		if at := annotate(gate, spec); at != "" {
			fmt.Fprintf(&b, "%s# %s\n", indent, at)
		}
	}
	for i, g := range gates {
		comment("", i, -1)
		if len(g.Specs) == 0 {
			// The tool's yaml.v2 writes an empty list, not null.
			fmt.Fprintf(&b, "- name: %s\n  versionedSpecs: []\n", g.Name)
			continue
		}
		fmt.Fprintf(&b, "- name: %s\n  versionedSpecs:\n", g.Name)
		for j, s := range g.Specs {
			comment("  ", i, j)
			fmt.Fprintf(&b, "  - default: %t\n    lockToDefault: %t\n    preRelease: %s\n    version: %q\n", s.Default, s.LockToDefault, s.PreRelease, s.Version)
			if s.MinCompatibilityVersion != "" {
				fmt.Fprintf(&b, "    minCompatibilityVersion: %q\n", s.MinCompatibilityVersion)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
