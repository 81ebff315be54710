package nodeverdict

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// The captures under testdata/real were made by real kubelets (v1.36.5
// and v1.37.2, built from their module source by tools/kubeletcheck's
// harness, standalone) against Debian's containerd 1.6.20, whose CRI
// server answers GetContainerEvents with Unimplemented, and against a
// containerd 2.1.4 built from its module, which streams: a configz, a
// crictl version, and a metrics scrape every half second from the first
// the kubelet answered (NNN.txt), trimmed to the lines of the families the
// verdict reads (the real bytes of those lines). The scenario's name says
// the state the kubelet logged: gate-on-debian gave the stream up (v1.36.5
// logged its fallback before its first scrape; v1.37.2 stopped watching
// after scrape 000), gate-on-built streamed throughout.
//
// Each scrape is decided with facts shaped like the release's source (the
// root package's TestNodeRealCaptures reads them from the release itself)
// and the runtime as its own source judges it.
func TestRealCaptures(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		periods Periods
		// runtime is the runtime's version as crictl reports it, and
		// judged how its source judges it.
		version string
		judged  *Runtime
		want    string
		// before is the verdict of the scrapes numbered below until:
		// those taken before the kubelet gave its stream up.
		before string
		until  int
	}{
		{"v1.36.5/gate-on-debian", release36, "1.6.20~ds1", debian16, FellBack, "", 0},
		{"v1.36.5/gate-on-built", release36, "2.1.4+unknown", streaming2, Evented, "", 0},
		{"v1.37.2/gate-on-debian", release37, "1.6.20~ds1", debian16, FellBack, "", 0},
		// containerd stopped for 5s under a running pod after scrape 006
		// (tools/kubeletcheck's cmd/restarttable): the kubelet logged
		// its fallback (evented.go:194) 11ms after the stream broke,
		// before scrape 007, whose error counter first reads 5.
		{"v1.36.5/runtime-restart", release36, "2.1.4+unknown", streaming2, FellBack, Evented, 7},
		// The same on v1.37.2: the watcher stopped before scrape 008;
		// relists failed until containerd's client reconnected, each
		// attempt observing one second more (2s to 8s).
		{"v1.37.2/runtime-restart", release37, "2.1.4+unknown", streaming2, FellBack, GenericWithEventHints, 8},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "real", filepath.FromSlash(tc.dir))
			cfg := readFile(t, dir, "configz.json", ReadConfigz)
			rt := readFile(t, dir, "crictl.txt", ReadCrictl)
			// The runtime as crictl reports it, judged as its source is.
			if rt.Name != "containerd" || rt.Version != tc.version || rt.APIVersion != "v1" || !rt.Known {
				t.Fatalf("crictl.txt reads %+v; want containerd %s on CRI v1", rt, tc.version)
			}
			rt.StreamsEvents, rt.Module, rt.Pos, rt.StreamsWhy = tc.judged.StreamsEvents, tc.judged.Module, tc.judged.Pos, tc.judged.StreamsWhy
			scrapes, _ := filepath.Glob(filepath.Join(dir, "[0-9][0-9][0-9].txt"))
			sort.Strings(scrapes)
			if len(scrapes) < 10 {
				t.Fatalf("%d scrapes in %s", len(scrapes), dir)
			}
			g := Gate{Name: "EventedPLEG", SpecWords: "Alpha, default false since 1.26", Built: true, TestWords: "the kubelet tests it"}
			g.Value, g.Explicit = cfg.Gate("EventedPLEG")
			g.Default = &falseVal
			for i, s := range scrapes {
				m := readFile(t, filepath.Dir(s), filepath.Base(s), ReadMetrics)
				g.KubeletVersion = m.KubeletVersion
				want := tc.want
				if i < tc.until {
					want = tc.before
				}
				d := Decide(Input{Gate: g, Periods: tc.periods, Metrics: *m, Runtime: rt})
				if d.Verdict != want {
					t.Errorf("%s: %s; want %s", filepath.Base(s), d.Verdict, want)
					logReasons(t, d)
				}
				checkNoClaim(t, d, "should run the evented PLEG", "obtained event streams")
				if tc.periods.Role == RoleRelistTrigger {
					checkNoClaim(t, d, "falls back", "fall back")
				}
				// Without crictl, from the scrape whose counters show the
				// stream given up (or open), the metrics alone say the same.
				if m.StreamErrors != nil && m.StreamSuccesses != nil && *m.StreamErrors+*m.StreamSuccesses > 0 {
					if d := Decide(Input{Gate: g, Periods: tc.periods, Metrics: *m}); d.Verdict != want {
						t.Errorf("%s without crictl: %s; want %s", filepath.Base(s), d.Verdict, want)
						logReasons(t, d)
					}
				}
			}
		})
	}
}

func readFile[T any](t *testing.T, dir, name string, read func(string, []byte) (*T, error)) *T {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	v, err := read(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
