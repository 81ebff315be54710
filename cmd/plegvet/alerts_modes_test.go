package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet"
)

// The failure modes a kubelet meets, each simulated second by second as
// the real ones were measured (issue 54; the real-kubelet harness): the
// runtime killed (its calls refused at once), hung (every call waits its
// deadline), one call held (ListPodSandbox), slow (every call late by a
// latency), and the evented PLEG's stream broken. Each runs against the
// rules of v1.36.5 (gate off, gate on) and v1.37.2 (one threshold), and
// promtool test rules holds every rule set to the invariants, generated
// over all modes:
//   - no alert first fires after the fault ended;
//   - no PLEG alert, and nothing critical, fires while /metrics is dark
//     and the node Ready; no dark-while-Ready warning once it is NotReady;
//   - some alert fires before the node's Ready turns False, where it does;
//   - over the whole run, exactly the alerts the mode must fire fire
//     (with their pleg_mode), and no other.
type faultKind int

const (
	faultKilled faultKind = iota
	faultHung
	faultHeld
	faultSlow
	faultStream
	// faultStatusSlow: the runtime's Status alone is slow (its own checks
	// wait), every other call answers: /metrics answers.
	faultStatusSlow
)

type faultMode struct {
	name    string
	kind    faultKind
	latency time.Duration // faultSlow: every call this late
	// last is how long the fault lasts with the gate off and with it on
	// (long enough to pass the threshold in force); 0: to the end.
	last, lastGateOn time.Duration
	// readyFalse is when the kubelet turns its node NotReady for the
	// runtime, after the fault starts (0: never for the runtime); the PLEG
	// turns it NotReady at its threshold, simulated.
	readyFalse time.Duration
	// flapsFirst: the node's Ready flaps at once, before any series can
	// show the fault (a Status call past the ladder's runtime-down rung):
	// no alert can come first.
	flapsFirst bool
	// young: the kubelet started this long before the fault, its series
	// and its node's with it (0: at the run's start): a gate-on relist
	// every 5m has then completed once, and its count never changed.
	young time.Duration
}

// kubeletShape is one release's kubelet in one mode: the relist period and
// threshold in force, whether its evented PLEG's health check overwrites
// last-seen, and what its evented PLEG does after its last stream failure.
type kubeletShape struct {
	name, version string
	gate          float64
	period        time.Duration
	threshold     time.Duration
	hidden        bool
	// fallback: after the last allowed stream failure the relist runs at
	// 1s against 3m (v1.36 gate on); plegMode the rules' mode before and
	// after.
	fallback               bool
	plegMode, fallbackMode string
}

const (
	modeStep     = 15 * time.Second
	modeHorizon  = 30 * time.Minute
	faultAt      = 5*time.Minute + 10*time.Second
	callDeadline = 2 * time.Minute
	statusPeriod = 5 * time.Second
	// healthCheckEvery is how often the kubelet's node status update runs
	// its health checks, which set kubelet_pleg_last_seen_seconds.
	healthCheckEvery = 10 * time.Second
	streamRetry      = 10 * time.Second
	maxRetries       = 5
	// kubeStateLag: kube-state-metrics' sample shows the Ready condition
	// the kubelet posted this long before.
	kubeStateLag = 10 * time.Second
)

func faultModes() []faultMode {
	return []faultMode{
		{name: "killed", kind: faultKilled, last: 6 * time.Minute, lastGateOn: 12 * time.Minute, readyFalse: 30 * time.Second},
		{name: "hung", kind: faultHung, last: 5 * time.Minute, lastGateOn: 13 * time.Minute, readyFalse: 124 * time.Second},
		// As a real v1.36.5 kubelet with EventedPLEG on lived it
		// (docs/runtime-hung-evented.md): frozen 25s after its start.
		{name: "hung 25s after the kubelet started", kind: faultHung, last: 5 * time.Minute, lastGateOn: 13 * time.Minute, readyFalse: 124 * time.Second, young: 25 * time.Second},
		{name: "one call held", kind: faultHeld, last: 5 * time.Minute, lastGateOn: 13 * time.Minute},
		{name: "slow at 6s", kind: faultSlow, latency: 6 * time.Second, last: 6 * time.Minute, lastGateOn: 6 * time.Minute},
		{name: "slow at 40s", kind: faultSlow, latency: 40 * time.Second, last: 8 * time.Minute, lastGateOn: 8 * time.Minute, readyFalse: 5*time.Minute + 40*time.Second},
		{name: "stream broken", kind: faultStream},
		// Below the runtime-down rung (25s) but past its warning (20s):
		// Ready never flaps, and the warning fires.
		{name: "Status slow at 22s", kind: faultStatusSlow, latency: 22 * time.Second, last: 10 * time.Minute, lastGateOn: 10 * time.Minute},
		{name: "Status slow at 40s", kind: faultStatusSlow, latency: 40 * time.Second, last: 10 * time.Minute, lastGateOn: 10 * time.Minute, readyFalse: 30 * time.Second, flapsFirst: true},
	}
}

