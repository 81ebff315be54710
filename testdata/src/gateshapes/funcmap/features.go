// want package:"1 gates"

// Package funcmap returns its feature map from a function, as some
// staging modules do, and keeps its specs in []FeatureSpec.
package funcmap

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	ContextualLogging featuregate.Feature = "ContextualLogging" // want ContextualLogging:`gate ContextualLogging \[1.24 Alpha off, 1.30 Beta on\]`
)

func featureGates() map[featuregate.Feature]featuregate.VersionedSpecs {
	return map[featuregate.Feature]featuregate.VersionedSpecs{
		ContextualLogging: {
			{Version: version.MustParse("1.24"), Default: false, PreRelease: featuregate.Alpha},
			{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta},
		},
	}
}

func init() { _ = featureGates() }
