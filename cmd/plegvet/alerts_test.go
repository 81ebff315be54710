package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/testkit/debiantool"
)

// promtool is Debian's (package prometheus), installed when missing.
func promtool(t *testing.T) string {
	t.Helper()
	return debiantool.Find(t, "promtool", nil, "prometheus")
}

// checkRules runs promtool check rules on a rules file.
func checkRules(t *testing.T, tool, file string) {
	t.Helper()
	if out, err := exec.Command(tool, "check", "rules", file).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules %s: %v\n%s", file, err, out)
	}
}

// lastSeenWriter is a copy of the look-alike checkout whose two health
// checks write kubelet_pleg_last_seen_seconds as the releases' do (the
// relist's time, then the evented PLEG's own time with the gate on), so
// that the rules read the relist's progress where the gauge is
// overwritten: the look-alike itself writes no gauge.
func lastSeenWriter(t *testing.T) string {
	t.Helper()
	dir := copyLookAlike(t, filepath.Join("..", "..", "testdata", "src", "k8s.io", "kubernetes"))
	edit := func(rel string, pairs ...string) {
		file := filepath.Join(dir, filepath.FromSlash(rel))
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(text, pairs[i]) {
				t.Fatalf("%s: no %q to rewrite", rel, pairs[i])
			}
			text = strings.Replace(text, pairs[i], pairs[i+1], 1)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	metrics := filepath.Join(dir, "pkg", "kubelet", "metrics")
	if err := os.MkdirAll(metrics, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(metrics, "metrics.go"), []byte("package metrics\n\ntype gauge struct{ v float64 }\n\nfunc (g *gauge) Set(v float64) { g.v = v }\n\n// PLEGLastSeen is kubelet_pleg_last_seen_seconds.\nvar PLEGLastSeen = &gauge{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit("pkg/kubelet/pleg/generic.go",
		"import (\n", "import (\n\t\"k8s.io/kubernetes/pkg/kubelet/metrics\"\n",
		"\telapsed := time.Since(g.lastRelist)\n", "\telapsed := time.Since(g.lastRelist)\n\tmetrics.PLEGLastSeen.Set(float64(g.lastRelist.Unix()))\n")
	edit("pkg/kubelet/pleg/evented.go",
		"package pleg\n", "package pleg\n\nimport (\n\t\"time\"\n\n\t\"k8s.io/kubernetes/pkg/kubelet/metrics\"\n)\n",
		"func (e *EventedPLEG) Healthy() (bool, error)         { return true, nil }", "func (e *EventedPLEG) Healthy() (bool, error) {\n\tmetrics.PLEGLastSeen.Set(float64(time.Now().Unix()))\n\treturn true, nil\n}")
	return dir
}

// The rules written for the look-alike checkout pass promtool check
// rules, as a rules file and as the PrometheusRule's spec, and promtool
// test rules on series built from real kubelets' scrapes: every alert
// fires when, and only when, the kubelet's state says it should.
func TestAlertRulesPromtool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs promtool")
	}
	tool := promtool(t)
	dir := t.TempDir()
	tree := lastSeenWriter(t)
	rules := writeRules(t, dir, plegvet.Options{Dir: tree})
	checkRules(t, tool, rules)

	var stdout, stderr strings.Builder
	if code := dispatch([]string{"alerts", "-o", "prometheusrule", "-C", tree}, &stdout, &stderr); code != 0 {
		t.Fatalf("alerts -o prometheusrule: exit %d: %s", code, stderr.String())
	}
	var pr struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Spec       any    `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(stdout.String()), &pr); err != nil || pr.APIVersion != "monitoring.coreos.com/v1" || pr.Kind != "PrometheusRule" {
		t.Fatalf("alerts -o prometheusrule: %v: %+v", err, pr)
	}
	spec, err := yaml.Marshal(pr.Spec)
	if err != nil {
		t.Fatal(err)
	}
	specFile := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(specFile, spec, 0o666); err != nil {
		t.Fatal(err)
	}
	checkRules(t, tool, specFile)

	on, off, five := 1.0, 0.0, 5.0
	const (
		stalledOn       = "PLEGRelistStalled/gate-on: PLEG relist stalled: no successful relist for 6m40s; the kubelet's threshold is 10m0s"
		stalledFallback = "PLEGRelistStalled/fallback: PLEG relist stalled: no successful relist for 2m0s; the kubelet's threshold is 3m0s"
		gaveUp          = "EventedPLEGGaveUp/gate-on: EventedPLEG gave up: its CRI event stream failed 5 times; the limit is 5 = eventedPlegMaxStreamRetries"
		// The look-alike's check says "relist is late: ...", and the tree
		// has no runtimeErrors to word it with the check's name.
		lateLookAlike = `PLEG unhealthy: its "PLEG" health check fails: relist is late`
	)
	// late is the unhealthy summary at a time since the last relist.
	late := func(ago, threshold string) string {
		return lateLookAlike + ": last relist " + ago + " ago; threshold is " + threshold
	}
	gateOn := filepath.Join("..", "..", "nodeverdict", "testdata", "real", "v1.36.5", "gate-on-built", "000.txt")
	scenarios := []scenario{
		{name: "gate off, healthy", capture: gateOn, gate: &off, period: time.Second,
			evals: []eval{{at: 19 * time.Minute}}},
		{name: "gate off, relist hung at 5m", capture: gateOn, gate: &off, period: time.Second, stopAt: 5 * time.Minute,
			evals: []eval{{at: 6 * time.Minute}, {at: 7*time.Minute + 30*time.Second, firing: []string{"PLEGRelistStalled/gate-off: PLEG relist stalled: no successful relist for 2m 31s; the kubelet's threshold is 3m0s"}},
				{at: 8*time.Minute + 30*time.Second, firing: []string{"PLEGRelistStalled/gate-off: PLEG relist stalled: no successful relist for 3m 31s; the kubelet's threshold is 3m0s", "PLEGUnhealthy/gate-off: " + late("3m 31s", "3m0s")}}}},
		// A runtime hung for 4m, as in the field (the look-alike's code
		// shows no /metrics waiting on the runtime: no runtime-hung rule;
		// -k8s v1.37.2's below has it): the relists that waited
		// on it are counted at the first scrape after, within 5m of the
		// last scrape before, so the histogram's rate holds them.
		{name: "gate off, runtime hung from 5m to 9m, /metrics dark", capture: gateOn, gate: &off, period: time.Second,
			stopAt: 5 * time.Minute, resumeAt: 9 * time.Minute, darkFrom: 5 * time.Minute, darkUntil: 9 * time.Minute, waited: 5,
			evals: []eval{{at: 5*time.Minute + 30*time.Second},
				{at: 6*time.Minute + 30*time.Second},
				// Dark is not dead: the last scrape that answered (4m45s)
				// saw the last relist at 4m45s, but while /metrics is dark
				// nobody sees the relist, and without the node's Ready
				// False (no kube-state-metrics series here) no rule claims
				// the PLEG stalled or unhealthy.
				{at: 7*time.Minute + 30*time.Second}, {at: 8*time.Minute + 30*time.Second},
				// Not even a pending relist-slow alert after.
				{at: 9*time.Minute + 30*time.Second, quiet: []string{"PLEGRelistSlow"}}, {at: 11 * time.Minute, quiet: []string{"PLEGRelistSlow"}},
				{at: 13 * time.Minute, quiet: []string{"PLEGRelistSlow"}}, {at: 19 * time.Minute, quiet: []string{"PLEGRelistSlow"}}}},
		{name: "gate off, kubelet gone from 5m to 10m", capture: gateOn, gate: &off, period: time.Second,
			stopAt: 5 * time.Minute, resumeAt: 10 * time.Minute, darkFrom: 5 * time.Minute, darkUntil: 10 * time.Minute, gone: true,
			evals: []eval{{at: 6*time.Minute + 30*time.Second}, {at: 9*time.Minute + 30*time.Second}, {at: 10*time.Minute + 30*time.Second}}},
		{name: "gate off, relists of 2s from 5m", capture: gateOn, gate: &off, period: time.Second, slowFrom: 5 * time.Minute,
			evals: []eval{{at: 8 * time.Minute}, {at: 16 * time.Minute, firing: []string{"PLEGRelistSlow/gate-off: PLEG relist slow: its 0.99 quantile duration is 2.485s, above its period 1s"}}}},
		{name: "gate on, healthy, last-seen overwritten", capture: gateOn, gate: &on, period: 5 * time.Minute, lastSeenIsNow: true,
			evals: []eval{{at: 3 * time.Minute}, {at: 19 * time.Minute}}},
		{name: "gate on, relist hung at 5m, last-seen overwritten", capture: gateOn, gate: &on, period: 5 * time.Minute, stopAt: 5*time.Minute + time.Second, lastSeenIsNow: true,
			evals: []eval{{at: 11 * time.Minute}, {at: 12 * time.Minute, firing: []string{stalledOn}},
				{at: 16 * time.Minute, firing: []string{stalledOn, "PLEGUnhealthy/gate-on: " + late("more than 10m0s", "10m0s")}}}},
		{name: "fallen back, runtime refuses from 5m", capture: gateOn, gate: &on, connErrors: &five, period: time.Second, stopAt: 5 * time.Minute, failFast: true, lastSeenIsNow: true,
			evals: []eval{{at: 4 * time.Minute, firing: []string{gaveUp}},
				{at: 7*time.Minute + 30*time.Second, firing: []string{gaveUp, stalledFallback}},
				{at: 8*time.Minute + 30*time.Second, firing: []string{gaveUp, stalledFallback, "PLEGUnhealthy/fallback: " + late("more than 3m0s", "3m0s")}}}},
	}
	runPromtoolTests(t, tool, dir, rules, scenarios)
}

// The rules of two releases, fetched, pass promtool check rules, and
// promtool test rules on series from their own kubelets' real scrapes
// (v1.36.5 fallen back to the generic relist, its last-seen overwritten;
// v1.37.2, whose last-seen is the generic relist's): each fires only for
// kubelets of its own minor.
func TestAlertRulesReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes releases and runs promtool")
	}
	tool := promtool(t)
	real := func(parts ...string) string {
		return filepath.Join(append([]string{"..", "..", "nodeverdict", "testdata", "real"}, parts...)...)
	}
	const (
		gaveUp = "EventedPLEGGaveUp/gate-on: EventedPLEG gave up: its CRI event stream failed 5 times; the limit is 5 = eventedPlegMaxStreamRetries"
		dark   = "KubeletMetricsDark/always: Kubelet /metrics dark: the kubelet answers /metrics/cadvisor, but its /metrics has not answered for 1m0s; the container runtime is slow or hung"
	)
	for _, tc := range []struct {
		version   string
		scenarios []scenario
	}{
		{"v1.36.5", []scenario{
			{name: "fallen back, runtime refuses from 5m", capture: real("v1.36.5", "gate-on-debian", "000.txt"), period: time.Second, stopAt: 5 * time.Minute, failFast: true, lastSeenIsNow: true,
				evals: []eval{{at: 4 * time.Minute, firing: []string{gaveUp}},
					{at: 8*time.Minute + 30*time.Second, firing: []string{gaveUp,
						"PLEGRelistStalled/fallback: PLEG relist stalled: no successful relist for 2m0s; the kubelet's threshold is 3m0s",
						"PLEGUnhealthy/fallback: PLEG is not healthy: pleg was last seen active more than 3m0s ago; threshold is 3m0s"}}}},
			{name: "a v1.37 kubelet", capture: real("v1.37.2", "runtime-restart", "030.txt"), period: time.Second, stopAt: 5 * time.Minute,
				evals: []eval{{at: 9 * time.Minute}}},
		}},
		{"v1.37.2", []scenario{
			{name: "relist hung at 5m", capture: real("v1.37.2", "runtime-restart", "030.txt"), period: time.Second, stopAt: 5 * time.Minute,
				evals: []eval{{at: 4 * time.Minute, firing: []string{gaveUp}},
					{at: 7*time.Minute + 30*time.Second, firing: []string{gaveUp, "PLEGRelistStalled/always: PLEG relist stalled: no successful relist for 2m 31s; the kubelet's threshold is 3m0s"}},
					{at: 8*time.Minute + 30*time.Second, firing: []string{gaveUp,
						"PLEGRelistStalled/always: PLEG relist stalled: no successful relist for 3m 31s; the kubelet's threshold is 3m0s",
						"PLEGUnhealthy/always: PLEG is not healthy: pleg was last seen active 3m 31s ago; threshold is 3m0s"}}}},
			{name: "a v1.36 kubelet", capture: real("v1.36.5", "gate-on-debian", "000.txt"), period: time.Second, stopAt: 5 * time.Minute,
				evals: []eval{{at: 9 * time.Minute}}},
			{name: "runtime hung from 5m to 10m, /metrics dark", capture: real("v1.37.2", "runtime-restart", "030.txt"), period: time.Second,
				stopAt: 5 * time.Minute, resumeAt: 10 * time.Minute, darkFrom: 5 * time.Minute, darkUntil: 10 * time.Minute,
				evals: []eval{{at: 4 * time.Minute, firing: []string{gaveUp}},
					// No Ready condition here (see TestAlertRulesInEveryMode
					// for kube-state-metrics' word): a dark /metrics is the
					// warning, never the PLEG's death.
					{at: 6*time.Minute + 30*time.Second, firing: []string{dark}},
					{at: 8*time.Minute + 30*time.Second, firing: []string{dark}},
					{at: 10*time.Minute + 30*time.Second, firing: []string{gaveUp}}, {at: 19 * time.Minute, firing: []string{gaveUp}}}},
			{name: "kubelet gone from 5m to 10m", capture: real("v1.37.2", "runtime-restart", "030.txt"), period: time.Second,
				stopAt: 5 * time.Minute, resumeAt: 10 * time.Minute, darkFrom: 5 * time.Minute, darkUntil: 10 * time.Minute, gone: true,
				evals: []eval{{at: 4 * time.Minute, firing: []string{gaveUp}}, {at: 6*time.Minute + 30*time.Second}, {at: 9*time.Minute + 30*time.Second}}},
		}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			dir := t.TempDir()
			rules := writeRules(t, dir, plegvet.Options{Kubernetes: tc.version, CacheDir: plegvet.DefaultCacheDir()})
			checkRules(t, tool, rules)
			runPromtoolTests(t, tool, dir, rules, tc.scenarios)
		})
	}
}

// writeRules writes AlertRulesFile's rules for opts into dir.
func writeRules(t *testing.T, dir string, opts plegvet.Options) string {
	t.Helper()
	b, err := plegvet.AlertRulesFile(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(file, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return file
}

// A scenario is one kubelet over 20 minutes: a real scrape's metrics and
// labels, its counters and last-seen moved on as such a kubelet moves them.
type scenario struct {
	name    string
	capture string
	// gate and connErrors override the capture's
	// kubernetes_feature_enabled{name="EventedPLEG"} and
	// kubelet_evented_pleg_connection_error_count (the real captures all
	// run the gate on).
	gate, connErrors *float64
	period           time.Duration
	// stopAt is when relists stop succeeding: they hang (no relist
	// completes), or with failFast complete with list_podsandbox failing.
	stopAt   time.Duration
	failFast bool
	// lastSeenIsNow: the evented PLEG's health check sets last-seen to the
	// time of each poll (v1.30-v1.36 with the gate on).
	lastSeenIsNow bool
	// slowFrom is when relists start taking 2s.
	slowFrom time.Duration
	// darkFrom to darkUntil, the kubelet's /metrics does not answer: its
	// series go stale and its up is 0, while its /metrics/cadvisor
	// answers (a hung runtime) unless gone (the kubelet is gone). With
	// resumeAt, relists stopped at stopAt succeed again from then, the
	// one that waited observed in the histogram's +Inf bucket alone.
	darkFrom, darkUntil, resumeAt time.Duration
	gone                          bool
	// waited relists, each of which waited on the hung runtime for its
	// whole deadline, are counted when the scrape answers again.
	waited int
	evals  []eval
}

// eval expects, at a time, the alerts firing as "ALERTNAME/pleg_mode:
// summary" (the descriptions are left out of the rules tested).
type eval struct {
	at     time.Duration
	firing []string
	// quiet are alerts whose expression must hold for no series at at:
	// not even pending.
	quiet []string
}

const (
	scrape  = 15 * time.Second
	horizon = 20 * time.Minute
)

// kubeletLabels are a kubelet /metrics target's, in kube-prometheus's
// layout (one job, the path in metrics_path).
var kubeletLabels = map[string]string{"instance": "node-a:10250", "job": "kubelet", "metrics_path": "/metrics"}

// alertNames are the alerts every eval checks.
var alertNames = []string{"PLEGRelistStalled", "PLEGUnhealthy", "EventedPLEGGaveUp", "PLEGRelistSlow", "KubeletRuntimeHung", "KubeletMetricsDark", "KubeletRuntimeDown", "KubeletRuntimeSlow"}

func runPromtoolTests(t *testing.T, tool, dir, rules string, scenarios []scenario) {
	t.Helper()
	type series struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	type expAlert struct {
		ExpLabels      map[string]string `yaml:"exp_labels"`
		ExpAnnotations map[string]string `yaml:"exp_annotations"`
	}
	type alertTest struct {
		EvalTime  string     `yaml:"eval_time"`
		Alertname string     `yaml:"alertname"`
		ExpAlerts []expAlert `yaml:"exp_alerts"`
	}
	type exprTest struct {
		Expr       string `yaml:"expr"`
		EvalTime   string `yaml:"eval_time"`
		ExpSamples []any  `yaml:"exp_samples"`
	}
	type group struct {
		Name        string      `yaml:"name"`
		Interval    string      `yaml:"interval"`
		InputSeries []series    `yaml:"input_series"`
		Tests       []alertTest `yaml:"alert_rule_test"`
		ExprTests   []exprTest  `yaml:"promql_expr_test,omitempty"`
	}
	exprs := ruleExprs(t, rules)
	file := struct {
		RuleFiles []string `yaml:"rule_files"`
		Eval      string   `yaml:"evaluation_interval"`
		Tests     []group  `yaml:"tests"`
	}{RuleFiles: []string{withoutDescriptions(t, dir, rules)}, Eval: "15s"}
	for _, sc := range scenarios {
		g := group{Name: sc.name, Interval: model.Duration(scrape).String()}
		for _, s := range sc.series(t) {
			g.InputSeries = append(g.InputSeries, series{s.name, s.values})
		}
		for _, ev := range sc.evals {
			for _, name := range alertNames {
				at := alertTest{EvalTime: model.Duration(ev.at).String(), Alertname: name, ExpAlerts: []expAlert{}}
				for _, f := range ev.firing {
					labelled, summary, _ := strings.Cut(f, ": ")
					if alert, mode, _ := strings.Cut(labelled, "/"); alert == name {
						labels := map[string]string{"pleg_mode": mode, "severity": severity(name)}
						for k, v := range kubeletLabels {
							labels[k] = v
						}
						if name == "PLEGRelistSlow" { // a sum by instance, job and le
							delete(labels, "metrics_path")
						}
						at.ExpAlerts = append(at.ExpAlerts, expAlert{labels, map[string]string{"summary": summary}})
					}
				}
				g.Tests = append(g.Tests, at)
			}
			for _, name := range ev.quiet {
				if len(exprs[name]) == 0 {
					t.Fatalf("%s: no rule %s", sc.name, name)
				}
				for _, e := range exprs[name] {
					g.ExprTests = append(g.ExprTests, exprTest{Expr: e, EvalTime: model.Duration(ev.at).String(), ExpSamples: []any{}})
				}
			}
		}
		file.Tests = append(file.Tests, g)
	}
	b, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := filepath.Join(dir, "tests.yaml")
	if err := os.WriteFile(tests, b, 0o666); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tool, "test", "rules", tests).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// ruleExprs are a rules file's expressions, by alert.
func ruleExprs(t *testing.T, rules string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	m := map[string][]string{}
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			m[r.Alert] = append(m[r.Alert], r.Expr)
		}
	}
	return m
}

// withoutDescriptions writes a copy of a rules file whose rules keep
// their summaries only.
func withoutDescriptions(t *testing.T, dir, rules string) string {
	return editedRules(t, rules, filepath.Join(dir, "summaries.yaml"), func(r map[string]any) {
		delete(r["annotations"].(map[string]any), "description")
	})
}

// editedRules writes to out a copy of a rules file with edit applied to
// each rule.
func editedRules(t *testing.T, rules, out string, edit func(map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Name  string           `yaml:"name"`
			Rules []map[string]any `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			edit(r)
		}
	}
	if b, err = yaml.Marshal(file); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return out
}

