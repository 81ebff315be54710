// Gate dependencies against component-base's AddDependencies rules:
// unknown gates, a dependent ahead of what it depends on, and cycles.

package featuregate

import (
	"cmp"
	"fmt"
	"go/token"
	"maps"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/analyzer/internal/reporting"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/analysis/check"
)

// dependencies applies component-base's AddDependencies rules.
func (c *checker) dependencies() {
	// A map that could not be read may hold any gate: an unknown name is
	// then not a finding (gate-unreadable says where); nor is a gate named
	// by a constant of another package, which can be unknown here for want
	// of facts (partially typed source).
	complete := c.res.Complete()
	unknown := func(pos token.Pos, pkg, format string, args ...any) {
		if complete && (pkg == "" || pkg == c.pass.Pkg.Path()) {
			c.add(pos, token.NoPos, DependencyUnknown, nil, format, args...)
		}
	}
	deps := map[string][]string{}
	for _, de := range c.res.DependencyEntries {
		g := c.lookup(de.Name)
		if g == nil {
			unknown(de.Entry, de.Pkg, "dependencies are listed for %s, which no feature map declares", de.Name)
			continue
		}
		for _, d := range de.Deps {
			deps[de.Name] = append(deps[de.Name], d.Name)
			if dg := c.lookup(d.Name); dg != nil {
				c.dependency(g, dg, d)
			} else {
				unknown(d.Pos, d.Pkg, "%s depends on %s, which no feature map declares", de.Name, d.Name)
			}
		}
	}
	c.cycles(deps)
}

func (c *checker) dependency(g, dg *featuregates.Gate, d featuregates.Dependency) {
	if len(dg.Specs) == 0 && dg.Unresolved != "" {
		return // its specs are unknown, not absent: nothing to compare
	}
	// Newest first, as component-base does, so the message names the
	// current state; one finding per dependency is enough.
	for i := len(g.Specs) - 1; i >= 0; i-- {
		s := g.Specs[i]
		ver := cmp.Or(s.Version, "0.0")
		ds, ok := dg.At(ver)
		// A dependency with no spec yet at this version does not exist
		// there: say so, rather than call it a pre-alpha gate.
		absent := ""
		if !ok {
			ds = featuregates.Spec{PreRelease: featuregates.PreAlpha}
			absent = fmt.Sprintf("%s, which does not exist at %s", d.Name, ver)
			if len(dg.Specs) > 0 && dg.Specs[0].Version != "" {
				absent += fmt.Sprintf(" (its first spec is at %s)", dg.Specs[0].Version)
			}
		}
		rel := []reporting.Related{{Pos: s.Start, End: s.End, Message: fmt.Sprintf("%s is %s, default %t%s", g.Name, s.PreRelease, s.Default, at(s))}}
		msg, cat := "", check.Check("")
		switch {
		case absent != "" && s.PreRelease.Stability() > ds.PreRelease.Stability():
			cat, msg = DependencyStability, fmt.Sprintf("%s gate %s depends on %s", s.PreRelease, g.Name, absent)
		case absent != "" && s.Default:
			cat, msg = DependencyDefault, fmt.Sprintf("%s is on by default%s but depends on %s", g.Name, at(s), absent)
		case absent != "" && s.LockToDefault:
			cat, msg = DependencyLock, fmt.Sprintf("%s is locked to its default%s but depends on %s", g.Name, at(s), absent)
		case s.PreRelease.Stability() > ds.PreRelease.Stability():
			cat, msg = DependencyStability, fmt.Sprintf("%s gate %s depends on %s gate %s%s", s.PreRelease, g.Name, ds.PreRelease, d.Name, at(s))
		case s.Default && !ds.Default:
			cat, msg = DependencyDefault, fmt.Sprintf("%s is on by default but depends on %s, which is off by default%s", g.Name, d.Name, at(s))
		case s.LockToDefault && !ds.LockToDefault:
			cat, msg = DependencyLock, fmt.Sprintf("%s is locked to its default but depends on %s, which is not%s", g.Name, d.Name, at(s))
		}
		if cat != "" {
			c.add(d.Pos, token.NoPos, cat, rel, "%s", msg)
			return
		}
	}
}

// lookup finds a gate by name: in this package, or through the facts of
// the package that declares the dependency's constant.
func (c *checker) lookup(name string) *featuregates.Gate {
	if g := c.res.Gate(name); g != nil {
		return g
	}
	if f := c.gates.Imported(name); f != nil {
		return f.Gate()
	}
	return nil
}

func (c *checker) cycles(deps map[string][]string) {
	state := map[string]int{} // 1 visiting, 2 done
	var path []string
	var visit func(string) bool
	visit = func(n string) bool {
		switch state[n] {
		case 1:
			cycle := append(slices.Clone(path[slices.Index(path, n):]), n)
			for _, de := range c.res.DependencyEntries {
				if de.Name == n {
					c.add(de.Entry, token.NoPos, DependencyCycle, nil, "feature gate dependencies form a cycle: %s", strings.Join(cycle, " -> "))
					break
				}
			}
			return true
		case 2:
			return false
		}
		state[n] = 1
		path = append(path, n)
		for _, d := range deps[n] {
			if visit(d) {
				return true
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
		return false
	}
	for _, n := range slices.Sorted(maps.Keys(deps)) {
		if state[n] == 0 && visit(n) {
			return // one cycle is enough to act on
		}
	}
}
