package nodeverdict

import (
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
)

// nodeInfoWant is what a node's runtime version should be, for errors.
const nodeInfoWant = "NAME://VERSION, as status.nodeInfo.containerRuntimeVersion has it (containerd://1.7.27)"

// RuntimeFromNodeInfo reads a node's status.nodeInfo.containerRuntimeVersion
// (containerd://1.7.27, cri-o://1.30.2, docker://24.0.7 for cri-dockerd)
// into a Runtime, as ReadCrictl reads crictl version's output. Name names
// the node, for errors. A runtime outside KnownRuntimes is not an error
// (Runtime.Known is false); a version without a name is.
//
// The node does not report the CRI version the runtime answers with; it
// is v1 when the kubelet is v1.26 or later (kubeletVersion, as the node
// reports it), because such a kubelet speaks only CRI v1 and got the
// version over it, and "" (unknown) otherwise.
func RuntimeFromNodeInfo(name, containerRuntimeVersion, kubeletVersion string) (*Runtime, error) {
	runtime, version, ok := strings.Cut(strings.TrimSpace(containerRuntimeVersion), "://")
	if !ok || strings.TrimSpace(runtime) == "" {
		return nil, captureError(name, "containerRuntimeVersion %q has no runtime name; want %s", shortValue(containerRuntimeVersion), nodeInfoWant)
	}
	rt := &Runtime{ReportedBy: ReportedByNodeInfo, Name: strings.TrimSpace(runtime), Version: strings.TrimSpace(version)}
	if v, ok := kubeversion.ParseKubelet(kubeletVersion); ok && (v.Major > 1 || v.Major == 1 && v.Minor >= 26) {
		rt.APIVersion = "v1"
	}
	rt.Known = slices.Contains(KnownRuntimes(), rt.Name)
	return rt, nil
}
