package plegvet

import (
	"context"
	"path/filepath"
	"testing"
)

// Node on the look-alike checkout: the gate's default comes from its
// source at the kubelet's version, and the metrics decide agreement.
func TestNodeLookAlike(t *testing.T) {
	captures := filepath.Join("nodeverdict", "testdata")
	for _, tc := range []struct {
		configz, metrics string
		verdict          string
		explicit, value  bool
	}{
		{"unset.json", "generic.txt", "generic", false, false},
		{"off.json", "generic.txt", "generic", true, false},
		{"on.json", "evented.txt", "evented", true, true},
		{"unset.json", "evented.txt", "inconsistent", false, false},
	} {
		t.Run(tc.configz+"+"+tc.metrics, func(t *testing.T) {
			rep, err := Node(context.Background(), NodeOptions{
				Options: Options{Dir: "testdata/src/k8s.io/kubernetes"},
				Configz: filepath.Join(captures, "configz", tc.configz),
				Metrics: filepath.Join(captures, "metrics", tc.metrics),
				Crictl:  filepath.Join(captures, "crictl", "containerd.json"),
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tc.verdict || rep.Gate.Explicit != tc.explicit || rep.Gate.Value != tc.value {
				t.Errorf("verdict %s, gate explicit %t value %t; want %s, %t, %t", rep.Verdict, rep.Gate.Explicit, rep.Gate.Value, tc.verdict, tc.explicit, tc.value)
			}
			if rep.Gate.Default == nil || *rep.Gate.Default {
				t.Errorf("default %v, want false from the look-alike's pkg/features", rep.Gate.Default)
			}
			if len(rep.Reasons) == 0 {
				t.Error("no reasons")
			}
		})
	}
}
