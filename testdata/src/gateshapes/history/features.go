// want package:"2 gates"

// Package history has the rarer spec shapes: two specs at one version told
// apart by MinCompatibilityVersion, and a spec kept in a variable.
package history

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	FractionalRange featuregate.Feature = "FractionalRange" // want FractionalRange:`gate FractionalRange \[1.37 Beta off, 1.37 Beta on\]`

	Shared featuregate.Feature = "Shared" // want Shared:`gate Shared \[1.30 Beta on\]`
)

var sharedBeta = featuregate.FeatureSpec{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta}

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	FractionalRange: {
		{Version: version.MustParse("1.37"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.37")},
	},
	Shared: {sharedBeta},
}
