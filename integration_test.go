package plegvet_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/load/protofile"
	"github.com/plegvet/plegvet/internal/load/release"
)

// refSpec is one spec of Kubernetes' own versioned_feature_list.yaml.
type refSpec struct {
	Default, LockToDefault    bool
	PreRelease, Version, MinC string
}

func (s refSpec) String() string {
	return fmt.Sprintf("{%s %s default=%t locked=%t min=%s}", s.Version, s.PreRelease, s.Default, s.LockToDefault, s.MinC)
}

// readFeatureList reads the reference list's regular YAML: "- name: X",
// "versionedSpecs:", then "- default: ..." blocks of scalar keys.
func readFeatureList(t *testing.T, path string) map[string][]refSpec {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]refSpec{}
	var name string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || line == "versionedSpecs:" {
			continue
		}
		if n, ok := strings.CutPrefix(line, "- name: "); ok {
			name = n
			out[name] = []refSpec{}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "- "); ok {
			out[name] = append(out[name], refSpec{})
			line = rest
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok || len(out[name]) == 0 {
			t.Fatalf("%s: unexpected line %q", path, line)
		}
		s := &out[name][len(out[name])-1]
		if uq, err := strconv.Unquote(val); err == nil {
			val = uq
		}
		switch key {
		case "default":
			s.Default = val == "true"
		case "lockToDefault":
			s.LockToDefault = val == "true"
		case "preRelease":
			s.PreRelease = val
		case "version":
			s.Version = val
		case "minCompatibilityVersion":
			s.MinC = val
		default:
			t.Fatalf("%s: unknown key %q", path, key)
		}
	}
	return out
}

func specsOf(g answer.Gate) []refSpec {
	var out []refSpec
	for _, s := range g.Specs {
		out = append(out, refSpec{Default: s.Default, LockToDefault: s.LockToDefault, PreRelease: string(s.PreRelease), Version: s.Version, MinC: s.MinCompatibilityVersion})
	}
	return out
}

func sameSpecs(a, b []refSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGatesMatchReferenceLists compares, on real releases fetched with the
// go command, every gate declared in pkg/features with the release's own
// generated list of gates.
func TestGatesMatchReferenceLists(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	for _, tc := range []struct{ version, list string }{
		{"v1.32.13", "test/featuregates_linter/test_data/versioned_feature_list.yaml"}, // empty FeatureSpec map beside the versioned one
		{"v1.33.13", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"},
		{"v1.36.1", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"}, // dependency maps
		{"v1.37.2", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"}, // lists by value, MinCompatibilityVersion
	} {
		t.Run(tc.version, func(t *testing.T) {
			rep, err := plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			mods, err := parallelFetcher.Download(context.Background(), "k8s.io/kubernetes@"+tc.version)
			if err != nil {
				t.Fatal(err)
			}
			ref := readFeatureList(t, filepath.Join(mods[0].Dir, filepath.FromSlash(tc.list)))
			compared := 0
			for _, g := range rep.Gates {
				if g.Decl == nil || !strings.HasPrefix(g.Decl.File, "pkg/features/") {
					continue // declared in another package; its own list entry is its owner's
				}
				want, ok := ref[g.Name]
				if !ok {
					want, ok = ref[g.Const] // lists up to v1.36 name gates by identifier
				}
				if !ok {
					t.Errorf("%s (%s:%d) is not in %s", g.Name, g.Decl.File, g.Decl.Line, tc.list)
					continue
				}
				compared++
				if got := specsOf(g); !sameSpecs(got, want) {
					t.Errorf("%s: specs %v, the release's list says %v", g.Name, got, want)
				}
			}
			if compared < 120 {
				t.Errorf("compared only %d gates declared in pkg/features", compared)
			}
			if len(rep.Diagnostics) != 0 {
				t.Errorf("an unmodified release has findings: %+v", rep.Diagnostics)
			}
			t.Logf("%s: %d gates compared with %s", tc.version, compared, tc.list)
		})
	}
}

// TestUnversionedGatesAgreeWithLaterHistory checks the older format, for
// which no release ships a list: v1.30's FeatureSpec map against what
// v1.32's versioned list says was in force at 1.30. Upstream rewrote some
// histories when it moved to versioned specs, so a few may differ; most
// must not.
func TestUnversionedGatesAgreeWithLaterHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: "v1.30.14"})
	if err != nil {
		t.Fatal(err)
	}
	later, err := plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: "v1.32.13"})
	if err != nil {
		t.Fatal(err)
	}
	agree, compared := 0, 0
	for _, g := range rep.Gates {
		if g.Format != "unversioned" || len(g.Specs) != 1 || g.Decl == nil {
			continue
		}
		lg := later.Gate(g.Name)
		if lg == nil {
			continue
		}
		s, ok := lg.At("1.30")
		if !ok {
			continue
		}
		compared++
		old := g.Specs[0]
		if old.Default == s.Default && old.PreRelease == s.PreRelease && old.LockToDefault == s.LockToDefault {
			agree++
		} else {
			t.Logf("%s: v1.30 says %s/%t, v1.32's history at 1.30 says %s/%t", g.Name, old.PreRelease, old.Default, s.PreRelease, s.Default)
		}
	}
	t.Logf("%d of %d gates agree", agree, compared)
	if compared < 100 || agree*100 < compared*95 {
		t.Errorf("%d of %d gates of v1.30 agree with v1.32's history at 1.30; want at least 95%% of 100 or more", agree, compared)
	}
}