func severity(alert string) string {
	if alert == "PLEGUnhealthy" || alert == "KubeletRuntimeHung" || alert == "KubeletRuntimeDown" {
		return "critical"
	}
	return "warning"
}

type namedSeries struct{ name, values string }

// series are the scenario's input series: the capture's gate, build and
// connection-error series as scraped (or overridden), and last-seen, the
// relist duration histogram and list_podsandbox's counters moved on step
// by step.
func (sc scenario) series(t *testing.T) []namedSeries {
	t.Helper()
	f, err := os.Open(sc.capture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("%s: %v", sc.capture, err)
	}
	var out []namedSeries
	// dark writes a /metrics series' value at step i: stale at the first
	// scrape that failed, none after, until it answers again.
	dark := func(i int, v string) string {
		at := time.Duration(i) * scrape
		switch {
		case sc.darkFrom == 0 || at < sc.darkFrom || at >= sc.darkUntil:
			return v
		case at-scrape < sc.darkFrom:
			return "stale"
		}
		return "_"
	}
	step := func(value func(at time.Duration) float64) string {
		vs := make([]string, steps()+1)
		for i := range vs {
			vs[i] = dark(i, num(value(time.Duration(i)*scrape)))
		}
		return strings.Join(vs, " ")
	}
	constant := func(name string, m *dto.Metric, v float64) {
		out = append(out, namedSeries{selector(name, m, nil), step(func(time.Duration) float64 { return v })})
	}
	// Prometheus's own series of the two targets.
	up := func(path string, down bool) namedSeries {
		vs := make([]string, steps()+1)
		for i := range vs {
			at := time.Duration(i) * scrape
			vs[i] = "1"
			if down && sc.darkFrom > 0 && at >= sc.darkFrom && at < sc.darkUntil {
				vs[i] = "0"
			}
		}
		return namedSeries{selector("up", nil, map[string]string{"metrics_path": path}), strings.Join(vs, " ")}
	}
	out = append(out, up("/metrics", true), up("/metrics/cadvisor", sc.gone))
	for _, m := range fams["kubernetes_feature_enabled"].GetMetric() {
		v := m.GetGauge().GetValue()
		if hasLabel(m, "name", "EventedPLEG") && sc.gate != nil {
			v = *sc.gate
		}
		constant("kubernetes_feature_enabled", m, v)
	}
	for _, m := range fams["kubernetes_build_info"].GetMetric() {
		constant("kubernetes_build_info", m, m.GetGauge().GetValue())
	}
	for _, m := range fams["kubelet_evented_pleg_connection_error_count"].GetMetric() {
		v := m.GetCounter().GetValue()
		if sc.connErrors != nil {
			v = *sc.connErrors
		}
		constant("kubelet_evented_pleg_connection_error_count", m, v)
	}
	// The kubelet started a second before the test.
	out = append(out, namedSeries{selector("process_start_time_seconds", nil, nil), step(func(time.Duration) float64 { return -1 })})
	out = append(out, namedSeries{selector("kubelet_pleg_last_seen_seconds", nil, nil), step(sc.lastSeen)})
	hist := fams["kubelet_pleg_relist_duration_seconds"]
	if hist == nil || len(hist.GetMetric()) != 1 {
		t.Fatalf("%s: no kubelet_pleg_relist_duration_seconds", sc.capture)
	}
	for _, b := range hist.GetMetric()[0].GetHistogram().GetBucket() {
		le := b.GetUpperBound()
		out = append(out, namedSeries{selector("kubelet_pleg_relist_duration_seconds_bucket", nil, map[string]string{"le": num(le)}), step(func(at time.Duration) float64 {
			if sc.slowFrom > 0 && at > sc.slowFrom && le < 2 {
				return sc.relists(sc.slowFrom)
			}
			if sc.resumeAt > 0 && at >= sc.resumeAt {
				return sc.relists(at) - float64(sc.waited) // those that waited
			}
			return sc.relists(at)
		})})
	}
	out = append(out, namedSeries{selector("kubelet_pleg_relist_duration_seconds_bucket", nil, map[string]string{"le": "+Inf"}), step(sc.relists)},
		namedSeries{selector("kubelet_pleg_relist_duration_seconds_count", nil, nil), step(sc.relists)})
	op := map[string]string{"operation_type": "list_podsandbox"}
	out = append(out, namedSeries{selector("kubelet_runtime_operations_total", nil, op), step(sc.relists)},
		namedSeries{selector("kubelet_runtime_operations_errors_total", nil, op), step(func(at time.Duration) float64 {
			if !sc.failFast || sc.stopAt == 0 || at < sc.stopAt {
				return 0
			}
			return sc.relists(at) - sc.relists(sc.stopAt)
		})})
	return out
}

