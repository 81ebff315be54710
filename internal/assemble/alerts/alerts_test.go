package alerts

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/plegperiods"
)

func value(v, name string, line int) *answer.Value {
	return &answer.Value{Value: v, Const: name, Decl: &answer.Pos{File: "pkg/kubelet/kubelet.go", Line: line, Column: 2}}
}

func count(n int64) *answer.RetryCount {
	return &answer.RetryCount{Value: &n, Const: "eventedPlegMaxStreamRetries", Decl: &answer.Pos{File: "pkg/kubelet/kubelet.go", Line: 221}}
}

// The three shapes of the releases: no evented PLEG (v1.25); an evented
// PLEG health-checked, with a 10m gate-on threshold and a fallback to 3m
// (v1.26-v1.36); one threshold and a watcher that stops (v1.37).
func shapes() map[string]*answer.Report {
	off := &answer.Mode{Period: value("1s", "genericPlegRelistPeriod", 215), Threshold: value("3m0s", "genericPlegRelistThreshold", 216)}
	gate := &answer.RelistGate{Name: "EventedPLEG"}
	src := func(v string) answer.Source {
		return answer.Source{Dir: "k8s.io/kubernetes@" + v, KubernetesVersion: v}
	}
	v136on := &answer.GateOnMode{Mode: answer.Mode{Period: value("5m0s", "eventedPlegRelistPeriod", 219), Threshold: value("10m0s", "eventedPlegRelistThreshold", 220)},
		Fallback: off.Period, FallbackThreshold: off.Threshold, MaxStreamRetries: count(5)}
	v137on := &answer.GateOnMode{Mode: *off, MaxStreamRetries: count(5)}
	return map[string]*answer.Report{
		"v1.25.16": {Source: src("v1.25.16"), Relist: &answer.Relist{GateOff: off}},
		"v1.36.5": {Source: src("v1.36.5"), Relist: &answer.Relist{Gate: gate, GateOff: off, GateOn: v136on},
			EventedPLEG: &answer.EventedPLEG{HealthCheck: &answer.HealthCheck{Name: "EventedPLEG", Pos: answer.Pos{File: "pkg/kubelet/kubelet.go", Line: 891}},
				OnStreamFailure: answer.StreamFailure{Action: "restore-generic-relist"}}},
		"v1.37.2": {Source: src("v1.37.2"), Relist: &answer.Relist{Gate: gate, GateOff: off, GateOn: v137on},
			EventedPLEG: &answer.EventedPLEG{OnStreamFailure: answer.StreamFailure{Action: "stop-watching"}}},
	}
}

func TestBuild(t *testing.T) {
	const (
		dark = "KubeletMetricsDark always scrape 1m0s"
		hung = "KubeletRuntimeHung always scrape 1m0s"
		down = "KubeletRuntimeDown always runtime-errors 30s"
	)
	want := map[string][]string{
		"v1.25.16": {"PLEGRelistStalled always last-seen 2m0s", "PLEGUnhealthy always last-seen 3m0s", "PLEGRelistSlow always relist-duration 1s", dark, hung, down},
		"v1.36.5": {
			"PLEGRelistStalled gate-off last-seen 2m0s", "PLEGUnhealthy gate-off last-seen 3m0s", "PLEGRelistSlow gate-off relist-duration 1s",
			"PLEGRelistStalled gate-on relist-progress 6m40s", "PLEGUnhealthy gate-on relist-progress 10m0s",
			"PLEGRelistStalled fallback relist-progress 2m0s", "PLEGUnhealthy fallback relist-progress 3m0s", "PLEGRelistSlow fallback relist-duration 1s",
			"EventedPLEGGaveUp gate-on connection-errors 5", dark, hung, down},
		"v1.37.2": {"PLEGRelistStalled always last-seen 2m0s", "PLEGUnhealthy always last-seen 3m0s", "PLEGRelistSlow always relist-duration 1s",
			"EventedPLEGGaveUp gate-on connection-errors 5", dark, hung, down},
	}
	// No ladder in the report: no latency rule.
	unwritten := map[string][]string{"v1.25.16": {"evented-gave-up", "runtime-slow"}, "v1.36.5": {"relist-slow/gate-on", "runtime-slow"}, "v1.37.2": {"runtime-slow"}}
	for v, rep := range shapes() {
		rep.Health = health()
		if e := rep.EventedPLEG; e == nil || e.HealthCheck == nil {
			rep.Health.Checks = rep.Health.Checks[:1] // no evented PLEG's check registered
		}
		a := Build(rep, answer.DefaultScrapeLayout())
		if a.Window != "1h" {
			t.Errorf("%s: window %s; want 1h (twice the longest threshold is shorter)", v, a.Window)
		}
		var got, parts []string
		for _, r := range a.Rules {
			got = append(got, strings.Join([]string{r.Alert, r.Mode, r.Signal, r.At}, " "))
			if !strings.Contains(r.Expr, `kubernetes_build_info{git_version=~"`+strings.ReplaceAll(a.Minor, ".", "[.]")+`[.].*"}`) {
				t.Errorf("%s: %s %s: not scoped to its minor: %s", v, r.Alert, r.Mode, r.Expr)
			}
		}
		for _, m := range a.Unwritten {
			parts = append(parts, m.Part)
		}
		if !reflect.DeepEqual(got, want[v]) || !reflect.DeepEqual(parts, unwritten[v]) {
			t.Errorf("%s: rules\n%q\nunwritten %q; want\n%q\nunwritten %q", v, got, parts, want[v], unwritten[v])
		}
		// The rules are kept in the answer cache as JSON: nothing is lost.
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var back answer.Alerts
		if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(&back, a) {
			t.Errorf("%s: JSON round trip: %v\n%+v\n%+v", v, err, back, *a)
		}
	}
}

