package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

// Every panel's queries, as the dashboard writes them, evaluated by
// promtool on the series of every failure mode the rules are tested with
// (TestAlertRulesInEveryMode's kubelets, gate off and on), checked for
// the values each panel is meant to show at every minute: a query that
// returns nothing where its panel matters fails.
func TestDashboardPanelsInEveryMode(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes releases and runs promtool")
	}
	tool := promtool(t)
	for version, shapes := range kubeletShapes() {
		t.Run(version, func(t *testing.T) {
			dir := t.TempDir()
			opts := plegvet.Options{Kubernetes: version, CacheDir: plegvet.DefaultCacheDir()}
			d, err := plegvet.Dashboard(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			rules := withoutAnnotations(t, dir, writeRules(t, dir, opts))
			for _, shape := range shapes {
				for _, mode := range append(faultModes(), measuredHang(t)) {
					pc := panelChecks{d: d, shape: shape, mode: mode, states: simulate(shape, mode)}
					t.Run(shape.name+"/"+mode.name, func(t *testing.T) {
						runPanelTests(t, tool, dir, rules, shape.name+", "+mode.name, modeSeries(shape, pc.states), pc.tests(t))
					})
				}
			}
		})
	}
}

// picked are the dashboard's variables as a user picks the simulated
// kubelet's node (no cluster label: $cluster is empty).
var picked = strings.NewReplacer("$node", "node-a", "$cluster", "")

// panelChecks writes the checks of one kubelet shape in one mode.
type panelChecks struct {
	d      *answer.Dashboard
	shape  kubeletShape
	mode   faultMode
	states []kubeletState
}

// query is the panel's query for mode ("" any) whose series are
// series ("" any), the variables picked.
func (pc panelChecks) query(t *testing.T, kind, mode, series string) string {
	t.Helper()
	for _, p := range pc.d.Panels {
		for _, q := range p.Queries {
			if p.Kind == kind && (mode == "" || q.Mode == mode) && (series == "" || q.Series == series) {
				return picked.Replace(q.Expr)
			}
		}
	}
	t.Fatalf("no %s panel query for mode %q, series %q", kind, mode, series)
	return ""
}

// line is the panel's line name for mode.
func (pc panelChecks) line(t *testing.T, kind, name, mode string) float64 {
	t.Helper()
	for _, p := range pc.d.Panels {
		for _, l := range p.Lines {
			if p.Kind == kind && l.Name == name && (mode == "" || l.Mode == mode) {
				return l.At
			}
		}
	}
	t.Fatalf("no %s line %s for mode %q", kind, name, mode)
	return 0
}

// at is the kubelet's state at d.
func (pc panelChecks) at(d time.Duration) kubeletState { return pc.states[int(d/time.Second)] }

// lastScrape is the last scrape at or before d whose /metrics answered
// (-1 when none did).
func (pc panelChecks) lastScrape(d time.Duration) time.Duration {
	for u := d / modeStep * modeStep; u >= 0; u -= modeStep {
		if st := pc.at(u); st.running && !st.dark {
			return u
		}
	}
	return -1
}

// modeAt is the rules' mode a kubelet is in at d, as its series last
// showed it.
func (pc panelChecks) modeAt(d time.Duration) string {
	if u := pc.lastScrape(d); u >= 0 && pc.shape.fallback && pc.at(u).connErrors >= maxRetries {
		return pc.shape.fallbackMode
	}
	return pc.shape.plegMode
}

// relistAge is what the relist-age panel shows at d for the mode in
// force: d minus last-seen's last sample or, where a check overwrites
// last-seen, minus the last minute at which the relist count had changed
// within two; lo and hi differ by the range's left end, which Prometheus
// 2 includes and 3 leaves out; ok is false when it shows nothing.
func (pc panelChecks) relistAge(d time.Duration) (lo, hi float64, ok bool) {
	if !pc.shape.hidden || pc.modeAt(d) == "gate-off" {
		v, ok := pc.lastSeenAge(d)
		return v, v, ok
	}
	a, aok := pc.riseAge(d, true)
	b, bok := pc.riseAge(d, false)
	switch {
	case aok && bok:
		return min(a, b), max(a, b), true
	case aok:
		return a, a, true
	}
	return b, b, bok
}