// TestPeriodsOnReleases follows the relist periods of every minor from
// v1.25 to v1.37 and compares with what each release's source does (read
// by hand from the releases, independently of plegvet).
func TestPeriodsOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	type want struct {
		gate                bool
		off, on, fallback   string // "" for none
		ratio               float64
		loop                string
		offConst, onConst   string
		thresholdDeclInPleg bool
	}
	middle := want{gate: true, off: "1s", on: "5m0s", fallback: "1s", ratio: 300, loop: "wait.Until", offConst: "genericPlegRelistPeriod", onConst: "eventedPlegRelistPeriod"}
	tests := map[string]want{
		"v1.25.16": {off: "1s", loop: "wait.Until", offConst: "plegRelistPeriod", thresholdDeclInPleg: true},
		"v1.37.2":  {gate: true, off: "1s", on: "1s", ratio: 1, loop: "Reset", offConst: "genericPlegRelistPeriod", onConst: "genericPlegRelistPeriod"},
	}
	for _, v := range []string{"v1.26.15", "v1.27.16", "v1.28.15", "v1.29.6", "v1.30.14", "v1.31.14", "v1.32.13", "v1.33.13", "v1.34.4", "v1.35.4"} {
		tests[v] = middle
	}
	reset := middle
	reset.loop = "Reset"
	tests["v1.36.1"] = reset
	for version, w := range tests {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.Periods(context.Background(), plegvet.Options{Kubernetes: version})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Relist
			if len(rep.Diagnostics) != 0 {
				t.Errorf("an unmodified release has findings: %+v", rep.Diagnostics)
			}
			off := r.GateOff
			if off.Period == nil || off.Period.Value != w.off || off.Period.Const != w.offConst || off.Period.Decl == nil || off.Period.Decl.File != "pkg/kubelet/kubelet.go" {
				t.Errorf("gate-off period = %+v, want %s from %s in pkg/kubelet/kubelet.go", off.Period, w.off, w.offConst)
			}
			if off.Threshold == nil || off.Threshold.Value != "3m0s" {
				t.Errorf("gate-off threshold = %+v, want 3m0s", off.Threshold)
			} else if inPleg := off.Threshold.Decl != nil && off.Threshold.Decl.File == "pkg/kubelet/pleg/generic.go"; inPleg != w.thresholdDeclInPleg {
				t.Errorf("gate-off threshold declared at %+v", off.Threshold.Decl)
			}
			if off.LoopCall != w.loop || off.Loop == nil || !strings.HasPrefix(off.Loop.File, "pkg/kubelet/pleg/") {
				t.Errorf("relist loop = %s at %+v, want %s in pkg/kubelet/pleg", off.LoopCall, off.Loop, w.loop)
			}
			if !w.gate {
				if r.Gate != nil || r.GateOn != nil || r.Ratio != nil {
					t.Errorf("gate = %+v, gateOn = %+v, ratio = %v; want none before the evented PLEG", r.Gate, r.GateOn, r.Ratio)
				}
				return
			}
			if r.Gate == nil || r.Gate.Name != "EventedPLEG" || r.Gate.PreRelease == nil || *r.Gate.PreRelease != "Alpha" || *r.Gate.Default {
				t.Fatalf("gate = %+v, want EventedPLEG, Alpha, off by default", r.Gate)
			}
			on := r.GateOn
			if on.Period == nil || on.Period.Value != w.on || on.Period.Const != w.onConst {
				t.Errorf("gate-on period = %+v, want %s from %s", on.Period, w.on, w.onConst)
			}
			if r.Ratio == nil || *r.Ratio != w.ratio {
				t.Errorf("ratio = %v, want %v", r.Ratio, w.ratio)
			}
			switch {
			case w.fallback == "" && on.Fallback != nil:
				t.Errorf("fallback = %+v, want none", on.Fallback)
			case w.fallback != "" && (on.Fallback == nil || on.Fallback.Value != w.fallback):
				t.Errorf("fallback = %+v, want %s", on.Fallback, w.fallback)
			}
			if on.MaxStreamRetries == nil || on.MaxStreamRetries.Value == nil || *on.MaxStreamRetries.Value != 5 || on.MaxStreamRetries.Const != "eventedPlegMaxStreamRetries" {
				t.Errorf("max stream retries = %+v, want 5 from eventedPlegMaxStreamRetries", on.MaxStreamRetries)
			}
			if on.Evented == nil || on.Call == nil {
				t.Errorf("constructions: generic %+v, evented %+v", on.Call, on.Evented)
			}
			// v1.37 builds the generic PLEG once, for both modes.
			if sameCall := *on.Call == *off.Call; sameCall != (w.ratio == 1) {
				t.Errorf("gate-on call %+v, gate-off call %+v", on.Call, off.Call)
			}
		})
	}
}