// measuredHang is the hung mode with the times a real v1.37.2 kubelet
// showed (nodeverdict/testdata/real/v1.37.2/runtime-hung/moments.json,
// containerd frozen with SIGSTOP): when its Ready turned False and when the
// fault ended, after it began.
func measuredHang(t *testing.T) faultMode {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "runtime-hung", "moments.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Moments []struct {
			AfterFault string `json:"afterFault"`
			What       string `json:"what"`
		} `json:"moments"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	after := func(what string) time.Duration {
		for _, x := range m.Moments {
			if x.What == what {
				d, err := time.ParseDuration(x.AfterFault)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
		}
		t.Fatalf("moments.json: no %q", what)
		return 0
	}
	ready, end := after("Ready turns False"), after("the fault ends")
	return faultMode{name: "hung as measured", kind: faultHung, readyFalse: ready.Truncate(time.Second), last: end.Truncate(time.Second), lastGateOn: 13 * time.Minute}
}

// kubeletState is the kubelet's simulated state, second by second.
type kubeletState struct {
	relists, lpsTotal, lpsErrors, statusTotal, statusErrors float64
	lastSuccess                                             time.Duration
	// durations are the relists' durations, observed when each ends;
	// lpsTook and statusTook the ListPodSandbox and Status calls'.
	durations, lpsTook, statusTook []time.Duration
	connErrors                     float64
	fellBack                       bool
	running                        bool // the kubelet has started
	ready                          bool
	dark                           bool
	plegDown                       bool
}

// simulate runs the kubelet of shape through mode, returning its state at
// every second.
func simulate(shape kubeletShape, mode faultMode) []kubeletState {
	end := faultEnd(shape, mode)
	if end == modeHorizon {
		end += time.Second
	}
	faulty := func(s time.Duration) bool { return s >= faultAt && s < end }
	// call is a CRI call started at s: when it returns and whether it
	// succeeded.
	call := func(s time.Duration, held bool) (time.Duration, bool) {
		if !faulty(s) {
			return s, true
		}
		switch mode.kind {
		case faultStatusSlow:
			return s, true
		case faultKilled:
			return s, false
		case faultHung:
			return waitUntil(s, end)
		case faultHeld:
			if held {
				return waitUntil(s, end)
			}
		case faultSlow:
			return s + mode.latency, true
		}
		return s, true
	}
	var (
		out       = make([]kubeletState, int(modeHorizon/time.Second)+1)
		st        = kubeletState{ready: true}
		period    = shape.period
		threshold = shape.threshold
		// the relist in progress: its start, when its calls return, and
		// whether it succeeds; the next one's start.
		relistStart, relistEnd, lpsEnd time.Duration
		relistOK, lpsOK, lpsPending    bool
		nextRelist                     time.Duration
		statusStart, statusEnd         time.Duration
		statusOK                       = true
		nextStatus                     time.Duration
		inRelist, inStatus             bool
		nextRetry                      = faultAt
		started                        time.Duration
	)
	if mode.young > 0 {
		started = faultAt - mode.young
	}
	nextRelist, nextStatus, st.lastSuccess = started, started, started
	for i := range out {
		s := time.Duration(i) * time.Second
		if st.running = s >= started; !st.running {
			out[i] = st
			continue
		}
		if !inRelist && s >= nextRelist {
			inRelist, relistStart, lpsPending = true, s, true
			lpsEnd, lpsOK = call(s, true)
			relistEnd, relistOK = lpsEnd, lpsOK
			if lpsOK {
				relistEnd, relistOK = call(lpsEnd, false) // ListContainers
			}
		}
		if lpsPending && s >= lpsEnd {
			st.lpsTotal++
			st.lpsTook = append(st.lpsTook, lpsEnd-relistStart)
			if !lpsOK {
				st.lpsErrors++
			}
			lpsPending = false
		}
		if inRelist && s >= relistEnd {
			inRelist = false
			st.relists++
			st.durations = append(st.durations, relistEnd-relistStart)
			if relistOK {
				st.lastSuccess = relistStart
			}
			nextRelist = s + period
		}
		if !inStatus && s >= nextStatus {
			inStatus, statusStart = true, s
			statusEnd, statusOK = call(s, false)
			if mode.kind == faultStatusSlow && faulty(s) {
				statusEnd = s + mode.latency
			}
		}
		if inStatus && s >= statusEnd {
			inStatus = false
			st.statusTotal++
			st.statusTook = append(st.statusTook, statusEnd-statusStart)
			if !statusOK {
				st.statusErrors++
			}
			nextStatus = s + statusPeriod
		}
		// The evented PLEG's stream fails with a refusing runtime or a
		// broken stream, once per retry, up to its limit.
		if (mode.kind == faultStream || mode.kind == faultKilled) && shape.gate == 1 && faulty(s) && s >= nextRetry && st.connErrors < maxRetries {
			st.connErrors++
			nextRetry = s + streamRetry
			if st.connErrors == maxRetries && shape.fallback {
				st.fellBack, period, threshold = true, time.Second, 3*time.Minute
				nextRelist = min(nextRelist, s+period)
			}
		}
		st.plegDown = s-st.lastSuccess > threshold
		runtimeDown := mode.readyFalse > 0 && faulty(s) && s >= faultAt+mode.readyFalse
		st.ready = !runtimeDown && !st.plegDown
		// A scrape of /metrics makes several CRI calls (ListPodSandbox
		// among them), one after another: dark past its 10s timeout.
		st.dark = faulty(s) && (mode.kind == faultHung || mode.kind == faultHeld || mode.kind == faultSlow && 2*mode.latency > 10*time.Second)
		out[i] = st
		out[i].durations, out[i].lpsTook, out[i].statusTook = slices.Clip(st.durations), slices.Clip(st.lpsTook), slices.Clip(st.statusTook)
	}
	return out
}

// waitUntil is a call started at s on a runtime that answers from end: it
// fails at its deadline, or succeeds when the runtime answers again.
func waitUntil(s, end time.Duration) (time.Duration, bool) {
	if s+callDeadline <= end {
		return s + callDeadline, false
	}
	return end, true
}

// faultEnd is when mode's fault ends for shape; the horizon when it does not.
func faultEnd(shape kubeletShape, mode faultMode) time.Duration {
	d := mode.last
	if shape.plegMode == "gate-on" && mode.lastGateOn > 0 {
		d = mode.lastGateOn
	}
	if d == 0 {
		return modeHorizon
	}
	return faultAt + d
}

var modeTarget = map[string]string{"instance": "node-a:10250", "job": "kubelet", "metrics_path": "/metrics", "node": "node-a"}

// modeSeries are the series Prometheus holds for the simulated kubelet:
// its /metrics (stale while dark), up of its two endpoints, and
// kube-state-metrics' Ready condition.
func modeSeries(shape kubeletShape, states []kubeletState) []namedSeries {
	steps := int(modeHorizon / modeStep)
	at := func(i int) kubeletState { return states[i*int(modeStep/time.Second)] }
	labelled := func(name string, extra map[string]string) string {
		l := map[string]string{}
		for k, v := range modeTarget {
			l[k] = v
		}
		for k, v := range extra {
			l[k] = v
		}
		return name + labelString(l)
	}
	kubelet := func(value func(i int, st kubeletState) (float64, bool)) string {
		vs := make([]string, steps+1)
		wasDark := false
		for i := range vs {
			st := at(i)
			v, ok := value(i, st)
			switch {
			case !st.running:
				vs[i] = "_"
			case st.dark && !wasDark:
				vs[i] = "stale"
			case st.dark || !ok:
				vs[i] = "_"
			default:
				vs[i] = num(v)
			}
			wasDark = st.dark
		}
		return strings.Join(vs, " ")
	}
	var out []namedSeries
	add := func(name string, extra map[string]string, value func(i int, st kubeletState) (float64, bool)) {
		out = append(out, namedSeries{labelled(name, extra), kubelet(value)})
	}
	always := func(v float64) func(int, kubeletState) (float64, bool) {
		return func(int, kubeletState) (float64, bool) { return v, true }
	}
	add("kubernetes_build_info", map[string]string{"git_version": shape.version}, always(1))
	add("kubernetes_feature_enabled", map[string]string{"name": "EventedPLEG"}, always(shape.gate))
	add("process_start_time_seconds", nil, always(-1))
	add("kubelet_evented_pleg_connection_error_count", nil, func(_ int, st kubeletState) (float64, bool) { return st.connErrors, true })
	// The stream connected once, with the gate on; its failures end it.
	add("kubelet_evented_pleg_connection_success_count", nil, always(shape.gate))
	add("kubelet_pleg_last_seen_seconds", nil, func(i int, st kubeletState) (float64, bool) {
		if shape.hidden {
			return (time.Duration(i) * modeStep).Seconds(), true
		}
		// The kubelet sets the gauge at its health checks (each node
		// status update, every 10s), to the last relist's start then: a
		// scrape right after a relist that waited through the fault shows
		// that relist's old start, as a real kubelet's did at the end of
		// its hang.
		checked := (time.Duration(i) * modeStep) / healthCheckEvery * healthCheckEvery
		return states[int(checked/time.Second)].lastSuccess.Seconds(), true
	})
	add("kubelet_pleg_relist_duration_seconds_count", nil, func(_ int, st kubeletState) (float64, bool) { return st.relists, true })
	for _, le := range []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10} {
		add("kubelet_pleg_relist_duration_seconds_bucket", map[string]string{"le": num(le)}, func(_ int, st kubeletState) (float64, bool) {
			n := 0
			for _, d := range st.durations {
				if d.Seconds() <= le {
					n++
				}
			}
			return float64(n), true
		})
	}
	add("kubelet_pleg_relist_duration_seconds_bucket", map[string]string{"le": "+Inf"}, func(_ int, st kubeletState) (float64, bool) { return st.relists, true })
	for op, v := range map[string]func(st kubeletState) (total, errs float64){
		"list_podsandbox": func(st kubeletState) (float64, float64) { return st.lpsTotal, st.lpsErrors },
		"status":          func(st kubeletState) (float64, float64) { return st.statusTotal, st.statusErrors },
	} {
		add("kubelet_runtime_operations_total", map[string]string{"operation_type": op}, func(_ int, st kubeletState) (float64, bool) {
			t, _ := v(st)
			return t, true
		})
		// The errors counter is born with the first error.
		add("kubelet_runtime_operations_errors_total", map[string]string{"operation_type": op}, func(_ int, st kubeletState) (float64, bool) {
			_, e := v(st)
			return e, e > 0
		})
	}
	// The calls' durations, in the kubelet's own buckets (0.005 times
	// powers of 2.5, as the real scrapes have them).
	for op, took := range map[string]func(st kubeletState) []time.Duration{
		"list_podsandbox": func(st kubeletState) []time.Duration { return st.lpsTook },
		"status":          func(st kubeletState) []time.Duration { return st.statusTook },
	} {
		le := 0.005
		for range 14 {
			bound := le
			add("kubelet_runtime_operations_duration_seconds_bucket", map[string]string{"operation_type": op, "le": num(bound)}, func(_ int, st kubeletState) (float64, bool) {
				n := 0
				for _, d := range took(st) {
					if d.Seconds() <= bound {
						n++
					}
				}
				return float64(n), true
			})
			le *= 2.5
		}
		add("kubelet_runtime_operations_duration_seconds_bucket", map[string]string{"operation_type": op, "le": "+Inf"}, func(_ int, st kubeletState) (float64, bool) {
			return float64(len(took(st))), true
		})
	}
	up := func(path string, v func(st kubeletState) string) namedSeries {
		vs := make([]string, steps+1)
		for i := range vs {
			if vs[i] = "_"; at(i).running {
				vs[i] = v(at(i))
			}
		}
		return namedSeries{"up" + labelString(map[string]string{"instance": "node-a:10250", "job": "kubelet", "metrics_path": path, "node": "node-a"}), strings.Join(vs, " ")}
	}
	out = append(out, up("/metrics", func(st kubeletState) string { return map[bool]string{true: "0", false: "1"}[st.dark] }),
		up("/metrics/cadvisor", func(kubeletState) string { return "1" }))
	for _, status := range []string{"true", "false"} {
		vs := make([]string, steps+1)
		for i := range vs {
			seen := time.Duration(i)*modeStep - kubeStateLag
			if seen < 0 || !states[int(seen/time.Second)].running {
				vs[i] = "_" // no node object yet
				continue
			}
			ready := states[int(seen/time.Second)].ready
			vs[i] = map[bool]string{true: "1", false: "0"}[ready == (status == "true")]
		}
		out = append(out, namedSeries{"kube_node_status_condition" + labelString(map[string]string{"job": "kube-state-metrics", "instance": "ksm:8080", "node": "node-a", "condition": "Ready", "status": status}), strings.Join(vs, " ")})
	}
	return out
}

func labelString(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, l[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// mustFire are the alerts (alertname/pleg_mode) mode must fire on shape's
// kubelet over the run; every other must not.
func mustFire(shape kubeletShape, mode faultMode) []string {
	pleg := func(alert string, mode string) string { return alert + "/" + mode }
	switch mode.kind {
	case faultKilled:
		want := []string{"KubeletRuntimeDown/always"}
		if shape.gate == 1 && !shape.fallback {
			want = append(want, "EventedPLEGGaveUp/gate-on") // the stream fails as the runtime refuses it
		}
		switch {
		case shape.fallback:
			// The stream fails as the runtime refuses it: the evented
			// PLEG falls back, and the 3m threshold is in force.
			want = append(want, "EventedPLEGGaveUp/gate-on", pleg("PLEGRelistStalled", shape.fallbackMode), pleg("PLEGUnhealthy", shape.fallbackMode))
		default:
			want = append(want, pleg("PLEGRelistStalled", shape.plegMode), pleg("PLEGUnhealthy", shape.plegMode))
		}
		return want
	case faultHung, faultHeld:
		return []string{"KubeletMetricsDark/always", "KubeletRuntimeHung/always", pleg("PLEGUnhealthy", shape.plegMode)}
	case faultSlow:
		if mode.readyFalse > 0 {
			return []string{"KubeletMetricsDark/always", "KubeletRuntimeHung/always"}
		}
		return []string{"KubeletMetricsDark/always"}
	case faultStream:
		if shape.gate == 1 {
			return []string{"EventedPLEGGaveUp/gate-on"}
		}
	case faultStatusSlow:
		return []string{"KubeletRuntimeSlow/always"}
	}
	return nil
}

func kubeletShapes() map[string][]kubeletShape {
	return map[string][]kubeletShape{
		"v1.36.5": {
			{name: "gate off", version: "v1.36.5", gate: 0, period: time.Second, threshold: 3 * time.Minute, plegMode: "gate-off"},
			{name: "gate on", version: "v1.36.5", gate: 1, period: 5 * time.Minute, threshold: 10 * time.Minute, hidden: true, fallback: true, plegMode: "gate-on", fallbackMode: "fallback"},
		},
		"v1.37.2": {
			{name: "gate off", version: "v1.37.2", gate: 0, period: time.Second, threshold: 3 * time.Minute, plegMode: "always"},
			{name: "gate on", version: "v1.37.2", gate: 1, period: time.Second, threshold: 3 * time.Minute, plegMode: "always"},
		},
	}
}

// TestAlertRulesInEveryMode holds each release's rules to the invariants
// in every failure mode, gate off and on.
func TestAlertRulesInEveryMode(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes releases and runs promtool")
	}
	tool := promtool(t)
	for version, shapes := range kubeletShapes() {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			rules := os.Getenv("PLEGVET_TEST_RULES_" + strings.NewReplacer("v", "", ".", "_").Replace(version))
			if rules == "" { // set to hold an older plegvet's rules to the same tests
				rules = writeRules(t, dir, plegvet.Options{Kubernetes: version, CacheDir: plegvet.DefaultCacheDir()})
			}
			checkRules(t, tool, rules)
			runModeTests(t, tool, dir, rules, shapes)
		})
	}
}

type exprTest struct {
	Expr       string      `yaml:"expr"`
	EvalTime   string      `yaml:"eval_time"`
	ExpSamples []expSample `yaml:"exp_samples"`
}

type expSample struct {
	Labels string  `yaml:"labels"`
	Value  float64 `yaml:"value"`
}

// runModeTests writes one promtool test group per shape and mode, each
// with the invariants as PromQL over ALERTS, and runs them.
func runModeTests(t *testing.T, tool, dir, rules string, shapes []kubeletShape) {
	t.Helper()
	type series struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	type group struct {
		Name        string     `yaml:"name"`
		Interval    string     `yaml:"interval"`
		InputSeries []series   `yaml:"input_series"`
		ExprTests   []exprTest `yaml:"promql_expr_test"`
	}
	d := func(x time.Duration) model.Duration { return model.Duration(x) }
	bare := withoutAnnotations(t, dir, rules)
	firing := `ALERTS{alertstate="firing"}`
	for _, shape := range shapes {
		for _, mode := range append(faultModes(), measuredHang(t)) {
			states := simulate(shape, mode)
			name := shape.version + " " + shape.name + ", " + mode.name
			g := group{Name: name, Interval: d(modeStep).String()}
			for _, s := range modeSeries(shape, states) {
				g.InputSeries = append(g.InputSeries, series{s.name, s.values})
			}
			end := faultEnd(shape, mode)
			// Exactly the alerts the mode must fire fire over the run.
			var want []expSample
			for _, a := range mustFire(shape, mode) {
				name, pm, _ := strings.Cut(a, "/")
				want = append(want, expSample{fmt.Sprintf("{alertname=%q, pleg_mode=%q}", name, pm), 1})
			}
			g.ExprTests = append(g.ExprTests, exprTest{Expr: fmt.Sprintf("max by (alertname, pleg_mode) (max_over_time(%s[%s]))", firing, d(modeHorizon)), EvalTime: d(modeHorizon).String(), ExpSamples: orNone(want)})
			readyFalseAt := time.Duration(-1)
			for i := 1; i <= int(modeHorizon/modeStep); i++ {
				at := time.Duration(i) * modeStep
				seen := at - kubeStateLag
				st := states[int(at/time.Second)]
				// No PLEG alert, and nothing critical, while /metrics is
				// dark and the node Ready; once it is NotReady, the dark
				// /metrics is no longer the warning.
				switch ready := states[int(seen/time.Second)].ready; {
				case st.dark && ready:
					g.ExprTests = append(g.ExprTests, exprTest{Expr: `max by (alertname) (ALERTS{alertstate="firing", alertname=~"PLEG.*|EventedPLEG.*"} or ALERTS{alertstate="firing", severity="critical"})`, EvalTime: d(at).String(), ExpSamples: []expSample{}})
				case st.dark:
					g.ExprTests = append(g.ExprTests, exprTest{Expr: `max by (alertname) (ALERTS{alertstate="firing", alertname="KubeletMetricsDark"})`, EvalTime: d(at).String(), ExpSamples: []expSample{}})
				}
				if readyFalseAt < 0 && at >= faultAt && !states[int(seen/time.Second)].ready {
					readyFalseAt = at
				}
				// No alert first fires after the fault ended: each firing
				// then fired before it ended.
				if at > end {
					g.ExprTests = append(g.ExprTests, exprTest{
						Expr:     fmt.Sprintf("max by (alertname) (%s) unless max by (alertname) (max_over_time(%s[%s] offset %s))", firing, firing, d(end), d(at-end)),
						EvalTime: d(at).String(), ExpSamples: []expSample{},
					})
				}
			}
			// Some alert fires before the node's Ready turns False.
			if readyFalseAt > 0 && !mode.flapsFirst {
				before := readyFalseAt - modeStep
				g.ExprTests = append(g.ExprTests, exprTest{Expr: fmt.Sprintf("max(max_over_time(%s[%s]))", firing, d(before-faultAt)), EvalTime: d(before).String(), ExpSamples: []expSample{{Labels: "{}", Value: 1}}})
			}
			t.Run(shape.name+"/"+mode.name, func(t *testing.T) {
				file := struct {
					RuleFiles []string `yaml:"rule_files"`
					Eval      string   `yaml:"evaluation_interval"`
					Tests     []group  `yaml:"tests"`
				}{RuleFiles: []string{bare}, Eval: d(modeStep).String(), Tests: []group{g}}
				b, err := yaml.Marshal(file)
				if err != nil {
					t.Fatal(err)
				}
				tests := filepath.Join(dir, strings.NewReplacer(" ", "-", ",", "", "/", "-").Replace(name)+".yaml")
				if err := os.WriteFile(tests, b, 0o666); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command(tool, "test", "rules", tests).CombinedOutput(); err != nil {
					t.Fatalf("promtool test rules %s: %v\n%s", tests, err, out)
				}
			})
		}
	}
}

func orNone(s []expSample) []expSample {
	if s == nil {
		return []expSample{}
	}
	return s
}

// withoutAnnotations writes a copy of a rules file whose rules keep no
// annotations: the mode tests read ALERTS, not the words.
func withoutAnnotations(t *testing.T, dir, rules string) string {
	return editedRules(t, rules, filepath.Join(dir, "bare.yaml"), func(r map[string]any) { delete(r, "annotations") })
}
