package plegvet

import (
	"context"
	"fmt"
	"go/token"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/suite"
)

// FeaturesPackage is where Kubernetes declares the kubelet's feature gates,
// relative to the tree's module.
const FeaturesPackage = "pkg/features"

// GatesReport is every feature gate of a tree's pkg/features.
type GatesReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	Gates         []Gate `json:"gates"`
	// Diagnostics are the featuregate analyzer's findings.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Gate is one feature gate and its spec history.
type Gate struct {
	Name string `json:"name"`
	// Const is the identifier of the key's constant when it differs from
	// the name (Kubernetes' own lists before v1.37 use it).
	Const string `json:"const,omitempty"`
	// Decl is the gate constant's declaration; null when the key is a
	// constant of a package that was not loaded.
	Decl *Pos `json:"decl"`
	// Entry is the gate's key in its feature map.
	Entry Pos `json:"entry"`
	// Map is the variable or function holding the feature map.
	Map string `json:"map"`
	// Format is "versioned" or "unversioned".
	Format string `json:"format"`
	// Specs may be empty (a spec list that is empty or built by a call);
	// Unresolved then says why.
	Specs        []Spec   `json:"specs"`
	Dependencies []string `json:"dependencies"`
	// Unresolved says why part of the gate could not be read as constants.
	Unresolved string `json:"unresolved,omitempty"`
	// Assigned is set when the gate's spec comes from an index assignment
	// (m[K] = V, in init or another function), not a map literal entry.
	Assigned bool `json:"assigned,omitempty"`
}

// Spec is one FeatureSpec of a gate.
type Spec struct {
	// Version is the release the spec applies from; "" in the unversioned format.
	Version                 string `json:"version"`
	Default                 bool   `json:"default"`
	PreRelease              string `json:"preRelease"`
	LockToDefault           bool   `json:"lockToDefault"`
	MinCompatibilityVersion string `json:"minCompatibilityVersion,omitempty"`
	Pos                     Pos    `json:"pos"`
	// Unresolved says which fields are not constants (they read as zero).
	Unresolved string `json:"unresolved,omitempty"`
}

// At returns the spec in force at a Kubernetes version (v1.36.1 or 1.36),
// by featuregates' rule, computed from Specs alone: a gate decoded from
// JSON answers as the one returned.
func (g *Gate) At(version string) (Spec, bool) {
	fg := featuregates.Gate{Name: g.Name}
	for i, s := range g.Specs {
		fg.Specs = append(fg.Specs, featuregates.Spec{
			Version: s.Version, Default: s.Default, LockToDefault: s.LockToDefault,
			PreRelease: featuregates.PreRelease(s.PreRelease), MinCompatibilityVersion: s.MinCompatibilityVersion,
			Pos: token.Pos(i + 1), // which of Specs it is
		})
	}
	s, ok := fg.At(version)
	if !ok {
		return Spec{}, false
	}
	return g.Specs[int(s.Pos)-1], true
}

// Newest returns the gate's last spec.
func (g *Gate) Newest() (Spec, bool) {
	if len(g.Specs) == 0 {
		return Spec{}, false
	}
	return g.Specs[len(g.Specs)-1], true
}

// Gate returns the gate with the given name, or nil.
func (r *GatesReport) Gate(name string) *Gate {
	for i := range r.Gates {
		if r.Gates[i].Name == name {
			return &r.Gates[i]
		}
	}
	return nil
}

// Gates reads every feature gate of the tree's pkg/features and checks
// them. Names, when given, keep only those gates; a name the tree does not
// declare is an error.
func Gates(ctx context.Context, opts Options, names ...string) (*GatesReport, error) {
	t, src, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, src, isFeaturePackage, FeaturesPackage)
	if err != nil {
		return nil, err
	}
	rep, err := a.gates(names...)
	if err != nil {
		return nil, err
	}
	rep.Source.noteUnfollowed(rep.Diagnostics)
	return rep, nil
}

// gates reads the featuregate analyzer's outcome on pkg/features.
func (a *analysed) gates(names ...string) (*GatesReport, error) {
	out, err := a.outcome(featuregate.Analyzer, FeaturesPackage)
	if err != nil {
		return nil, err
	}
	found := out.Result.(*featuregate.Result).Declared
	if len(found.Maps) == 0 {
		return nil, fmt.Errorf("%s: no feature maps (map[featuregate.Feature]featuregate.FeatureSpec or ...VersionedSpecs from %s) in %s%s", a.src.Dir, featuregates.APIPath, FeaturesPackage, a.unreadIn(FeaturesPackage))
	}
	rep := &GatesReport{SchemaVersion: SchemaVersion, Source: a.src, Gates: []Gate{}, Diagnostics: a.pos.diagnostics(out.Diagnostics)}
	for _, g := range found.Gates {
		rep.Gates = append(rep.Gates, a.pos.gate(g))
	}
	if len(names) > 0 {
		keep := rep.Gates[:0:0]
		for _, n := range names {
			g := rep.Gate(n)
			for i := range rep.Gates {
				if g == nil && rep.Gates[i].Const == n {
					g = &rep.Gates[i] // the constant's identifier names it too
				}
			}
			if g == nil {
				return nil, fmt.Errorf("%s: %s declares no feature gate %q", a.src.Dir, FeaturesPackage, n)
			}
			keep = append(keep, *g)
		}
		rep.Gates = keep
	}
	return rep, nil
}

// isFeaturePackage picks the imports worth loading from source for the
// analyzers when the tree holds them: staging modules' gate lists, whose
// constants key some of pkg/features' entries (and the pleg package).
func isFeaturePackage(importPath string) bool { return suite.FromSource(importPath) }

func (p positioner) gate(g *featuregates.Gate) Gate {
	jg := Gate{
		Name: g.Name, Decl: p.optPos(g.Decl), Entry: p.pos(g.Entry), Map: g.Map, Format: string(g.Format),
		Specs: []Spec{}, Dependencies: []string{}, Unresolved: g.Unresolved, Assigned: g.Assigned,
	}
	for _, s := range g.Specs {
		jg.Specs = append(jg.Specs, Spec{
			Version: s.Version, Default: s.Default, PreRelease: string(s.PreRelease), LockToDefault: s.LockToDefault,
			MinCompatibilityVersion: s.MinCompatibilityVersion, Pos: p.pos(s.Pos), Unresolved: s.Unresolved,
		})
	}
	if g.Const != nil && g.Const.Name() != g.Name {
		jg.Const = g.Const.Name()
	}
	for _, d := range g.Dependencies {
		jg.Dependencies = append(jg.Dependencies, d.Name)
	}
	return jg
}
