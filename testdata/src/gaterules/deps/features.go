// want package:"9 gates"

// Package deps breaks each of component-base's dependency rules once.
package deps

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	"AlphaOff": {{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha}},
	"BetaOn":   {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
	"BetaOff":  {{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Beta}},
	"GALocked": {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}},
	"Stable":   {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.GA}},
	"CycleA":   {{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha}},
	"CycleB":   {{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha}},
	// OnEarly is on from 1.30; Later, which it needs, first exists at 1.35.
	"OnEarly": {{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta}},
	"Later":   {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
}

var dependencies = map[featuregate.Feature][]featuregate.Feature{
	"AlphaOff":   {},
	"BetaOff":    {"AlphaOff"},   // want `Beta gate BetaOff depends on Alpha gate AlphaOff at 1.35`
	"BetaOn":     {"BetaOff"},    // want `BetaOn is on by default but depends on BetaOff, which is off by default at 1.35`
	"GALocked":   {"Stable"},     // want `GALocked is locked to its default but depends on Stable, which is not at 1.35`
	"Stable":     {"Undeclared"}, // want `Stable depends on Undeclared, which no feature map declares`
	"CycleA":     {"CycleB"},     // want `feature gate dependencies form a cycle: CycleA -> CycleB -> CycleA`
	"CycleB":     {"CycleA"},
	"OnEarly":    {"Later"}, // want `Beta gate OnEarly depends on Later, which does not exist at 1.30 \(its first spec is at 1.35\)`
	"Undeclared": {},        // want `dependencies are listed for Undeclared, which no feature map declares`
}
