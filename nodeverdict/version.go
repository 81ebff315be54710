package nodeverdict

import (
	"fmt"
	"regexp"
)

// kubeletVersionRE matches a kubelet's git version: a release, maybe an
// upstream pre-release, then maybe a vendor's or a build's suffix
// (v1.36.1-eks-4f4795d, v1.36.1+k3s1, v1.37.0-alpha.1.120+0123abcd).
var kubeletVersionRE = regexp.MustCompile(`^v?(1\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-(?:alpha|beta|rc)\.(?:0|[1-9]\d*))?)(?:[-+.].*)?$`)

// Release returns the Kubernetes release whose source a kubelet of this
// version was built from: v1.36.1 for v1.36.1-eks-4f4795d. Its error says
// what was expected, without naming where the version came from.
func Release(kubeletVersion string) (string, error) {
	m := kubeletVersionRE.FindStringSubmatch(kubeletVersion)
	if m == nil {
		return "", fmt.Errorf("%q is not a kubelet version; want v1.MINOR.PATCH, such as v1.36.1, maybe with a suffix", kubeletVersion)
	}
	return "v" + m[1], nil
}
