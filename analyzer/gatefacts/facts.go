package gatefacts

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/featuregates"
)

// GateFact is exported on a gate's constant: the gate's name and specs.
// It is exported for a gate set by an index assignment as for one in a
// map literal.
type GateFact struct {
	Name   string
	Format featuregates.Format
	// Specs may be empty when the gate's specs could not be read;
	// Unresolved then says why. They are the extracted specs without
	// their syntax (Spec.WithoutSyntax), each Unresolved in the words an
	// importer gives (unresolvedSpec).
	Specs []featuregates.Spec
	// Unresolved is featuregates.Gate.Unresolved: why the gate's name or
	// specs are not fully known.
	Unresolved string
	// Map is the variable or function holding the feature map that
	// registers the gate, and Entry the entry's place (its key to the end
	// of its value): where an importer that registers the gate again
	// reports a conflict. Entry is not set on a fact built from a
	// Result's own gates (Result.Gate).
	Map   string
	Entry FactPos
	// Local says that the entry's map is built in a function body for a
	// call (featuregates.Gate.PackageLevel is false): it is registered
	// with whatever FeatureGate the call names, and importers do not
	// compare their registrations with it.
	Local bool
	// SetInCode are the writes of the gate the declaring package makes in
	// code (Set or SetFromMap, as an init may): every binary importing
	// it starts with them, before its own flags apply.
	SetInCode []featuregates.GateWrite
}

// unresolvedSpec is a spec's Unresolved as importers read it: the
// declaring package's reason is its own.
const unresolvedSpec = "not a constant in the declaring package"

func (*GateFact) AFact() {}

// String reads like "gate EventedPLEG [1.26 Alpha off]", followed by
// "unresolved: why" when the gate is not fully known.
func (f *GateFact) String() string {
	parts := make([]string, len(f.Specs))
	for i, s := range f.Specs {
		parts[i] = specString(s)
	}
	out := fmt.Sprintf("gate %s [%s]", f.Name, strings.Join(parts, ", "))
	if f.Unresolved != "" {
		out += " unresolved: " + f.Unresolved
	}
	return out
}

// specString reads like "1.26 Alpha off": a spec in a fact's String.
func specString(s featuregates.Spec) string {
	var b strings.Builder
	if s.Version != "" {
		b.WriteString(s.Version + " ")
	}
	b.WriteString(string(s.PreRelease))
	if s.Default {
		b.WriteString(" on")
	} else {
		b.WriteString(" off")
	}
	if s.LockToDefault {
		b.WriteString(" locked")
	}
	if s.Unresolved != "" {
		b.WriteString(" (unresolved)")
	}
	return b.String()
}

// Gate rebuilds a featuregates.Gate (without positions) from the fact, so
// that importers can ask At(version).
func (f *GateFact) Gate() *featuregates.Gate {
	return &featuregates.Gate{Name: f.Name, Format: f.Format, Unresolved: f.Unresolved, Specs: slices.Clone(f.Specs)}
}

// PackageGates is exported on a package that declares feature maps: every
// gate by name, including those keyed by other packages' constants, whose
// objects cannot carry facts of this package.
type PackageGates struct {
	Gates []*GateFact // sorted by name: facts must encode deterministically
}

// Gate returns the gate with the given name, or nil.
func (f *PackageGates) Gate(name string) *GateFact {
	i := sort.Search(len(f.Gates), func(i int) bool { return f.Gates[i].Name >= name })
	if i < len(f.Gates) && f.Gates[i].Name == name {
		return f.Gates[i]
	}
	return nil
}

func (*PackageGates) AFact() {}

func (f *PackageGates) String() string {
	return fmt.Sprintf("%d gates", len(f.Gates))
}

func newGateFact(g *featuregates.Gate) *GateFact {
	f := &GateFact{Name: g.Name, Format: g.Format, Unresolved: g.Unresolved, Map: g.Map, Local: !g.PackageLevel()}
	for _, s := range g.Specs {
		s = s.WithoutSyntax()
		if s.Unresolved != "" {
			s.Unresolved = unresolvedSpec
		}
		f.Specs = append(f.Specs, s)
	}
	return f
}