// lastSeenAge is d minus last-seen's last sample.
func (pc panelChecks) lastSeenAge(d time.Duration) (float64, bool) {
	u := pc.lastScrape(d)
	if u < 0 {
		return 0, false
	}
	seen := pc.at(u / healthCheckEvery * healthCheckEvery).lastSuccess
	if seen <= 0 {
		return 0, false
	}
	return (d - seen).Seconds(), true
}

// riseAge is d minus the last minute at which the relist count had
// changed within riseWindowTest, the range's left end included or not.
func (pc panelChecks) riseAge(d time.Duration, leftIncluded bool) (float64, bool) {
	// The relist count's samples: every scrape that answered.
	count := func(u time.Duration) (float64, bool) {
		st := pc.at(u)
		return st.relists, st.running && !st.dark
	}
	for tau := d / time.Minute * time.Minute; tau > d-time.Hour && tau >= 0; tau -= time.Minute {
		var prev float64
		havePrev, changed := false, false
		for u := (tau - riseWindowTest) / modeStep * modeStep; u <= tau; u += modeStep {
			if u < tau-riseWindowTest || u == tau-riseWindowTest && !leftIncluded || u < 0 {
				continue
			}
			if v, ok := count(u); ok {
				changed = changed || havePrev && v != prev
				prev, havePrev = v, true
			}
		}
		if changed {
			return (d - tau).Seconds(), true
		}
	}
	return pc.firstSeenAge(d, leftIncluded)
}

// firstSeenAge is d minus the relist count's earliest sample any minute
// within the last hour sees (its last sample within the 5m lookback,
// none past a dark period's stale marker): the rules' fallback for a
// count never seen to change.
func (pc panelChecks) firstSeenAge(d time.Duration, leftIncluded bool) (float64, bool) {
	first := (d - time.Hour + time.Minute - 1) / time.Minute * time.Minute
	if first == d-time.Hour && !leftIncluded {
		first += time.Minute
	}
	for tau := max(first, 0); tau <= d; tau += time.Minute {
		for u := tau / modeStep * modeStep; u > tau-5*time.Minute && u >= 0; u -= modeStep {
			st := pc.at(u)
			if st.dark {
				break // the stale marker ends the lookback
			}
			if st.running {
				return (d - u).Seconds(), true
			}
		}
	}
	return 0, false
}

// riseWindowTest is the rules' riseWindow (the relist count's change is
// looked for over two minutes).
const riseWindowTest = 2 * time.Minute