// Each mode selects its kubelets: gate off unless the gate is exported
// on, gate on until the stream retries are spent, the fallback after.
func TestModeSelectors(t *testing.T) {
	a := Build(shapes()["v1.36.5"], answer.DefaultScrapeLayout())
	want := map[string][]string{
		"gate-off": {`unless on(instance, job) last_over_time(kubernetes_feature_enabled{name="EventedPLEG"}[1h]) == 1`},
		"gate-on":  {`and on(instance, job) last_over_time(kubernetes_feature_enabled{name="EventedPLEG"}[1h]) == 1`, `unless on(instance, job) last_over_time(kubelet_evented_pleg_connection_error_count[1h]) >= 5`},
		"fallback": {`and on(instance, job) last_over_time(kubernetes_feature_enabled{name="EventedPLEG"}[1h]) == 1`, `and on(instance, job) last_over_time(kubelet_evented_pleg_connection_error_count[1h]) >= 5`},
	}
	for _, r := range a.Rules {
		for _, w := range want[r.Mode] {
			if r.Kind != answer.AlertEventedGaveUp && !strings.Contains(r.Expr, w) {
				t.Errorf("%s %s: no %q in %s", r.Alert, r.Mode, w, r.Expr)
			}
		}
	}
}

// A threshold from configuration cannot be alerted on: the rule is not
// written, and the answer says why.
func TestUnresolvedThreshold(t *testing.T) {
	rep := shapes()["v1.25.16"]
	rep.Relist.GateOff.Threshold = &answer.Value{Unresolved: "cfg.Threshold is a field"}
	a := Build(rep, answer.DefaultScrapeLayout())
	for _, r := range a.Rules {
		if r.Kind == answer.AlertStalled || r.Kind == answer.AlertUnhealthy {
			t.Errorf("rule written from an unresolved threshold: %+v", r)
		}
	}
	if len(a.Unwritten) < 2 || !strings.Contains(a.Unwritten[0].Why, "cfg.Threshold is a field") {
		t.Errorf("unwritten: %+v", a.Unwritten)
	}
}

// health is v1.36.5's health rule as the report reads it: the PLEG check,
// registered always, failing at each mode's threshold, and the evented
// PLEG's, under the gate, checking its channel.
func health() *answer.Health {
	off := value("3m0s", "genericPlegRelistThreshold", 216)
	late := answer.HealthMessage{Format: "relist last ok %v ago, limit %v", Pos: answer.Pos{File: "pkg/kubelet/pleg/generic.go", Line: 247}, When: "threshold-exceeded"}
	return &answer.Health{Checks: []answer.HealthRule{
		{Name: "PLEG", PLEG: plegperiods.Generic, Rule: "relist-elapsed", Threshold: &answer.HealthThreshold{GateOff: off, GateOn: value("10m0s", "eventedPlegRelistThreshold", 220), Fallback: off},
			Messages: []answer.HealthMessage{{Format: "never relisted", When: "never-relisted"}, late},
			Records:  []plegperiods.CodeStep{{Func: "GenericPLEG.Healthy", Expr: "metrics.PLEGLastSeen.Set(float64(relistTime.Unix()))", Pos: answer.Pos{File: "pkg/kubelet/pleg/generic.go", Line: 240}}}},
		// As in the releases, the evented PLEG's check writes last-seen
		// after the relist check, on each poll.
		{Name: "EventedPLEG", PLEG: plegperiods.Evented, Rule: "event-channel-full", Gate: &plegperiods.HealthGate{Name: "EventedPLEG", On: true},
			Messages: []answer.HealthMessage{{Format: "channel full", When: "channel-full"}},
			Records:  []plegperiods.CodeStep{{Func: "EventedPLEG.Healthy", Expr: "metrics.PLEGLastSeen.Set(float64(timestamp.Unix()))", Pos: answer.Pos{File: "pkg/kubelet/pleg/evented.go", Line: 120}}}},
	}, RuntimeHang: darkHang()}
}

// darkHang is a hang whose /metrics collector lists pod sandboxes.
func darkHang() *answer.RuntimeHang {
	return &answer.RuntimeHang{Collectors: []answer.HangCollector{{Constructor: "collectors.NewLogMetricsCollector", Endpoint: "/metrics",
		Reaches: []answer.Reach{{Method: "RuntimeService.ListPodSandbox", Steps: []answer.HangStep{{Func: "RuntimeService.ListPodSandbox", Pos: answer.Pos{File: "pkg/kubelet/stats/cri_stats_provider.go", Line: 155}}}}}}},
		RuntimeDown: value("30s", "maxWaitForContainerRuntime", 77)}
}

