package features // want package:"2 gates"

// A test double of client-go's own copy of the feature-gate API: its own
// Feature and VersionedSpecs types, no import of component-base. Kube
// binaries register its gates with component-base's gate through an
// adapter.

import "k8s.io/apimachinery/pkg/util/version"

type Feature string

type prerelease string

const (
	Alpha      = prerelease("ALPHA")
	Beta       = prerelease("BETA")
	GA         = prerelease("")
	Deprecated = prerelease("DEPRECATED")
)

type FeatureSpec struct {
	Default       bool
	LockToDefault bool
	PreRelease    prerelease
	Version       *version.Version
}

type VersionedSpecs []FeatureSpec

// VersionedRegistry is what the adapter passes in.
type VersionedRegistry interface {
	AddVersioned(map[Feature]VersionedSpecs) error
}

// AddVersionedFeaturesToExistingFeatureGates registers the gates below.
func AddVersionedFeaturesToExistingFeatureGates(r VersionedRegistry) error {
	return r.AddVersioned(clientGates)
}
