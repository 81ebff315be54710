// Package featuregate is a test double of the feature-gate API: the names
// and constant values plegvet recognises, and nothing behind them.
package featuregate

import "k8s.io/apimachinery/pkg/util/version"

type Feature string

type prerelease string

const (
	PreAlpha   = prerelease("PRE-ALPHA")
	Alpha      = prerelease("ALPHA")
	Beta       = prerelease("BETA")
	GA         = prerelease("")
	Deprecated = prerelease("DEPRECATED")
)

type FeatureSpec struct {
	Default                 bool
	LockToDefault           bool
	PreRelease              prerelease
	Version                 *version.Version
	MinCompatibilityVersion *version.Version
}

type VersionedSpecs []FeatureSpec

type FeatureGate interface {
	Enabled(key Feature) bool
}

type MutableVersionedFeatureGate interface {
	FeatureGate
	Add(map[Feature]FeatureSpec) error
	AddVersioned(map[Feature]VersionedSpecs) error
	AddDependencies(map[Feature][]Feature) error
	// Set and SetFromMap turn gates on or off: "A=true,B=false".
	Set(value string) error
	SetFromMap(m map[string]bool) error
}
