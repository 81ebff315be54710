package pleg_test

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"go/types"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/analysis/check"
	"github.com/plegvet/plegvet/plegperiods"
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// A shared analysis is one analysistest.Run for several tests: loading
// the look-alike packages from source, with the standard library they
// import, is what takes the time, and each test reads its own packages'
// results. What the run reports against the fixture's expectations is
// kept, and reported by each test that reads the package it is about.
type shared struct {
	a        *analysis.Analyzer
	patterns []string

	once    sync.Once
	dir     string
	results []*analysistest.Result
	errs    []string
}

// fixture is pleg.Analyzer on every package its tests read but the notes.
var fixture = &shared{a: pleg.Analyzer, patterns: []string{
	"k8s.io/kubernetes/pkg/kubelet",
	"k8s.io/kubernetes/pkg/kubelet/pleg",
	"oldtree/pkg/kubelet",
	"newtree/pkg/kubelet",
	"kubeletforks/...",
}}

// notes is the analyzer with the note on, on the notes.
var notes = &shared{a: pleg.New(pleg.Config{Note: true}), patterns: []string{"notes/..."}}

// Errorf keeps what analysistest.Run reports.
func (s *shared) Errorf(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// run returns the results of the packages that patterns (import paths,
// or a path with "/..." for those under it) match, with their test
// packages, as analysistest.Run on those patterns alone returns them;
// it reports to t what the run reported about them, or about no package.
func (s *shared) run(t *testing.T, patterns ...string) []*analysistest.Result {
	t.Helper()
	s.once.Do(func() {
		s.dir = testdata(t)
		s.results = analysistest.Run(s, s.dir, s.a, s.patterns...)
	})
	matchOne := func(p, path string) bool {
		if base, ok := strings.CutSuffix(p, "/..."); ok {
			return path == base || strings.HasPrefix(path, base+"/")
		}
		return path == p
	}
	matches := func(path string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { return matchOne(p, path) })
	}
	for _, e := range s.errs {
		if p, ok := s.about(e); !ok || matches(p) {
			t.Error(e)
		}
	}
	var out []*analysistest.Result
	found := map[string]bool{}
	for _, r := range s.results {
		path := r.Action.Package.PkgPath
		if p, ok := strings.CutSuffix(path, "_test"); ok {
			path = p
		} else if p, ok := strings.CutSuffix(path, ".test"); ok {
			path = p
		}
		if matches(path) {
			out = append(out, r)
			for _, p := range patterns {
				if matchOne(p, path) {
					found[p] = true
				}
			}
		}
	}
	for _, p := range patterns {
		if !found[p] {
			t.Fatalf("the shared run analysed no package %s: add it to its patterns %v", p, s.patterns)
		}
	}
	return out
}

// about returns the package that a report of analysistest.Run is about:
// the directory of the file it starts with (relative to the GOPATH's src,
// or not), or the package of the action it names.
func (s *shared) about(msg string) (string, bool) {
	if file, _, ok := strings.Cut(msg, ":"); ok && strings.HasSuffix(file, ".go") && !strings.Contains(file, " ") {
		file = strings.TrimPrefix(filepath.ToSlash(file), filepath.ToSlash(filepath.Join(s.dir, "src"))+"/")
		return path.Dir(file), true
	}
	if rest, ok := strings.CutPrefix(msg, "error analyzing "); ok {
		if _, id, ok := strings.Cut(rest, "@"); ok {
			if j := strings.IndexAny(id, " :"); j >= 0 {
				return id[:j], true
			}
		}
	}
	return "", false
}

func durationOf(v *plegperiods.Value) string {
	if !v.Resolved() {
		if v == nil {
			return "none"
		}
		return "unresolved"
	}
	return v.Value
}

// modes summarises a package's two modes: "off=1s/3m0s on=5m0s/10m0s fallback=1s retries=5".
func modes(r *plegperiods.Relist) string {
	if r == nil {
		return "no PLEG"
	}
	s := "off=" + durationOf(r.GateOff.Period) + "/" + durationOf(r.GateOff.Threshold)
	if u := r.GateUnresolved; u != nil {
		return s + " gate unresolved: " + u.Expr
	}
	if r.GateOn == nil {
		return s + " no gate"
	}
	s += " gate=" + r.Gate.Name + " on=" + durationOf(r.GateOn.Period) + "/" + durationOf(r.GateOn.Threshold)
	s += " fallback=" + durationOf(r.GateOn.Fallback)
	if r.GateOn.Retries.Resolved() {
		s += " retries=" + r.GateOn.Retries.Value
	} else if r.GateOn.Retries != nil {
		s += " retries=unresolved"
	}
	return s
}

