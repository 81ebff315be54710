package featuregates

import "github.com/plegvet/plegvet/internal/extract/kubeversion"

// Version is a Kubernetes major.minor[.patch] version, as gate specs
// write it.
type Version = kubeversion.Version

// ParseVersion reads "1.26", "v1.26.3" or "1.26.0-beta.0". The
// pre-release part is dropped: a gate's spec applies by minor version.
func ParseVersion(s string) (Version, bool) {
	v, ok := kubeversion.Parse(s)
	v.Pre = ""
	return v, ok
}
