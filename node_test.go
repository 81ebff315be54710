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
				NodeFiles: NodeFiles{
					Configz: filepath.Join(captures, "configz", tc.configz),
					Metrics: filepath.Join(captures, "metrics", tc.metrics),
					Crictl:  filepath.Join(captures, "crictl", "containerd.json"),
					// The runtime's source is fetched with the go command,
					// which -short keeps off the network.
					SkipRuntimeSource: testing.Short(),
				},
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

// Node on the captures of real kubelets (nodeverdict/testdata/real: see
// nodeverdict's TestRealCaptures), with the gate and the periods read from
// each kubelet's own release and the runtime judged from its own source,
// both fetched with the go command: every scrape's verdict is the state
// the kubelet logged, from the first scrape it answered.
func TestNodeRealCaptures(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes and containerd releases")
	}
	for _, tc := range []struct {
		dir, want string
		// before is the verdict of the scrapes numbered below until,
		// taken before the kubelet gave its stream up.
		before string
		until  int
	}{
		{"v1.36.5/gate-on-debian", "fell-back", "", 0},
		{"v1.36.5/gate-on-built", "evented", "", 0},
		{"v1.37.2/gate-on-debian", "fell-back", "", 0},
		{"v1.36.5/runtime-restart", "fell-back", "evented", 7},
		{"v1.37.2/runtime-restart", "fell-back", "generic-with-event-hints", 8},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("nodeverdict", "testdata", "real", filepath.FromSlash(tc.dir))
			scrapes, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9].txt"))
			if len(scrapes) == 0 {
				t.Fatalf("no scrapes in %s", dir)
			}
			for i, s := range scrapes {
				want := tc.want
				if i < tc.until {
					want = tc.before
				}
				rep, err := Node(context.Background(), NodeOptions{NodeFiles: NodeFiles{
					Configz: filepath.Join(dir, "configz.json"), Metrics: s, Crictl: filepath.Join(dir, "crictl.txt"),
				}})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Verdict != want {
					t.Errorf("%s: %s; want %s", filepath.Base(s), rep.Verdict, want)
					for _, r := range rep.Reasons {
						t.Logf("  %v [%s] %s", r.Agrees != nil && *r.Agrees, r.Points, r.Claim)
					}
				}
			}
		})
	}
}
