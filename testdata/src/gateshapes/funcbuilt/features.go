// want package:"3 gates"

// Package funcbuilt builds its feature maps in functions rather than
// writing one literal: what plegvet can read it reads, what it cannot it
// says, at the place.
package funcbuilt

import (
	"maps"

	"gateshapes/funcbuilt/registry"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	Built   featuregate.Feature = "Built"   // want Built:`gate Built \[1.35 Alpha off\]`
	Wrapped featuregate.Feature = "Wrapped" // want Wrapped:`gate Wrapped \[1.35 Beta on\]`
	Old     featuregate.Feature = "Old"     // want Old:`gate Old \[Alpha off\]`
)

type named struct {
	name  featuregate.Feature
	specs featuregate.VersionedSpecs
}

var extra []named

// Filled by constant-key assignments (read), then by a loop (not).
var builtGates = buildGates()

func buildGates() map[featuregate.Feature]featuregate.VersionedSpecs {
	m := make(map[featuregate.Feature]featuregate.VersionedSpecs)
	m[Built] = featuregate.VersionedSpecs{{Version: version.MustParse("1.35"), PreRelease: featuregate.Alpha}}
	for _, n := range extra {
		m[n.name] = n.specs // want `an entry of feature map buildGates could not be read: key n.name is not a constant string`
	}
	return m
}

// A function literal called in place is read like a function.
var wrappedGates = func() map[featuregate.Feature]featuregate.VersionedSpecs {
	m := map[featuregate.Feature]featuregate.VersionedSpecs{}
	m[Wrapped] = featuregate.VersionedSpecs{{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}}
	return m
}()

// Another package's function: its entries are not in this package.
var loadedGates = registry.Gates() // want `feature map loadedGates could not be read: the map is built by the call registry.Gates\(\); plegvet reads literal entries and index assignments only`

var oldGates = map[featuregate.Feature]featuregate.FeatureSpec{
	Old: {PreRelease: featuregate.Alpha},
}

// Copied in from a call: unreadable too.
func init() {
	maps.Copy(builtGates, registry.Gates()) // want `feature map builtGates could not be read: maps.Copy adds a map built by the call registry.Gates\(\)`
}

// adapt re-keys the gates its caller passes: it declares none, and what
// it adds was read where the caller's map is.
func adapt(in map[string]featuregate.FeatureSpec) map[featuregate.Feature]featuregate.FeatureSpec {
	out := map[featuregate.Feature]featuregate.FeatureSpec{}
	for name, spec := range in {
		out[featuregate.Feature(name)] = spec
	}
	return out
}

var _ = adapt

// Some map above could not be read, so a name no literal declares may be
// in it: no dependency-unknown.
var gateDependencies = map[featuregate.Feature][]featuregate.Feature{
	Built: {"FromRegistry"},
}
