// A gate declared twice: in two maps of the package, or here and by a
// direct import, with specs component-base does not take for the same.

package featuregate

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/analyzer/internal/reporting"
	"github.com/plegvet/plegvet/featuregates"
)

// conflicts reports a gate declared in two maps of the package with
// specs component-base does not take for the same.
func (c *checker) conflicts() {
	first := map[string]*featuregates.Gate{}
	for _, e := range c.res.Entries {
		if len(e.Specs) == 0 || !e.PackageLevel() {
			continue // a map built for a call: registered with the call's FeatureGate
		}
		f, ok := first[e.Name]
		if !ok {
			first[e.Name] = e
			continue
		}
		if e.MapVar != nil && e.MapVar == f.MapVar {
			// One map, set twice: no second registration.
			if e.Overwrites(f) {
				first[e.Name] = e
			}
			continue
		}
		if conflict, ok := featuregates.Conflicts(f, e, c.rules); ok && conflict != nil {
			c.add(e.EntryPos, e.Value.End(), ConflictingSpec, []reporting.Related{{Pos: f.EntryPos, End: f.Value.End(), Message: "first declared in " + f.Map}},
				"feature gate %s is declared again in %s with different specs; component-base refuses the second", e.Name, e.Map)
			c.conflict(e.Name, f.EntryPos, e.EntryPos)
		}
	}
}

// Related messages of conflicting-registration: at the entry registered
// again, the import's entry; at the import's entry, the one here.
const (
	RegisteredFirst = "registered first here"
	RegisteredAgain = "registered again here"
)

// registrations reports the gates that a direct import registers and
// this package registers again with specs component-base does not take
// for the same, at both entries: the import's is the existing
// registration (an imported package is initialised first), reached
// through its fact's recorded place.
func (c *checker) registrations() {
	for _, e := range c.res.Entries {
		if len(e.Specs) == 0 || e.Value == nil || c.overwritten(e) || !e.PackageLevel() {
			continue
		}
		for _, r := range c.gates.Registrations(e.Name) {
			if r.Fact.Local {
				continue // registered with a FeatureGate of the call's choosing
			}
			conflict, ok := featuregates.Conflicts(r.Fact.Gate(), e, c.rules)
			if !ok || conflict == nil {
				continue
			}
			msg := fmt.Sprintf("%s: registered by %s, then by %s with %v; component-base refuses the second",
				conflict.Error(), r.Package, c.pass.Pkg.Path(), conflict.Added)
			there, thereEnd := r.Fact.Entry.In(c.pass.Fset)
			c.add(e.EntryPos, e.Value.End(), ConflictingRegistration,
				[]reporting.Related{{Pos: there, End: thereEnd, Message: fmt.Sprintf("%s, by %s (%s)", RegisteredFirst, r.Package, r.Fact.Map)}}, "%s", msg)
			c.conflict(e.Name, there, e.EntryPos)
			if there.IsValid() {
				c.add(there, thereEnd, ConflictingRegistration,
					[]reporting.Related{{Pos: e.EntryPos, End: e.Value.End(), Message: fmt.Sprintf("%s, by %s (%s)", RegisteredAgain, c.pass.Pkg.Path(), e.Map)}}, "%s", msg)
			}
		}
	}
}

// conflict records, as data, the conflict the finding just added
// reports: one whose first registration has no known place, or whose
// second is in a test file, is not reported (reporting.Report), and
// not recorded.
func (c *checker) conflict(gate string, first, again token.Pos) {
	if !first.IsValid() || strings.HasSuffix(c.pass.Fset.Position(again).Filename, "_test.go") {
		return
	}
	c.conflictList = append(c.conflictList, Conflict{Gate: gate, First: first, Again: again, Message: c.out[len(c.out)-1].Message})
}

// overwritten reports whether an index assignment replaces entry e in
// its map before the map is registered.
func (c *checker) overwritten(e *featuregates.Gate) bool {
	return slices.ContainsFunc(c.res.Entries, func(o *featuregates.Gate) bool { return o != e && o.Name == e.Name && o.Overwrites(e) })
}
