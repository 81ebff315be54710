// One gate's spec history against component-base's AddVersioned rules,
// and plegvet's own alpha-default-on.

package featuregate

import (
	"slices"
	"strconv"

	"github.com/plegvet/plegvet/analyzer/internal/reporting"
	"github.com/plegvet/plegvet/featuregates"
)

// history applies component-base's AddVersioned rules to one gate's specs,
// and plegvet's own alpha-default-on.
func (c *checker) history(g *featuregates.Gate) {
	var last featuregates.Spec
	var lastV featuregates.Version
	was := map[featuregates.PreRelease]bool{} // the stages of the specs before
	var wasLocked bool
	for i, s := range g.Specs {
		if s.PreRelease == featuregates.Alpha && s.Default && !slices.Contains(c.exempt, g.Name) {
			c.report(AlphaDefaultOn, s, nil, "feature gate %s is Alpha but on by default%s; Alpha gates must default to false", g.Name, at(s))
			if s.DefaultValue != nil {
				c.fix("Default: false", s.DefaultValue.Pos(), s.DefaultValue.End(), "false")
			}
		}
		if g.Format != featuregates.Versioned || !c.enforces(historyRulesSince) {
			continue
		}
		if s.Unresolved != "" {
			return // what follows compares versions that are not known
		}
		if s.Version == "" {
			c.report(MissingVersion, s, nil, "feature gate %s: spec has no Version; every spec of a versioned map needs one", g.Name)
			return
		}
		v, _ := featuregates.ParseVersion(s.Version)
		if v.Patch != nil {
			c.report(PatchVersion, s, nil, "feature gate %s: Version %s names a patch release; use %s", g.Name, s.Version, v.MajorMinor())
			if s.VersionLit != nil {
				c.fix("Version "+v.MajorMinor().String(), s.VersionLit.Pos(), s.VersionLit.End(), strconv.Quote(v.MajorMinor().String()))
			}
		}
		if s.MinCompatibilityVersion != "" && c.enforces(transitionRulesSince) {
			mc, _ := featuregates.ParseVersion(s.MinCompatibilityVersion)
			switch {
			case i == 0 || last.Version != s.Version:
				c.report(MinCompatVersion, s, nil, "feature gate %s: MinCompatibilityVersion %s without a preceding spec at Version %s", g.Name, s.MinCompatibilityVersion, s.Version)
			case mc.Patch != nil:
				c.report(PatchVersion, s, nil, "feature gate %s: MinCompatibilityVersion %s names a patch release", g.Name, s.MinCompatibilityVersion)
			case v.Less(mc):
				c.report(MinCompatVersion, s, nil, "feature gate %s: MinCompatibilityVersion %s is later than Version %s", g.Name, s.MinCompatibilityVersion, s.Version)
			}
		}
		if i == 0 && s.PreRelease == featuregates.Deprecated && v.Minor != 0 {
			c.report(DeprecatedWithoutInitialState, s, nil, "feature gate %s starts Deprecated at %s; add a 1.0 spec with the state it had before", g.Name, s.Version)
		}
		if i > 0 {
			c.transition(g, last, lastV, s, v, was, wasLocked)
		}
		last, lastV = s, v
		was[s.PreRelease] = true
		wasLocked = wasLocked || s.LockToDefault
	}
}

func (c *checker) transition(g *featuregates.Gate, last featuregates.Spec, lastV featuregates.Version, s featuregates.Spec, v featuregates.Version, was map[featuregates.PreRelease]bool, wasLocked bool) {
	rel := []reporting.Related{{Pos: last.Start, End: last.End, Message: "the spec before"}}
	sameVersion := !v.Less(lastV) && !lastV.Less(v)
	switch {
	case v.Less(lastV):
		c.report(VersionOrder, s, rel, "feature gate %s: specs go back from %s to %s; list them in increasing version order", g.Name, last.Version, s.Version)
		return
	case sameVersion && (s.MinCompatibilityVersion == last.MinCompatibilityVersion || !c.enforces(transitionRulesSince)):
		c.report(DuplicateVersion, s, rel, "feature gate %s: two specs at version %s", g.Name, s.Version)
		return
	case sameVersion && s.PreRelease != last.PreRelease:
		c.report(SameVersionChange, s, rel, "feature gate %s changes stage at one version %s (%s -> %s)", g.Name, s.Version, last.PreRelease, s.PreRelease)
		return
	case sameVersion && s.LockToDefault != last.LockToDefault:
		c.report(SameVersionChange, s, rel, "feature gate %s changes LockToDefault at one version %s", g.Name, s.Version)
		return
	}
	if c.enforces(transitionRulesSince) {
		if s.PreRelease == last.PreRelease && s.Default == last.Default && s.LockToDefault == last.LockToDefault {
			c.report(TransitionWithoutChange, s, rel, "feature gate %s: the spec at %s repeats the one at %s (%s, default %t)", g.Name, s.Version, last.Version, s.PreRelease, s.Default)
		}
		if wasLocked && !s.LockToDefault {
			c.report(UnlockAfterLock, s, rel, "feature gate %s is unlocked at %s after being locked to its default", g.Name, s.Version)
		}
	}
	switch {
	case was[featuregates.Deprecated] && s.PreRelease != featuregates.Deprecated:
		c.report(DeprecatedResurrected, s, rel, "feature gate %s returns from Deprecated to %s at %s; Deprecated is final", g.Name, s.PreRelease, s.Version)
	case s.PreRelease == featuregates.Alpha && (was[featuregates.Beta] || was[featuregates.GA]), s.PreRelease == featuregates.Beta && was[featuregates.GA]:
		c.report(StabilityRegression, s, rel, "feature gate %s regresses to %s at %s", g.Name, s.PreRelease, s.Version)
	}
}

func at(s featuregates.Spec) string {
	if s.Version == "" {
		return ""
	}
	return " at " + s.Version
}
