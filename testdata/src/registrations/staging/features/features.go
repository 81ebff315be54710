// want package:"3 gates"

// Package features is shaped like a staging module's gate list (the
// generic API server's): its init registers its map, so the map is
// registered before that of any package importing it.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

const (
	// Relisted by kube/features with the same specs: no finding.
	ResponseCompression featuregate.Feature = "ResponseCompression" // want ResponseCompression:`gate ResponseCompression \[1.16 Beta on\]`

	// Relisted by kube/features with another default: a finding here
	// and there.
	WatchCache featuregate.Feature = "WatchCache" // want WatchCache:`gate WatchCache \[1.20 Alpha off, 1.24 Beta on\]`

	// Relisted with the same specs, MinCompatibilityVersion and all: no
	// finding.
	SkewSafe featuregate.Feature = "SkewSafe" // want SkewSafe:`gate SkewSafe \[1.35 Beta off, 1.35 Beta on, 1.37 GA on locked\]`
)

func init() {
	_ = utilfeature.DefaultMutableFeatureGate.AddVersioned(serverGates)
}

var serverGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	ResponseCompression: {
		{Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.Beta},
	},
	WatchCache: { // want `feature gate "WatchCache" with different spec already exists: \[\{false false ALPHA 1.20 <nil>\} \{true false BETA 1.24 <nil>\}\]: registered by registrations/staging/features, then by registrations/kube/features with \[\{false false ALPHA 1.20 <nil>\} \{false false BETA 1.24 <nil>\}\]; component-base refuses the second`
		{Version: version.MustParse("1.20"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.24"), Default: true, PreRelease: featuregate.Beta},
	},
	SkewSafe: {
		{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.35")},
		{Version: version.MustParse("1.37"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	},
}
