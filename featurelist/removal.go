package featurelist

import (
	"fmt"

	"github.com/plegvet/plegvet/featuregates"
)

// Removal is a gate a committed list holds that the code no longer
// declares, which the release's feature-list tool refuses to drop: Why is
// its words ("feature X cannot be removed while in beta").
type Removal struct {
	Gate string
	Line int // the gate's line in the list
	Why  string
}

// Removals applies the tool's removal rule (verifyFeatureRemoval) to the
// gates of committed that declared does not hold, at the Current version:
// only the last spec counts;
// an Alpha gate may go at any time, a Beta one never, a GA or Deprecated
// one once locked to its default and RemovalMinors minors after that spec
// (at once if the spec is at or before ExemptThrough). The tool stops at
// the first refusal; every one is returned here, in the list's order.
func (g Generator) Removals(committed []featuregates.Gate, declared func(name string) bool) []Removal {
	curMajor, curMinor, _ := majorMinor(g.Current)
	var out []Removal
	refuse := func(lg featuregates.Gate, format string, args ...any) {
		out = append(out, Removal{Gate: lg.Name, Line: lg.Entry.Line, Why: fmt.Sprintf(format, args...)})
	}
	for _, lg := range committed {
		if declared(lg.Name) {
			continue
		}
		if len(lg.Specs) == 0 {
			refuse(lg, "feature %s has no version specs", lg.Name)
			continue
		}
		last := lg.Specs[len(lg.Specs)-1]
		switch last.PreRelease {
		case "Alpha":
		case "Beta":
			refuse(lg, "feature %s cannot be removed while in beta", lg.Name)
		case "GA", "Deprecated":
			if !last.LockToDefault {
				refuse(lg, "feature %s cannot be removed because it is in GA or Deprecated state and is not locked to default", lg.Name)
				continue
			}
			major, minor, ok := majorMinor(last.Version)
			if !ok {
				refuse(lg, "invalid version %q for feature %s", last.Version, lg.Name)
				continue
			}
			if g.ExemptThrough != "" && compareMajorMinor(last.Version, g.ExemptThrough) <= 0 {
				continue
			}
			// Numbers, not text parsed again: a minor near the 32-bit
			// limit plus RemovalMinors is no version kubeversion parses.
			if until := minor + g.RemovalMinors; curMajor < major || curMajor == major && curMinor < until {
				refuse(lg, "feature %s cannot be removed until version %d.%d (required for emulation support)", lg.Name, major, until)
			}
		}
	}
	return out
}
