// want package:"3 gates"

// Package unresolved builds specs in ways plegvet does not evaluate: it
// must say so, not guess.
package unresolved

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	Computed featuregate.Feature = "Computed" // want Computed:`gate Computed \[\]`

	FlagDefault featuregate.Feature = "FlagDefault" // want FlagDefault:`gate FlagDefault \[1.30 Beta off \(unresolved\)\]`

	Appended featuregate.Feature = "Appended" // want Appended:`gate Appended \[\]`
)

var defaultOn = true

func betaSpec() featuregate.FeatureSpec { return featuregate.FeatureSpec{PreRelease: featuregate.Beta} }

var base = featuregate.VersionedSpecs{}

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Computed:    {betaSpec()},
	FlagDefault: {{Version: version.MustParse("1.30"), Default: defaultOn, PreRelease: featuregate.Beta}},
	Appended:    append(base, featuregate.FeatureSpec{}),
}
