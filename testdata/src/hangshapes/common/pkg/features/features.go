// Package features is a look-alike of the kubelet's feature gates.
package features

// Feature names a gate.
type Feature string

// PodAndContainerStatsFromCRI has the CRI answer every stat.
const PodAndContainerStatsFromCRI Feature = "PodAndContainerStatsFromCRI"

// Gates answers whether a gate is on.
type Gates interface {
	Enabled(f Feature) bool
}

// DefaultFeatureGate holds the gates the node was started with.
var DefaultFeatureGate Gates
