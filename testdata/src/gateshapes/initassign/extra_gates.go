// want package:"5 gates"

package initassign

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

// A fork's file, sorted before the upstream-like list: its init still runs
// after the list's variables are initialised, so its entries win.
func init() {
	versionedGates[EventedPLEG] = featuregate.VersionedSpecs{
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta},
	}
	unversionedGates[OldStyle] = featuregate.FeatureSpec{Default: true, PreRelease: featuregate.Beta}
	versionedGates[Changed] = featuregate.VersionedSpecs{
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta},
	}
	versionedGates[Opaque] = loadHistory()
	// Every map here is read in full, so an unknown name is still a finding.
	gateDependencies[Changed] = []featuregate.Feature{EventedPLEG, "Nowhere"} // want `Changed depends on Nowhere, which no feature map declares`
}
