// want package:"6 gates"

// Package features is shaped like pkg/features: it registers gates of its
// own, and relists gates of the staging-like packages it imports, which
// component-base takes only when the specs are the same.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	logfeatures "registrations/legacy/features"
	serverfeatures "registrations/staging/features"
)

const (
	EventedPLEG featuregate.Feature = "EventedPLEG" // want EventedPLEG:`gate EventedPLEG \[1.26 Alpha off\]`
)

func init() {
	_ = utilfeature.DefaultMutableFeatureGate.AddVersioned(kubeGates)
}

var kubeGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	EventedPLEG: {
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
	},

	// Relisted here to get a conflict if it is changed.
	serverfeatures.ResponseCompression: {
		{Version: version.MajorMinor(1, 16), Default: true, PreRelease: featuregate.Beta},
	},
	serverfeatures.WatchCache: { // want `feature gate "WatchCache" with different spec already exists: \[\{false false ALPHA 1.20 <nil>\} \{true false BETA 1.24 <nil>\}\]: registered by registrations/staging/features, then by registrations/kube/features with \[\{false false ALPHA 1.20 <nil>\} \{false false BETA 1.24 <nil>\}\]; component-base refuses the second`
		{Version: version.MustParse("1.20"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.24"), Default: false, PreRelease: featuregate.Beta},
	},
	serverfeatures.SkewSafe: {
		{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.35")},
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	},

	// The unversioned staging map's gates, relisted in this versioned
	// map: component-base compares them as lists, the unversioned spec
	// at version 0.0.
	logfeatures.StructuredLogs: { // want `feature gate "StructuredLogs" with different spec already exists: \[\{true false BETA 0.0 <nil>\}\]: registered by registrations/legacy/features, then by registrations/kube/features with \[\{true false BETA 1.28 <nil>\}\]; component-base refuses the second`
		{Version: version.MustParse("1.28"), Default: true, PreRelease: featuregate.Beta},
	},
	logfeatures.FlatLogs: {
		{Version: version.MajorMinor(0, 0), Default: true, PreRelease: featuregate.GA},
	},
}
