// Package initassign sets gates from init, outside the map literals, as a
// fork may do to add or change a gate without touching upstream's list.
package initassign

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	Listed featuregate.Feature = "Listed" // want Listed:`gate Listed \[1.35 Beta on\]`

	// Set only in init, in each format.
	EventedPLEG featuregate.Feature = "EventedPLEG" // want EventedPLEG:`gate EventedPLEG \[1.26 Alpha off, 1.35 Beta on\]`
	OldStyle    featuregate.Feature = "OldStyle"    // want OldStyle:`gate OldStyle \[Beta on\]`

	// Listed, then changed by init: init runs after the literal, so its
	// spec is the one in force, and no conflict.
	Changed featuregate.Feature = "Changed" // want Changed:`gate Changed \[1.35 Beta on\]$`

	// Set from a value plegvet does not evaluate: a gate, spec unknown.
	Opaque featuregate.Feature = "Opaque" // want Opaque:`gate Opaque \[\] unresolved: spec history is built by the call loadHistory`
)

var versionedGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Listed:  {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
	Changed: {{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha}},
}

var unversionedGates = map[featuregate.Feature]featuregate.FeatureSpec{}

var gateDependencies = map[featuregate.Feature][]featuregate.Feature{
	Listed: {EventedPLEG},
}

func loadHistory() featuregate.VersionedSpecs { return nil }
