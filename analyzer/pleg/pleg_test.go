package pleg_test

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/check"
	"github.com/plegvet/plegvet/plegperiods"
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func durationOf(v *plegperiods.Value) string {
	if !v.Resolved() {
		if v == nil {
			return "none"
		}
		return "unresolved"
	}
	return time.Duration(v.Int).String()
}

// modes summarises a package's two modes: "off=1s/3m0s on=5m0s/10m0s fallback=1s retries=5".
func modes(r *plegperiods.Relist) string {
	if r == nil {
		return "no PLEG"
	}
	s := "off=" + durationOf(r.Off.Period) + "/" + durationOf(r.Off.Threshold)
	if u := r.GateUnresolved; u != nil {
		return s + " gate unresolved: " + u.Expr
	}
	if r.On == nil {
		return s + " no gate"
	}
	s += " gate=" + r.Gate + " on=" + durationOf(r.On.Period) + "/" + durationOf(r.On.Threshold)
	s += " fallback=" + durationOf(r.On.Fallback)
	if r.On.Retries.Resolved() {
		s += " retries=" + strings.TrimSuffix(time.Duration(r.On.Retries.Int).String(), "ns")
	} else if r.On.Retries != nil {
		s += " retries=unresolved"
	}
	return s
}

func TestAnalyzer(t *testing.T) {
	results := analysistest.Run(t, testdata(t), pleg.Analyzer,
		"k8s.io/kubernetes/pkg/kubelet",
		"oldtree/pkg/kubelet",
		"newtree/pkg/kubelet",
		"kubeletforks/...",
	)
	want := map[string]string{
		"k8s.io/kubernetes/pkg/kubelet": "off=1s/3m0s gate=EventedPLEG on=5m0s/10m0s fallback=1s retries=5",
		"oldtree/pkg/kubelet":           "off=1s/3m0s no gate",
		"newtree/pkg/kubelet":           "off=1s/3m0s gate=EventedPLEG on=1s/3m0s fallback=none retries=5",
		"kubeletforks/earlyreturn":      "off=2s/1m0s gate=EventedPLEG on=1m0s/10m0s fallback=2s retries=3",
		"kubeletforks/flagperiod":       "off=1s/3m0s gate=EventedPLEG on=unresolved/10m0s fallback=unresolved retries=unresolved",
		"kubeletforks/droppedfallback":  "off=1s/3m0s gate=EventedPLEG on=5m0s/10m0s fallback=none retries=5",
		"kubeletforks/netgone":          "off=1s/3m0s gate=EventedPLEG on=none/none fallback=unresolved retries=5",
		"kubeletforks/gatelocal":        "off=1s/3m0s gate=EventedPLEG on=2m0s/6m0s fallback=2m0s retries=4",
		"kubeletforks/gatehelper":       "off=3s/2m0s gate=EventedPLEG on=none/none fallback=unresolved retries=2",
		"kubeletforks/gatenegated":      "off=1s/3m0s gate=EventedPLEG on=0s/1h0m0s fallback=1s retries=5",
		"kubeletforks/gatefield":        "off=1s/3m0s gate=EventedPLEG on=1m30s/5m0s fallback=1m30s retries=5",
		"kubeletforks/gateunfollowed":   "off=1s/3m0s gate unresolved: kl.streamEvents",

		"kubeletforks/relisttrigger/pkg/kubelet": "off=1s/3m0s gate=EventedPLEG on=1s/3m0s fallback=none retries=5",
		"kubeletforks/unguarded/pkg/kubelet":     "off=2s/1m0s gate=EventedPLEG on=2s/1m0s fallback=none retries=3",
		"kubeletforks/unknownrole/pkg/kubelet":   "off=1s/3m0s gate=EventedPLEG on=1m0s/5m0s fallback=1s retries=4",
	}
	seen := 0
	for _, r := range results {
		w, ok := want[r.Action.Package.PkgPath]
		if !ok {
			continue
		}
		seen++
		res := r.Action.Result.(*pleg.Result)
		if got := modes(res.Relist); got != w {
			t.Errorf("%s: %s\nwant %s", r.Action.Package.PkgPath, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d of %d packages", seen, len(want))
	}
}

// With note set, the gate's test carries what turning it on does; the
// gate's stage comes from gatefacts, without featuregate's checks.
func TestNote(t *testing.T) {
	analysistest.Run(t, testdata(t), pleg.New(pleg.Config{Note: true}), "notes/...")
}

// An analyzer with the note and one without run at once on one fixture,
// and the flag of one sets that one only.
func TestConfigurationsCoexist(t *testing.T) {
	flagged := pleg.New(pleg.DefaultConfig())
	if err := flagged.Flags.Set("note", "true"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		a     *analysis.Analyzer
		notes int
	}{
		{"default", pleg.New(pleg.DefaultConfig()), 0},
		{"note", pleg.New(pleg.Config{Note: true}), 1},
		{"note by flag", flagged, 1},
		{"Analyzer", pleg.Analyzer, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for range 3 {
				notes := 0
				results := analysistest.Run(ignoreExpectations{}, testdata(t), tc.a, "notes/kubelet")
				if len(results) != 1 || results[0].Err != nil {
					t.Fatalf("analysing notes/kubelet: %d results", len(results))
				}
				for _, d := range results[0].Diagnostics {
					if d.Category == string(pleg.GateNote) {
						notes++
					}
				}
				if notes != tc.notes {
					t.Fatalf("%d gate notes, want %d", notes, tc.notes)
				}
			}
		})
	}
}

// ignoreExpectations is for runs that compare configurations: the
// fixture's expectations are one configuration's.
type ignoreExpectations struct{}

func (ignoreExpectations) Errorf(string, ...any) {}

func TestUnresolvedReasons(t *testing.T) {
	results := analysistest.Run(t, testdata(t), pleg.Analyzer, "kubeletforks/flagperiod")
	r := results[0].Action.Result.(*pleg.Result).Relist
	for _, c := range []struct {
		v    *plegperiods.Value
		want string
	}{
		{r.On.Period, "cfg.RelistPeriod is a field, set at run time"},
		{r.On.Fallback, "cfg.RelistPeriod * 100 is not a compile-time constant"},
		{r.On.Retries, "retries() is computed by a call"},
	} {
		if !strings.Contains(c.v.Unresolved, c.want) {
			t.Errorf("unresolved = %q, want it to say %q", c.v.Unresolved, c.want)
		}
	}
}

// A gate test behind a variable, helper or field is followed to the
// Enabled call; the diagnostics sit at the if that tests it.
func TestGateFollowed(t *testing.T) {
	results := analysistest.Run(t, testdata(t), pleg.Analyzer, "kubeletforks/gatelocal", "kubeletforks/gatehelper", "kubeletforks/gatenegated", "kubeletforks/gatefield")
	want := map[string]string{
		"kubeletforks/gatelocal":   "useEvents",
		"kubeletforks/gatehelper":  "pollOnly()",
		"kubeletforks/gatenegated": "disabled",
		"kubeletforks/gatefield":   "kl.streamEvents",
	}
	for _, r := range results {
		rl := r.Action.Result.(*pleg.Result).Relist
		w := want[r.Action.Package.PkgPath]
		if rl.GateVia == nil || types.ExprString(rl.GateVia) != w || rl.GateTest == nil || rl.GateUnresolved != nil {
			t.Errorf("%s: gate tested through %v, want %s", r.Action.Package.PkgPath, rl.GateVia, w)
		}
	}
}

// An unfollowed deciding test is carried, with why, and the evented
// construction is found rather than reported absent.
func TestGateUnresolved(t *testing.T) {
	results := analysistest.Run(t, testdata(t), pleg.Analyzer, "kubeletforks/gateunfollowed")
	res := results[0].Action.Result.(*pleg.Result)
	u := res.Relist.GateUnresolved
	if u == nil {
		t.Fatal("no unresolved gate")
	}
	if !u.Holds || !strings.Contains(u.Why, "parameter of NewMainKubelet") {
		t.Errorf("unresolved gate %s", u)
	}
	if res.Relist.Gate != "" || res.Relist.On != nil {
		t.Errorf("gate %q, on %v: want none when unresolved", res.Relist.Gate, res.Relist.On)
	}
	if res.Relist.Off.Generic == nil || res.Relist.Off.Period.Int != int64(time.Second) {
		t.Errorf("off mode %+v, want the generic PLEG of the else path", res.Relist.Off)
	}
	var diags []string
	for _, d := range results[0].Diagnostics {
		diags = append(diags, d.Category)
		if d.Category == string(pleg.GateTestUnresolved) && len(d.Related) != 1 {
			t.Errorf("related %v, want the evented construction", d.Related)
		}
	}
	if strings.Join(diags, ",") != "gate-test-unresolved" {
		t.Errorf("diagnostics %v", diags)
	}
	if !slices.ContainsFunc(pleg.Checks(), func(c check.Doc) bool { return c.Check == pleg.GateTestUnresolved }) {
		t.Error("gate-test-unresolved is not documented in doc.go")
	}
}

// The evented PLEG's role is read from what its event loop does, and the
// health checks from the calls registering a PLEG's Healthy.
func TestEventedRole(t *testing.T) {
	want := map[string]string{
		"k8s.io/kubernetes/pkg/kubelet":          "role=event-source emits=evented.go:69 cache=evented.go:57 relist=- health=PLEG(generic)@59,EventedPLEG(evented)@61 failure=restore-generic-relist@evented.go:34",
		"kubeletforks/relisttrigger/pkg/kubelet": "role=relist-trigger emits=- cache=- relist=evented.go:44 [CONTAINER_STOPPED_EVENT] gate=RelistOnDemand health=PLEG(generic)@39 failure=stop-watching@evented.go:33",
		"kubeletforks/unguarded/pkg/kubelet":     "role=relist-trigger emits=- cache=- relist=pleg.go:88 [all] gate= health=relist(generic)@25,stream(evented)@28 failure=stop-watching@pleg.go:83",
		"kubeletforks/unknownrole/pkg/kubelet":   "role=unknown emits=- cache=- relist=- health= failure=restore-generic-relist@pleg.go:89",
		"kubeletforks/gatefield":                 "role=event-source emits=evented.go:69 cache=evented.go:57 relist=- health= failure=restore-generic-relist@evented.go:34",
		"newtree/pkg/kubelet":                    "role=unknown emits=- cache=- relist=- health= failure=stop-watching@pleg.go:68",
		"oldtree/pkg/kubelet":                    "role=none emits=- cache=- relist=- health= failure=",
	}
	var pkgs []string
	for p := range want {
		pkgs = append(pkgs, p)
	}
	results := analysistest.Run(t, testdata(t), pleg.Analyzer, pkgs...)
	seen := 0
	for _, r := range results {
		w, ok := want[r.Action.Package.PkgPath]
		if !ok {
			continue
		}
		seen++
		e := r.Action.Result.(*pleg.Result).Evented
		fset := r.Action.Package.Fset
		got := rowOf(e, func(hc plegperiods.HealthCheck) string { return fmt.Sprint(fset.Position(hc.Pos).Line) }).String()
		if got != w {
			t.Errorf("%s:\n got %s\nwant %s", r.Action.Package.PkgPath, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("saw %d of %d packages", seen, len(want))
	}
}

// Why an unknown role is unknown, and what the relist request reads.
func TestEventedRoleDetails(t *testing.T) {
	results := analysistest.Run(t, testdata(t), pleg.Analyzer, "kubeletforks/unknownrole/pkg/kubelet", "kubeletforks/relisttrigger/pkg/kubelet")
	for _, r := range results {
		e := r.Action.Result.(*pleg.Result).Evented
		switch r.Action.Package.PkgPath {
		case "kubeletforks/unknownrole/pkg/kubelet":
			if !e.Constructed || !strings.Contains(e.Why, "sends no *pleg.PodLifecycleEvent and asks the generic PLEG for no relist") {
				t.Errorf("unknown role: why %q", e.Why)
			}
			if e.Retries == nil || e.Retries.Int != 4 {
				t.Errorf("retries %v, want 4", e.Retries)
			}
		case "kubeletforks/relisttrigger/pkg/kubelet":
			q := e.RequestsRelist
			if q == nil || q.Callee != "GenericPLEG.RequestRelist" || filepath.Base(q.GatePos.Filename) != "generic.go" || q.Guard.Line != 41 {
				t.Errorf("relist request %+v", q)
			}
			if e.HealthCheck() != nil {
				t.Errorf("an evented health check %+v, want none", e.HealthCheck())
			}
		}
	}
}

// Facts cross packages gob-encoded (go vet): the evented PLEG's event
// loop must survive the trip.
func TestConstructorFactGob(t *testing.T) {
	results := analysistest.Run(t, testdata(t), pleg.Analyzer, "kubeletforks/relisttrigger/pkg/kubelet/pleg", "k8s.io/kubernetes/pkg/kubelet/pleg")
	loops := 0
	for _, r := range results {
		for _, c := range r.Action.Result.(*pleg.Result).Constructors {
			in := &pleg.ConstructorFact{Shape: c.Shape}
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(in); err != nil {
				t.Fatal(err)
			}
			out := new(pleg.ConstructorFact)
			if err := gob.NewDecoder(&buf).Decode(out); err != nil {
				t.Fatal(err)
			}
			if out.String() != in.String() || !reflect.DeepEqual(out.EventLoop, in.EventLoop) {
				t.Errorf("%s: after gob\n%+v\nwant\n%+v", c.Name, out.EventLoop, in.EventLoop)
			}
			if in.EventLoop != nil {
				loops++
			}
		}
	}
	if loops != 2 {
		t.Errorf("%d evented constructors, want 2", loops)
	}
}
