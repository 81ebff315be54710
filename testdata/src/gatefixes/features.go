// want package:"2 gates"

// Package gatefixes breaks the two rules whose fix is obvious.
package gatefixes

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	"Eager": {
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Alpha}, // want `feature gate Eager is Alpha but on by default at 1.36`
	},
	"Patched": {
		{Version: version.MustParse("1.35.2"), Default: false, PreRelease: featuregate.Alpha}, // want `Version 1.35.2 names a patch release; use 1.35`
	},
}