func steps() int { return int(horizon / scrape) }

// relists is how many relists have completed by at.
func (sc scenario) relists(at time.Duration) float64 {
	if sc.resumeAt > 0 && at >= sc.resumeAt {
		return sc.relists(sc.stopAt) + float64(sc.waited) + math.Floor(float64(at-sc.resumeAt)/float64(sc.period))
	}
	if sc.stopAt > 0 && at > sc.stopAt && !sc.failFast {
		at = sc.stopAt
	}
	if sc.slowFrom > 0 && at > sc.slowFrom {
		return sc.relists(sc.slowFrom) + math.Floor(float64(at-sc.slowFrom)/float64(sc.period+2*time.Second))
	}
	return math.Floor(float64(at)/float64(sc.period)) + 1
}

// lastSeen is kubelet_pleg_last_seen_seconds at a scrape: the start of
// the last successful relist, or the poll's own time where the evented
// PLEG's health check overwrites it.
func (sc scenario) lastSeen(at time.Duration) float64 {
	if sc.lastSeenIsNow {
		return at.Seconds()
	}
	if sc.resumeAt > 0 && at >= sc.resumeAt {
		return at.Truncate(sc.period).Seconds()
	}
	if sc.stopAt > 0 && at >= sc.stopAt {
		at = sc.stopAt - time.Nanosecond
	}
	return at.Truncate(sc.period).Seconds()
}

