package nodeverdict

import "strings"

// crictlWant is what a crictl file should be, for error messages.
const crictlWant = "the output of crictl version -o json (keys version, runtimeName, runtimeVersion, runtimeApiVersion)"

// KnownRuntimes are the runtimeName values plegvet recognises: containerd,
// CRI-O, and cri-dockerd, which reports "docker".
var KnownRuntimes = []string{"containerd", "cri-o", "docker"}

// Where a Runtime was read (Runtime.ReportedBy).
const (
	ReportedByCrictl   = "crictl-version"
	ReportedByNodeInfo = "node-info"
)

// Runtime is the container runtime, as crictl version (or the Node
// object) reports it.
type Runtime struct {
	// ReportedBy says where the runtime was read: "crictl-version" (crictl on
	// the node) or "node-info" (the Node object's status.nodeInfo, no CRI
	// version: APIVersion is then inferred from the kubelet's version).
	ReportedBy string `json:"reportedBy"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	APIVersion string `json:"apiVersion"`
	// KubeletAPIVersion is crictl's "version": the version of the
	// kubelet runtime API the runtime answers with (0.1.0 in practice).
	KubeletAPIVersion string `json:"kubeletApiVersion"`
	// Known says whether Name is one of KnownRuntimes.
	Known bool `json:"known"`
	// StreamsEvents is whether the runtime's own source, at this version,
	// serves CRI GetContainerEvents as a stream; null when not judged.
	// Module is the module read (module@version) and Pos the method that
	// decides (file:line within it); StreamsWhy says why, or why not known.
	StreamsEvents *bool  `json:"streamsEvents"`
	Module        string `json:"module"`
	Pos           string `json:"pos"`
	StreamsWhy    string `json:"streamsWhy"`
}

// ReadCrictl reads the output of crictl version -o json. Name is the
// file's name, for errors. A runtimeName outside KnownRuntimes is not an
// error (Runtime.Known is false); a missing or empty one is.
func ReadCrictl(name string, data []byte) (*Runtime, error) {
	obj, err := decodeJSONObject(name, data, crictlWant)
	if err != nil {
		return nil, err
	}
	str := func(key string, required bool) (string, error) {
		v, ok := obj[key]
		if !ok && !required {
			return "", nil
		}
		if !ok {
			return "", captureError(name, "no %q (found %s); want %s", key, keys(obj), crictlWant)
		}
		s, ok := v.(string)
		if !ok {
			return "", captureError(name, "%s is %s; want a string, as in %s", key, kind(v), crictlWant)
		}
		if required && strings.TrimSpace(s) == "" {
			return "", captureError(name, "%s is empty; want %s", key, crictlWant)
		}
		return s, nil
	}
	rt := &Runtime{ReportedBy: ReportedByCrictl}
	if rt.Name, err = str("runtimeName", true); err != nil {
		return nil, err
	}
	if rt.APIVersion, err = str("runtimeApiVersion", true); err != nil {
		return nil, err
	}
	if rt.Version, err = str("runtimeVersion", false); err != nil {
		return nil, err
	}
	if rt.KubeletAPIVersion, err = str("version", false); err != nil {
		return nil, err
	}
	for _, k := range KnownRuntimes {
		if rt.Name == k {
			rt.Known = true
		}
	}
	return rt, nil
}
