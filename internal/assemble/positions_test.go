package assemble

import (
	"path/filepath"
	"testing"
)

// In the module cache, each staging file is in its own module at the
// staging version.
func TestModuleFile(t *testing.T) {
	name := moduleFile(filepath.FromSlash("/cache"), "v1.36.1")
	for in, want := range map[string]string{
		"pkg/kubelet/kubelet.go":                                        "/cache/k8s.io/kubernetes@v1.36.1/pkg/kubelet/kubelet.go",
		"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto":      "/cache/k8s.io/cri-api@v0.36.1/pkg/apis/runtime/v1/api.proto",
		"staging/src/k8s.io/component-base/featuregate/feature_gate.go": "/cache/k8s.io/component-base@v0.36.1/featuregate/feature_gate.go",
	} {
		if got := name(in); got != filepath.FromSlash(want) {
			t.Errorf("%s in the module cache: %s, want %s", in, got, want)
		}
	}
}