// tests are the checks, every minute over the run.
func (pc panelChecks) tests(t *testing.T) []exprTest {
	var out []exprTest
	eval := func(d time.Duration, expr string, want ...expSample) {
		out = append(out, exprTest{Expr: expr, EvalTime: model.Duration(d).String(), ExpSamples: orNone(want)})
	}
	one := func(v float64) expSample { return expSample{Labels: "{}", Value: v} }
	modes := map[string]bool{}
	for _, p := range pc.d.Panels {
		for _, q := range p.Queries {
			if q.Mode != "" {
				modes[q.Mode] = true
			}
		}
	}
	end := faultEnd(pc.shape, pc.mode)
	// born: when the kubelet started (a young kubelet's mode: shortly
	// before the fault; the "before the fault" checks need it running).
	born := time.Duration(0)
	if pc.mode.young > 0 {
		born = faultAt - pc.mode.young
	}
	const top = 10.0 // the relist duration histogram's highest finite bucket
	plegDown := time.Duration(-1)
	for s := faultAt; s < modeHorizon; s += time.Second {
		if pc.at(s).plegDown {
			plegDown = s
			break
		}
	}
	for d := time.Minute; d <= modeHorizon; d += time.Minute {
		if !pc.at(d / modeStep * modeStep).running {
			// A kubelet not started yet (a young kubelet's mode): no
			// panel shows its relist.
			for m := range modes {
				eval(d, "max("+pc.query(t, answer.PanelRelistAge, m, "")+")")
			}
			continue
		}
		st, in := pc.at(d), pc.modeAt(d)
		// The relist's age: the mode in force shows it, the others nothing.
		for m := range modes {
			q := pc.query(t, answer.PanelRelistAge, m, "")
			switch lo, hi, ok := pc.relistAge(d); {
			case m == in && ok && lo == hi:
				eval(d, "max("+q+")", one(lo))
			case m == in && ok:
				eval(d, fmt.Sprintf("(max(%s) >= bool %v) * (max(%s) <= bool %v)", q, lo, q, hi), one(1))
			default:
				eval(d, "max("+q+")")
			}
		}
		// The scrape: /metrics dark or not, the alive endpoint always up.
		eval(d, "max("+pc.query(t, answer.PanelScrape, "", "metrics_path")+")", one(map[bool]float64{true: 0, false: 1}[st.dark]))
		eval(d, "max("+strings.Replace(pc.query(t, answer.PanelScrape, "", "metrics_path"), `"/metrics"`, `"/metrics/cadvisor"`, 1)+")", one(1))
		// Ready as kube-state-metrics last saw it.
		eval(d, "max("+pc.query(t, answer.PanelReady, "", "")+")", one(map[bool]float64{true: 1, false: 0}[pc.at(d-kubeStateLag).ready]))
		// The stream: its failures and its connection, while /metrics answers.
		if u := pc.lastScrape(d); u == d/modeStep*modeStep {
			eval(d, "max("+pc.query(t, answer.PanelEventedStream, "", "")+")", one(pc.shape.gate))
			errs := strings.Replace(pc.query(t, answer.PanelEventedStream, "", ""), "success_count", "error_count", 1)
			eval(d, "max("+errs+")", one(pc.at(u).connErrors))
		}
	}
	// The relist's age crosses the threshold in force where the kubelet
	// said so (its PLEG passed the threshold): above the line from then,
	// at or below it until half a minute before. A kubelet whose evented
	// check overwrites last-seen shows the relist count's last rise,
	// which a relist failing fast still moves (killed: the rules' stall
	// signal reads list_podsandbox's errors beside it).
	if plegDown > 0 && !(pc.shape.hidden && pc.mode.kind == faultKilled) {
		m := pc.modeAt(plegDown)
		line := pc.line(t, answer.PanelRelistAge, "threshold", m)
		q := pc.query(t, answer.PanelRelistAge, m, "")
		after, before := plegDown.Truncate(modeStep)+modeStep, (plegDown - 30*time.Second).Truncate(modeStep)
		if pc.shape.hidden {
			after, before = after+time.Minute, before-2*time.Minute
		}
		eval(after, fmt.Sprintf("max(%s) > bool %v", q, line), one(1))
		eval(before, fmt.Sprintf("max(%s) > bool %v", q, line), one(0))
	}
	// The relist's duration, where its period is below the histogram's
	// top: present and within the period before the fault, and again
	// after it (the relists that waited through a dark period longer
	// than the rate's window are not in it: no sample before them is).
	if period := pc.shape.period.Seconds(); period < top {
		m := pc.shape.plegMode
		q := pc.query(t, answer.PanelRelistDuration, m, "quantile 0.99")
		if l := pc.line(t, answer.PanelRelistDuration, "period", m); l != period {
			t.Fatalf("the period line is %v; the kubelet relists every %v", l, period)
		}
		for d := born + 2*time.Minute; d < faultAt; d += time.Minute {
			eval(d, fmt.Sprintf("max(%s) <= bool %v", q, period), one(1))
		}
		if after := end.Truncate(time.Minute) + 2*time.Minute; after <= modeHorizon && !pc.at(after).fellBack && !pc.at(after).dark {
			eval(after, fmt.Sprintf("max(%s) <= bool %v", q, period), one(1))
		}
	}
	// The runtime's latency per operation: within the ladder's lowest
	// rung before the fault; a slow Status past the latency rule's line.
	lat := pc.query(t, answer.PanelRuntimeLatency, "", "")
	lowest := pc.line(t, answer.PanelRuntimeLatency, "metrics-dark", "")
	ops := func(status, lps float64) []expSample {
		return []expSample{{`{operation_type="list_podsandbox"}`, lps}, {`{operation_type="status"}`, status}}
	}
	// An operation with no call in the quantile's window shows nothing
	// (NaN): the gate-on relist lists every 5m.
	before := ops(1, 1)
	if pc.shape.period >= 2*time.Minute {
		before = before[1:]
	}
	if born < faultAt-2*time.Minute {
		eval(faultAt-time.Minute, fmt.Sprintf("max by (operation_type) ((%s) >= 0) < bool %v", lat, lowest), before...)
	}
	if pc.mode.kind == faultStatusSlow {
		warn := pc.line(t, answer.PanelRuntimeLatency, "runtime-down warning", "")
		eval(faultAt+3*time.Minute, fmt.Sprintf("max by (operation_type) (%s) > bool %v", lat, warn), ops(1, 0)...)
	}
	// The stream's failures pass the retry limit where the evented PLEG
	// gives up.
	if limit := pc.line(t, answer.PanelEventedStream, "retries", ""); pc.at(modeHorizon).connErrors >= limit {
		errs := strings.Replace(pc.query(t, answer.PanelEventedStream, "", ""), "success_count", "error_count", 1)
		eval(modeHorizon, fmt.Sprintf("max(%s) >= bool %v", errs, limit), one(1))
	}
	// The alerts' state: over the run, the panel shows exactly the alerts
	// the mode must fire firing.
	var want []expSample
	for _, a := range mustFire(pc.shape, pc.mode) {
		name, pm, _ := strings.Cut(a, "/")
		want = append(want, expSample{fmt.Sprintf("{alertname=%q, pleg_mode=%q}", name, pm), 1})
	}
	firing := strings.Replace(pc.query(t, answer.PanelAlerts, "", ""), "ALERTS{", `ALERTS{alertstate="firing", `, 1)
	eval(modeHorizon, fmt.Sprintf("max by (alertname, pleg_mode) (max_over_time((%s)[%s:%s]))", firing, model.Duration(modeHorizon), model.Duration(modeStep)), want...)
	return out
}

// runPanelTests runs promtool test rules on one group: the series, the
// rules (for ALERTS) and the checks.
func runPanelTests(t *testing.T, tool, dir, rules, name string, series []namedSeries, tests []exprTest) {
	t.Helper()
	type input struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	type group struct {
		Name        string     `yaml:"name"`
		Interval    string     `yaml:"interval"`
		InputSeries []input    `yaml:"input_series"`
		ExprTests   []exprTest `yaml:"promql_expr_test"`
	}
	g := group{Name: name, Interval: model.Duration(modeStep).String(), ExprTests: tests}
	for _, s := range series {
		g.InputSeries = append(g.InputSeries, input{s.name, s.values})
	}
	file := struct {
		RuleFiles []string `yaml:"rule_files"`
		Eval      string   `yaml:"evaluation_interval"`
		Tests     []group  `yaml:"tests"`
	}{RuleFiles: []string{rules}, Eval: model.Duration(modeStep).String(), Tests: []group{g}}
	b, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "panels-"+strings.NewReplacer(" ", "-", ",", "", "/", "-").Replace(name)+".yaml")
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, "test", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules %s: %v\n%s", path, err, out)
	}
}
