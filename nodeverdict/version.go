package nodeverdict

import (
	"fmt"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
)

// Release returns the Kubernetes release whose source a kubelet of this
// version was built from: v1.36.1 for v1.36.1-eks-4f4795d, v1.30.4 for
// v1.30.4+k3s1, v1.37.0-alpha.1 for v1.37.0-alpha.1.120+0123abcd. Its
// error says what was expected, without naming where the version came
// from.
func Release(kubeletVersion string) (string, error) {
	v, ok := kubeversion.ParseKubelet(kubeletVersion)
	if !ok {
		return "", fmt.Errorf("%q is not a kubelet version; want v1.MINOR.PATCH, such as v1.36.1, maybe with a suffix", kubeletVersion)
	}
	return v.Semver(), nil
}

// UnstampedVersion is the git_version of a kubelet built without version
// ldflags: component-base/version's default.
const UnstampedVersion = "v0.0.0-master+$Format:%H$"

// VersionUnknown says, for evidence, why a kubelet version (as where has
// it: "kubernetes_build_info's git_version") names no release: it is
// empty, a build's unstamped default, or not a kubelet version.
func VersionUnknown(where, version string) string {
	switch {
	case version == "" && where == MetricBuildInfo+"'s git_version":
		return fmt.Sprintf("no %s sample with a git_version label", MetricBuildInfo)
	case version == "":
		return where + " is empty"
	case version == UnstampedVersion:
		return fmt.Sprintf("%s %q is component-base's default, which a kubelet built without version ldflags reports", where, version)
	}
	return fmt.Sprintf("%s %q is not a kubelet version", where, version)
}
