package answer

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/featurelist"
)

// GatesReport is every feature gate of a tree: those of pkg/features
// (Inspect, Node) or, from Gates, those of every feature map in pkg/ and
// the staging modules.
type GatesReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	Gates         []Gate `json:"gates"`
	// Diagnostics are the featuregate analyzer's findings.
	Diagnostics []Diagnostic `json:"diagnostics"`
	// ListNames says how the tree's own feature list (ReferenceLists)
	// names a gate whose key's identifier differs from its value:
	// "value", or "identifier" (Kubernetes' lists before v1.36.x, whose
	// generator read the key's identifier: CPUCFSQuotaPeriod for the gate
	// CustomCPUCFSQuotaPeriod). FeatureList follows it. Set by Gates.
	ListNames string `json:"listNames,omitempty"`
	// Unfetched are the staging modules of a release that the go command
	// did not fetch (the module proxy does not serve them), each
	// "staging/src/MODULE: ... why": their feature maps are not read, so a
	// whole list (no names asked for) is not whole. Set by Gates.
	Unfetched []string `json:"unfetched,omitempty"`
	// Lifecycle is the tree's own feature-list tool, as read from its
	// source, and the version it calls current: the rules
	// hack/verify-featuregates.sh holds the list to. Nil when the tree
	// has no such tool (before v1.33). Set by Gates.
	Lifecycle *featurelist.Generator `json:"lifecycle,omitempty"`
	// Markdown is the tree's generator of feature_list.md (v1.36 on) and
	// the maps it lists; nil when the tree has none. Set by Gates.
	Markdown *featurelist.MarkdownGenerator `json:"markdown,omitempty"`
	// Conflicts are the registrations component-base refuses, as data:
	// the conflicting-registration and conflicting-spec diagnostics say
	// them in words, and they alone are in the JSON (a decoded report has
	// no Conflicts).
	Conflicts []RegistrationConflict `json:"-"`
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

// Gate is one feature gate and its spec history: featuregates.Gate, the
// one gate type from extraction to the answer (its syntax is in json:"-"
// fields, which no answer fills).
type Gate = featuregates.Gate

// Registration is one feature map entry that registers a gate
// (featuregates.Registration).
type Registration = featuregates.Registration

// Spec is one FeatureSpec of a gate: featuregates.Spec, the one spec
// type from extraction through facts to the answer.
type Spec = featuregates.Spec

// Gate returns the gate with the given name, or nil.
func (r *GatesReport) Gate(name string) *Gate {
	for i := range r.Gates {
		if r.Gates[i].Name == name {
			return &r.Gates[i]
		}
	}
	return nil
}

// Find returns the gate a name names, by the gate's name or, failing
// that, by its constant's identifier (Kubernetes' lists before v1.37 use
// it); nil when none does.
func (r *GatesReport) Find(name string) *Gate {
	if g := r.Gate(name); g != nil {
		return g
	}
	for i := range r.Gates {
		if r.Gates[i].Const == name {
			return &r.Gates[i]
		}
	}
	return nil
}

// NamingOf says how a feature list with the given names names the gates
// whose key's identifier differs from their value: "identifier" when the
// list has more of them by identifier than by value (Kubernetes' lists up
// to some v1.36 patch, whose generator read the key's identifier), else
// "value".
func (r *GatesReport) NamingOf(names []string) string {
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	byIdent, byValue := 0, 0
	for _, g := range r.Gates {
		if !g.Listed || g.Const == "" {
			continue
		}
		if has[g.Const] && !has[g.Name] {
			byIdent++
		}
		if has[g.Name] {
			byValue++
		}
	}
	if byIdent > byValue {
		return "identifier"
	}
	return "value"
}

// ListEntry is one gate of Kubernetes' feature list.
type ListEntry struct {
	// Name is the gate as the list names it (ListNames).
	Name string
	Gate *Gate
}

// FeatureList is the gates Kubernetes' own versioned_feature_list.yaml
// holds for the tree, in its order (names compared without case), named
// as ListNames says.
func (r *GatesReport) FeatureList() []ListEntry { return r.FeatureListNamed(r.ListNames) }

