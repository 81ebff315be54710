// want package:"1 gates"

// Package undefinedkey registers a gate under a name its names package
// never declares: the key does not resolve, and plegvet must not list a
// gate for it.
package undefinedkey

import (
	"k8s.io/component-base/featuregate"

	"gateshapes/undefinedkey/names"
)

var gates = map[featuregate.Feature]featuregate.FeatureSpec{
	names.Declared: {Default: false, PreRelease: featuregate.Alpha},
	names.Missing:  {Default: true, PreRelease: featuregate.Beta}, // want `an entry of feature map gates could not be read: key names.Missing is an undefined name: gateshapes/undefinedkey/names declares no Missing`
}
