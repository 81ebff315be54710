// want package:"2 gates"

// Package features is shaped like pkg/features in v1.31, which kept an
// unversioned map beside the versioned one and registered both: a gate
// in both is two registrations, which component-base compares as lists,
// the unversioned spec at version 0.0.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	Moved featuregate.Feature = "Moved" // want Moved:`gate Moved \[Beta on\]`
	Kept  featuregate.Feature = "Kept"  // want Kept:`gate Kept \[GA on\]`
)

var defaultKubernetesFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{
	Moved: {Default: true, PreRelease: featuregate.Beta},
	Kept:  {Default: true, PreRelease: featuregate.GA},
}

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	// The same stage and default, at 1.31: not the spec at 0.0.
	Moved: { // want `feature gate Moved is declared again in defaultVersionedKubernetesFeatureGates with different specs; component-base refuses the second`
		{Version: version.MustParse("1.31"), Default: true, PreRelease: featuregate.Beta},
	},
	// At 0.0: the same.
	Kept: {
		{Version: version.MajorMinor(0, 0), Default: true, PreRelease: featuregate.GA},
	},
}
