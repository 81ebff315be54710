package nodeverdict

import (
	"strings"
	"testing"
)

func TestRuntimeFromNodeInfo(t *testing.T) {
	for _, tc := range []struct {
		version, kubelet string
		name, v, api     string
		known            bool
	}{
		{"containerd://1.7.27", "v1.36.1", "containerd", "1.7.27", "v1", true},
		{"cri-o://1.30.2", "v1.30.4+k3s1", "cri-o", "1.30.2", "v1", true},
		{"docker://24.0.7", "v1.25.16", "docker", "24.0.7", "", true},
		{"pouch://1.4.0", "v1.26.0", "pouch", "1.4.0", "v1", false},
		{" containerd://2.0.4-1ubuntu1 ", "garbage", "containerd", "2.0.4-1ubuntu1", "", true},
	} {
		rt, err := RuntimeFromNodeInfo("node-1", tc.version, tc.kubelet)
		if err != nil {
			t.Fatalf("%q: %v", tc.version, err)
		}
		if rt.Name != tc.name || rt.Version != tc.v || rt.APIVersion != tc.api || rt.Known != tc.known || rt.ReportedBy != ReportedByNodeInfo {
			t.Errorf("RuntimeFromNodeInfo(%q, %q) = %+v; want %s %s CRI %q known %t", tc.version, tc.kubelet, rt, tc.name, tc.v, tc.api, tc.known)
		}
		// What ReadCrictl reads of the same runtime, the same way.
		crictl, err := ReadCrictl("v.json", []byte(`{"runtimeName": "`+tc.name+`", "runtimeVersion": "`+tc.v+`", "runtimeApiVersion": "v1"}`))
		if err != nil || crictl.Known != rt.Known || crictl.Name != rt.Name {
			t.Errorf("crictl reads %+v (%v); node info %+v", crictl, err, rt)
		}
	}
	for _, bad := range []string{"", "1.7.27", "://1.7.27", "containerd 1.7.27"} {
		_, err := RuntimeFromNodeInfo("node-1", bad, "v1.36.1")
		if err == nil || !strings.HasPrefix(err.Error(), "node-1: containerRuntimeVersion ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

// The evidence names where the runtime was read: a node's status carries
// no crictl output.
func TestRuntimeEvidenceNamesItsSource(t *testing.T) {
	rt, err := RuntimeFromNodeInfo("node-1", "containerd://1.7.27", "v1.36.1")
	if err != nil {
		t.Fatal(err)
	}
	d := Decide(Input{Runtime: rt})
	found := false
	for _, r := range d.Reasons {
		if strings.Contains(r.Evidence, "crictl") {
			t.Errorf("reason %q cites crictl for a runtime read from the node's status", r.Evidence)
		}
		if strings.Contains(r.Evidence, `status.nodeInfo.containerRuntimeVersion "containerd://1.7.27"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no reason cites status.nodeInfo: %+v", d.Reasons)
	}
}