// FeatureListNamed is FeatureList with the naming given ("value" or
// "identifier").
func (r *GatesReport) FeatureListNamed(naming string) []ListEntry {
	var out []ListEntry
	for i := range r.Gates {
		g := &r.Gates[i]
		if !g.Listed {
			continue
		}
		name := g.Name
		if naming == "identifier" && g.Const != "" {
			name = g.Const
		}
		out = append(out, ListEntry{Name: name, Gate: g})
	}
	slices.SortStableFunc(out, func(a, b ListEntry) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.Name, b.Name))
	})
	return out
}

// ListGates is FeatureList as the list holds it: each gate named as
// ListNames says, with its specs, in the tool's order.
func (r *GatesReport) ListGates() []Gate {
	entries := r.FeatureList()
	out := make([]Gate, len(entries))
	for i, e := range entries {
		out[i] = Gate{Name: e.Name, Specs: e.Gate.Specs}
	}
	return out
}

// WriteFeatureList writes FeatureList as the tree's feature-list tool
// writes versioned_feature_list.yaml, its header included: the bytes
// hack/update-featuregates.sh writes (a tree without the tool gets no
// header). With annotate, comment lines give each gate's and spec's
// position in the code.
func (r *GatesReport) WriteFeatureList(w io.Writer, annotate bool) error {
	header := ""
	if r.Lifecycle != nil {
		header = r.Lifecycle.Header
	}
	var at featurelist.Annotate
	if annotate {
		entries := r.FeatureList()
		at = func(gate, spec int) string {
			g := entries[gate].Gate
			p := g.Entry
			if spec >= 0 {
				p = g.Specs[spec].Pos
			} else if g.Decl != nil {
				p = *g.Decl
			}
			return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
		}
	}
	return featurelist.WriteYAML(w, header, r.ListGates(), at)
}

// MarkdownGates is the rows of the tree's feature_list.md: the gates of
// the maps its generator's imports register, but those it skips; nil when
// the tree has no such generator.
func (r *GatesReport) MarkdownGates() []Gate {
	md := r.Markdown
	if md == nil {
		return nil
	}
	var out []Gate
	for _, g := range r.Gates {
		if slices.Contains(md.Skipped, g.Name) || !slices.ContainsFunc(g.Registrations, func(reg Registration) bool {
			return slices.Contains(md.Maps, featurelist.MapRef{Package: reg.Package, Map: reg.Map})
		}) {
			continue
		}
		out = append(out, Gate{Name: g.Name, Specs: g.Specs, Dependencies: g.Dependencies})
	}
	return out
}

// WriteMarkdownList writes the tree's feature_list.md as its generator
// (cmd/genfeaturegates, run by hack/update-featuregates.sh) writes it.
func (r *GatesReport) WriteMarkdownList(w io.Writer) error {
	if r.Markdown == nil {
		return fmt.Errorf("%s: no %s: the tree has no Markdown feature list", r.Source.Dir, featurelist.MarkdownGeneratorFile)
	}
	return featurelist.WriteMarkdown(w, r.MarkdownGates())
}

// Names are the names each gate can be asked for by: its name and its
// constant's identifier.
func (r *GatesReport) Names() []string {
	names := make([]string, 0, 2*len(r.Gates))
	for _, g := range r.Gates {
		names = append(names, g.Name)
		if g.Const != "" && g.Const != g.Name {
			names = append(names, g.Const)
		}
	}
	return names
}

// Files visits the report's file names (Located).
func (r *GatesReport) Files(visit FileVisitor) {
	v := files(visit)
	for i := range r.Gates {
		v.gate(&r.Gates[i])
	}
	v.diagnostics(r.Diagnostics)
	v.markdown(r.Markdown)
	v.conflicts(r.Conflicts)
}

// UnfetchedModule splits a staging module a release did not fetch, as
// GatesReport.Unfetched names it ("staging/src/MODULE: staging module
// MODULE@V not fetched, its feature gates are not read: WHY"), into the
// module's path and the go command's reason, on one line.
func UnfetchedModule(u string) (module, why string) {
	head, rest, _ := strings.Cut(u, ": ")
	module = strings.TrimPrefix(head, "staging/src/")
	if _, after, ok := strings.Cut(rest, "not read: "); ok {
		rest = after
	}
	return module, strings.Join(strings.Fields(rest), " ")
}