// selector is a series in promtool's notation, with the kubelet's target
// labels.
func selector(name string, m *dto.Metric, extra map[string]string) string {
	labels := map[string]string{}
	for k, v := range kubeletLabels {
		labels[k] = v
	}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	for k, v := range extra {
		labels[k] = v
	}
	return name + labelString(labels)
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

func num(f float64) string {
	return fmt.Sprint(f)
}

// A scrape layout that would write a rule Prometheus rejects, one that
// could never match, or matchers injected through a flag is a usage
// error: exit 2, one line naming the flag and what it wants, before the
// tree is read.
func TestAlertsLayoutUsage(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-path-label", "metrics-path"}, `-path-label: want the label telling the kubelet's endpoints apart, a Prometheus label name`},
		{[]string{"-path-label", "job"}, `-path-label: want the label telling the kubelet's endpoints apart, not "job", a label the rules match on already`},
		{[]string{"-path-label", "instance"}, `-path-label: want the label telling the kubelet's endpoints apart, not "instance"`},
		{[]string{"-path-label", `metrics_path="/metrics",x`}, `-path-label: want the label telling the kubelet's endpoints apart, a Prometheus label name`},
		{[]string{"-path-label", "__metrics_path__"}, `-path-label: want the label telling the kubelet's endpoints apart, a target label`},
		{[]string{"-alive-path", "/metrics"}, `-alive-path: want an endpoint of the kubelet that calls no runtime, not its /metrics ("/metrics")`},
		{[]string{"-metrics-path", `/metrics", job="x`}, `-metrics-path: want a value of the path label, without quotes`},
		{[]string{"-alive-path", "/metrics/cadvisor}"}, `-alive-path: want a value of the path label, without quotes, braces`},
		{[]string{"-job", "kubelet,x"}, `-job: want the name of the job scraping the kubelets, without quotes`},
		{[]string{"-job", ""}, `-job: want the name of the job scraping the kubelets`},
		{[]string{"-node-label", "node-name"}, `-node-label: want the label naming the kubelet's node on its targets, a Prometheus label name`},
		{[]string{"-node-label", "metrics_path"}, `-node-label: want the label naming the kubelet's node on its targets, not "metrics_path", the path label`},
		{[]string{"-ksm-job", "kubelet"}, `-ksm-job: want the job scraping kube-state-metrics, not the kubelets' ("kubelet")`},
		{[]string{"-ksm-job", `ksm"}`}, `-ksm-job: want the name of the job scraping kube-state-metrics, without quotes`},
	} {
		var stdout, stderr strings.Builder
		code := dispatch(append([]string{"alerts", "-C", t.TempDir()}, tt.args...), &stdout, &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != exitUsage || len(lines) != 1 || !strings.HasPrefix(lines[0], "plegvet alerts: "+tt.want) || stdout.Len() > 0 {
			t.Errorf("alerts %q: exit %d, stderr %q; want exit %d, one line starting %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
}