func TestAnalyzer(t *testing.T) {
	t.Parallel()
	results := fixture.run(t,
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
		"kubeletforks/gateinit":         "off=1s/3m0s gate=EventedPLEG on=5m0s/10m0s fallback=1s retries=5",
		"kubeletforks/undeclaredgate":   "off=1s/3m0s gate unresolved: utilfeature.DefaultFeatureGate.Enabled(features.EventPLEG)",

		"kubeletforks/relisttrigger/pkg/kubelet": "off=1s/3m0s gate=EventedPLEG on=1s/3m0s fallback=none retries=5",
		"kubeletforks/unguarded/pkg/kubelet":     "off=2s/1m0s gate=EventedPLEG on=2s/1m0s fallback=none retries=3",
		"kubeletforks/unknownrole/pkg/kubelet":   "off=1s/3m0s gate=EventedPLEG on=1m0s/5m0s fallback=1s retries=4",
		"kubeletforks/barefallback/pkg/kubelet":  "off=1s/3m0s gate=EventedPLEG on=5m0s/10m0s fallback=1s",
		"kubeletforks/constfallback/pkg/kubelet": "off=1s/none gate=EventedPLEG on=1m0s/none fallback=2s retries=3",
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
	t.Parallel()
	notes.run(t, "notes/...")
}

// An analyzer with the note and one without run at once on one fixture,
// and the flag of one sets that one only. The fixture is the one TestNote
// loads, and every run analyses those same packages: the four
// configurations at once, three times each.
func TestConfigurationsCoexist(t *testing.T) {
	t.Parallel()
	flagged := pleg.New(pleg.DefaultConfig())
	if err := flagged.Flags.Set("note", "true"); err != nil {
		t.Fatal(err)
	}
	var pkgs []*packages.Package
	for _, r := range notes.run(t, "notes/kubelet") {
		pkgs = append(pkgs, r.Action.Package)
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
				res, err := checker.Analyze([]*analysis.Analyzer{tc.a}, pkgs, &checker.Options{SanityCheck: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Roots) != 1 || res.Roots[0].Err != nil {
					t.Fatalf("analysing notes/kubelet: %d results", len(res.Roots))
				}
				for _, d := range res.Roots[0].Diagnostics {
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

func TestUnresolvedReasons(t *testing.T) {
	t.Parallel()
	results := fixture.run(t, "kubeletforks/flagperiod")
	r := results[0].Action.Result.(*pleg.Result).Relist
	for _, c := range []struct {
		v    *plegperiods.Value
		want string
	}{
		{r.GateOn.Period, "cfg.RelistPeriod is a field, set at run time"},
		{r.GateOn.Fallback, "cfg.RelistPeriod * 100 is not a compile-time constant"},
		{r.GateOn.Retries, "retries() is computed by a call"},
	} {
		if !strings.Contains(c.v.Unresolved, c.want) {
			t.Errorf("unresolved = %q, want it to say %q", c.v.Unresolved, c.want)
		}
	}
}

// A gate test behind a variable, helper or field is followed to the
// Enabled call; the diagnostics sit at the if that tests it.
func TestGateFollowed(t *testing.T) {
	t.Parallel()
	results := fixture.run(t, "kubeletforks/gatelocal", "kubeletforks/gatehelper", "kubeletforks/gatenegated", "kubeletforks/gatefield")
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
	t.Parallel()
	results := fixture.run(t, "kubeletforks/gateunfollowed")
	res := results[0].Action.Result.(*pleg.Result)
	u := res.Relist.GateUnresolved
	if u == nil {
		t.Fatal("no unresolved gate")
	}
	if !u.Holds || !strings.Contains(u.Unresolved, "parameter of NewMainKubelet") {
		t.Errorf("unresolved gate %s", u)
	}
	if res.Relist.Gate != nil || res.Relist.GateOn != nil {
		t.Errorf("gate %v, on %v: want none when unresolved", res.Relist.Gate, res.Relist.GateOn)
	}
	if res.Relist.GateOff.Generic == nil || res.Relist.GateOff.Period.Int() != int64(time.Second) {
		t.Errorf("off mode %+v, want the generic PLEG of the else path", res.Relist.GateOff)
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
	t.Parallel()
	want := map[string]string{
		"k8s.io/kubernetes/pkg/kubelet":          "role=event-source emits=evented.go:69 cache=evented.go:57 relist=- health=PLEG(generic)@59,EventedPLEG(evented)@61 failure=restore-generic-relist@evented.go:34",
		"kubeletforks/relisttrigger/pkg/kubelet": "role=relist-trigger emits=- cache=- relist=evented.go:44 [CONTAINER_STOPPED_EVENT] gate=RelistOnDemand health=PLEG(generic)@39 failure=stop-watching@evented.go:33",
		"kubeletforks/unguarded/pkg/kubelet":     "role=relist-trigger emits=- cache=- relist=pleg.go:88 [all] gate= health=relist(generic)@25,stream(evented)@28 failure=stop-watching@pleg.go:83",
		"kubeletforks/unknownrole/pkg/kubelet":   "role=unknown emits=- cache=- relist=- health= failure=restore-generic-relist@pleg.go:89",
		"kubeletforks/barefallback/pkg/kubelet":  "role=event-source emits=evented.go:47 cache=- relist=- health= failure=restore-generic-relist@evented.go:33",
		"kubeletforks/gatefield":                 "role=event-source emits=evented.go:69 cache=evented.go:57 relist=- health= failure=restore-generic-relist@evented.go:34",
		"newtree/pkg/kubelet":                    "role=unknown emits=- cache=- relist=- health= failure=stop-watching@pleg.go:68",
		"oldtree/pkg/kubelet":                    "role=none emits=- cache=- relist=- health= failure=",
	}
	var pkgs []string
	for p := range want {
		pkgs = append(pkgs, p)
	}
	results := fixture.run(t, pkgs...)
	seen := 0
	for _, r := range results {
		w, ok := want[r.Action.Package.PkgPath]
		if !ok {
			continue
		}
		seen++
		got := rowOf(r.Action.Result.(*pleg.Result)).String()
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
	t.Parallel()
	results := fixture.run(t, "kubeletforks/unknownrole/pkg/kubelet", "kubeletforks/relisttrigger/pkg/kubelet", "kubeletforks/barefallback/pkg/kubelet")
	for _, r := range results {
		e := r.Action.Result.(*pleg.Result).Evented
		switch r.Action.Package.PkgPath {
		case "kubeletforks/unknownrole/pkg/kubelet":
			if !e.Constructed.IsValid() || !strings.Contains(e.Why, "sends no *pleg.PodLifecycleEvent and asks the generic PLEG for no relist") {
				t.Errorf("unknown role: why %q", e.Why)
			}
			if after := e.OnStreamFailure.After; after == nil || after.Value == nil || *after.Value != 4 {
				t.Errorf("retries %+v, want 4", after)
			}
		case "kubeletforks/relisttrigger/pkg/kubelet":
			q := e.RequestsRelist
			if q == nil || q.Callee != "GenericPLEG.RequestRelist" || filepath.Base(q.GatePos.File) != "generic.go" || q.Guard.Line != 41 {
				t.Errorf("relist request %+v", q)
			}
			if e.HealthCheck != nil {
				t.Errorf("an evented health check %+v, want none", e.HealthCheck)
			}
		case "kubeletforks/barefallback/pkg/kubelet":
			// The relist forced on a stream error goes through the
			// evented PLEG's Relist to the generic PLEG's, by interface.
			if f := e.RelistOnStreamError; f == nil || f.Relist != "GenericPLEG.Relist" || f.Pos.Line != 40 {
				t.Errorf("relist forced on a stream error %+v, want GenericPLEG.Relist at evented.go:40", f)
			}
		}
	}
}

// A fork's init turning the gate on is part of the answer: each write,
// where and in which function.
func TestGateSetInCode(t *testing.T) {
	t.Parallel()
	for _, r := range fixture.run(t, "kubeletforks/gateinit") {
		var got []string
		for _, w := range r.Action.Result.(*pleg.Result).Relist.GateSetInCode {
			got = append(got, fmt.Sprintf("%s=%t@%d(%s)", w.Gate, *w.On, w.Pos.Line, w.Func))
		}
		want := "EventedPLEG=true@16(init),EventedPLEG=true@17(init)"
		if strings.Join(got, ",") != want {
			t.Errorf("gate set in code: %q\nwant %q", got, want)
		}
	}
}

// Facts cross packages gob-encoded (go vet): what the evented PLEG's
// event loop does must survive the trip.
func TestConstructorFactGob(t *testing.T) {
	t.Parallel()
	results := fixture.run(t, "kubeletforks/relisttrigger/pkg/kubelet/pleg", "k8s.io/kubernetes/pkg/kubelet/pleg")
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
			if out.String() != in.String() || !reflect.DeepEqual(out.Evented, in.Evented) {
				t.Errorf("%s: after gob\n%+v\nwant\n%+v", c.Func.Name(), out.Evented, in.Evented)
			}
			if in.Evented != nil {
				loops++
			}
		}
	}
	if loops != 2 {
		t.Errorf("%d evented constructors, want 2", loops)
	}
}