// TestEventStreamOnReleases reads the CRI api.proto of releases in both
// styles (importing gogo.proto up to v0.33, without it from v0.34) and
// links it to the evented PLEG's calls.
func TestEventStreamOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	for _, tc := range []struct {
		version string
		gogo    bool
		calls   int
	}{
		{"v1.25.16", true, 0}, // the rpc exists; nothing consumes it yet
		{"v1.26.15", true, 1},
		{"v1.31.14", true, 1},
		{"v1.34.4", false, 1},
		{"v1.36.1", false, 1},
		{"v1.37.2", false, 1},
	} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.EventStream(context.Background(), plegvet.Options{Kubernetes: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Proto != plegvet.ProtoPath || len(rep.Diagnostics) != 0 {
				t.Errorf("proto %s, diagnostics %+v", rep.Proto, rep.Diagnostics)
			}
			r := rep.RPC
			if r == nil || r.Service != "RuntimeService" || r.Request != "GetEventsRequest" || r.Response != "ContainerEventResponse" || !r.ServerStreaming || r.ClientStreaming || r.Pos.File != plegvet.ProtoPath {
				t.Fatalf("rpc = %+v", r)
			}
			if len(r.EventTypes) != 4 || r.EventTypes[0].Name != "CONTAINER_CREATED_EVENT" || r.EventTypes[3].Number != 3 {
				t.Errorf("event types = %+v", r.EventTypes)
			}
			if len(r.ResponseFields) < 4 || r.ResponseFields[0].Name != "container_id" || r.ResponseFields[0].Number != 1 {
				t.Errorf("response fields = %+v", r.ResponseFields)
			}
			if len(r.GoCalls) != tc.calls {
				t.Fatalf("go calls = %+v, want %d", r.GoCalls, tc.calls)
			}
			if tc.calls > 0 {
				if r.GoCalls[0].File != "pkg/kubelet/pleg/evented.go" || r.GoClient == nil || r.GoClient.Shape != "channel" || r.GoClient.Consistent == nil || !*r.GoClient.Consistent {
					t.Errorf("go calls %+v, client %+v", r.GoCalls, r.GoClient)
				}
				if !strings.Contains(r.GoClient.Method, "k8s.io/cri-api/pkg/apis") {
					t.Errorf("method %q, want the CRI client API's", r.GoClient.Method)
				}
			}
			mods, err := parallelFetcher.Download(context.Background(), "k8s.io/cri-api@"+release.StagingVersion(tc.version))
			if err != nil {
				t.Fatal(err)
			}
			pf, err := protofile.Read(filepath.Join(mods[0].Dir, "pkg", "apis", "runtime", "v1", "api.proto"))
			if err != nil {
				t.Fatal(err)
			}
			hasGogo := false
			for _, imp := range pf.Imports {
				hasGogo = hasGogo || strings.HasSuffix(imp, "gogo.proto")
			}
			if hasGogo != tc.gogo {
				t.Errorf("imports %v; the test expected gogo.proto: %t", pf.Imports, tc.gogo)
			}
		})
	}
}

// TestNoFindingsOnReleases: every check is quiet on every unmodified
// minor from v1.25 to v1.37, and every report says which PLEG runs.
func TestNoFindingsOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	for _, v := range []string{"v1.25.16", "v1.26.15", "v1.27.16", "v1.28.15", "v1.29.6", "v1.30.14", "v1.31.14", "v1.32.13", "v1.33.13", "v1.34.4", "v1.35.4", "v1.36.1", "v1.37.2"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.Inspect(context.Background(), plegvet.Options{Kubernetes: v})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Diagnostics) != 0 {
				t.Errorf("findings on an unmodified release: %+v", rep.Diagnostics)
			}
			if rep.DefaultPLEG != "generic" || rep.SyncLoop == nil || rep.RPC == nil || rep.Summary == "" {
				t.Errorf("default %q, sync loop %v, rpc %v, summary %q", rep.DefaultPLEG, rep.SyncLoop != nil, rep.RPC != nil, rep.Summary)
			}
			wantMissing := 0
			if v == "v1.25.16" {
				wantMissing = 1 // no EventedPLEG gate yet
			}
			if len(rep.Missing) != wantMissing {
				t.Errorf("missing: %+v", rep.Missing)
			}
		})
	}
}

// parallelFetcher fetches for subtests that run at once, while other
// packages' tests fetch the same releases and hold the module cache's
// locks: on a cold cache one fetch may wait far longer than the one-fetch
// default allows, so only go test's -timeout bounds it.
var parallelFetcher = release.Fetcher{Timeout: -1}
