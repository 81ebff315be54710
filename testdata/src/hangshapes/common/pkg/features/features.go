// Package features is a look-alike of the kubelet's feature gates.
package features

// Feature names a gate.
type Feature string

// PodAndContainerStatsFromCRI has the CRI answer every stat.
const PodAndContainerStatsFromCRI Feature = "PodAndContainerStatsFromCRI"

// Enabled reports whether a gate is on.
func Enabled(f Feature) bool { return false }