// Each elapsed rule names the check failing at its threshold and the
// error it then returns; a check whose threshold differs from the rule's
// is not named.
func TestFailingCheck(t *testing.T) {
	rep := shapes()["v1.36.5"]
	rep.Health = health()
	a := Build(rep, answer.DefaultScrapeLayout())
	for _, r := range a.Rules {
		elapsedKind := r.Kind == answer.AlertStalled || r.Kind == answer.AlertUnhealthy
		if got := r.Message != nil && r.Check == "PLEG" && r.Message.Format == "relist last ok %v ago, limit %v"; got != elapsedKind {
			t.Errorf("%s %s: check %q message %+v", r.Alert, r.Mode, r.Check, r.Message)
		}
	}
	rep.Health.Checks[0].Threshold.GateOn = value("9m0s", "otherThreshold", 1)
	for _, r := range Build(rep, answer.DefaultScrapeLayout()).Rules {
		if (r.Mode == answer.ModeGateOn) != (r.Check == "" && r.Message == nil) && (r.Kind == answer.AlertStalled || r.Kind == answer.AlertUnhealthy) {
			t.Errorf("%s %s: check %q, want none in gate-on only", r.Alert, r.Mode, r.Check)
		}
	}
}

// A scrape layout that cannot tell the kubelet's /metrics from an endpoint
// of it that calls no runtime writes no runtime-hung rule, says why, and
// holds the elapsed rules to a target still scraped; a threshold longer
// than half the window widens it.
func TestScrapeLayout(t *testing.T) {
	rep := shapes()["v1.37.2"]
	rep.Health = health()
	a := Build(rep, answer.ScrapeLayout{Job: "kubelet"})
	for _, r := range a.Rules {
		if r.Kind == answer.AlertRuntimeHung {
			t.Errorf("runtime-hung rule written without a path label: %s", r.Expr)
		}
		if r.Kind == answer.AlertUnhealthy && (!strings.Contains(r.Expr, `and on(instance, job) (min_over_time(up{job="kubelet"}[1m]) == 1)`) || r.Dark != "") {
			t.Errorf("unhealthy rule not held to an answering /metrics alone: %s", r.Expr)
		}
	}
	if !slices.ContainsFunc(a.Unwritten, func(m answer.Missing) bool {
		return m.Part == answer.AlertRuntimeHung && strings.Contains(m.Why, "cannot be told from a kubelet that is gone")
	}) {
		t.Errorf("unwritten: %+v", a.Unwritten)
	}
	a = Build(rep, answer.ScrapeLayout{Job: "k", PathLabel: "endpoint", MetricsPath: "/m", AlivePath: "/c", NodeLabel: "node", KSMJob: "ksm"})
	var hung string
	for _, r := range a.Rules {
		if r.Kind == answer.AlertRuntimeHung {
			hung = r.Expr
		}
	}
	if !strings.HasPrefix(hung, `(max_over_time(up{job="k", endpoint="/m"}[1m]) == 0) and on(instance, job) (up{job="k", endpoint="/c"} == 1)`) {
		t.Errorf("runtime-hung rule: %q", hung)
	}
	rep.Relist.GateOff.Threshold = value("45m0s", "longThreshold", 1)
	if a := Build(rep, answer.DefaultScrapeLayout()); a.Window != "1h30m" {
		t.Errorf("window %s; want 1h30m, twice a 45m threshold", a.Window)
	}
}

// A tree whose /metrics waits on no runtime call, or whose hang was not
// read, gets no runtime-hung rule: a failing scrape would say nothing of
// its runtime.
func TestRuntimeHungOnlyWhereMetricsWait(t *testing.T) {
	for name, hang := range map[string]*answer.RuntimeHang{
		"not read":                         nil,
		"no collector reaches the runtime": {Collectors: []answer.HangCollector{{Constructor: "collectors.NewOther", Endpoint: "/metrics"}}},
		"on another endpoint":              {Collectors: []answer.HangCollector{{Endpoint: "/metrics/resource", Reaches: darkHang().Collectors[0].Reaches}}},
		"unknown shape":                    {Unknown: "pkg/kubelet registers no collector"},
	} {
		rep := shapes()["v1.37.2"]
		rep.Health = health()
		rep.Health.RuntimeHang = hang
		a := Build(rep, answer.DefaultScrapeLayout())
		for _, r := range a.Rules {
			if r.Kind == answer.AlertRuntimeHung {
				t.Errorf("%s: runtime-hung rule written: %s", name, r.Expr)
			}
		}
		if !slices.ContainsFunc(a.Unwritten, func(m answer.Missing) bool { return m.Part == answer.AlertRuntimeHung }) {
			t.Errorf("%s: unwritten %+v", name, a.Unwritten)
		}
	}
}
