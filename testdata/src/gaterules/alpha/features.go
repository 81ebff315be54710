// want package:"3 gates"

// Package alpha turns Alpha gates on by default; upstream's own exemption
// for WindowsHostNetwork is kept.
package alpha

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	"EagerAlpha": {
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Alpha}, // want `feature gate EagerAlpha is Alpha but on by default at 1.36`
	},
	"WindowsHostNetwork": {
		{Version: version.MustParse("1.26"), Default: true, PreRelease: featuregate.Alpha},
	},
}

var older = map[featuregate.Feature]featuregate.FeatureSpec{
	"OldEager": {Default: true, PreRelease: featuregate.Alpha}, // want `feature gate OldEager is Alpha but on by default; Alpha gates`
}
