// want package:"2 gates"

// Package conflict declares one gate in two maps with different specs.
package conflict

import "k8s.io/component-base/featuregate"

var first = map[featuregate.Feature]featuregate.FeatureSpec{
	"Twice": {Default: false, PreRelease: featuregate.Alpha},
	"Same":  {Default: true, PreRelease: featuregate.Beta},
}

var second = map[featuregate.Feature]featuregate.FeatureSpec{
	"Twice": {Default: true, PreRelease: featuregate.Beta}, // want `feature gate Twice is declared again in second with different specs`
	"Same":  {Default: true, PreRelease: featuregate.Beta},
}
