// Package featuregate stands in for component-base's featuregate package
// in plegvet's golangci-lint fixture: the types a feature map is made of.
package featuregate

import "k8s.io/apimachinery/pkg/util/version"

// Feature names a gate.
type Feature string

// prerelease is a gate's stage.
type prerelease string

// The stages a gate goes through.
const (
	Alpha      = prerelease("ALPHA")
	Beta       = prerelease("BETA")
	GA         = prerelease("")
	Deprecated = prerelease("DEPRECATED")
)

// FeatureSpec is a gate's state from one version on.
type FeatureSpec struct {
	Default       bool
	LockToDefault bool
	PreRelease    prerelease
	Version       *version.Version
}

// VersionedSpecs is a gate's history, oldest first.
type VersionedSpecs []FeatureSpec
