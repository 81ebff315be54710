package nodeverdict

import (
	"fmt"

	"github.com/plegvet/plegvet/internal/kubeversion"
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
