package alerts

import (
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

func ruleOf(a *answer.Alerts, kind, mode string) *answer.AlertRule {
	for i := range a.Rules {
		if r := &a.Rules[i]; r.Kind == kind && (mode == "" || r.Mode == mode) {
			return r
		}
	}
	return nil
}

func unwrittenPart(a *answer.Alerts, part string) string {
	for _, m := range a.Unwritten {
		if m.Part == part {
			return m.Why
		}
	}
	return ""
}

// While /metrics is dark, no stalled rule holds at all, and the unhealthy
// rule only with the node's Ready False: each elapsed rule holds on an
// answering /metrics, the unhealthy one or-ed with the kubelet's word.
func TestElapsedRulesNeedAnAnsweringScrapeOrReadyFalse(t *testing.T) {
	for _, v := range []string{"v1.36.5", "v1.37.2"} {
		rep := shapes()[v]
		rep.Health = health()
		a := Build(rep, answer.DefaultScrapeLayout())
		for _, r := range a.Rules {
			if r.Kind != answer.AlertStalled && r.Kind != answer.AlertUnhealthy {
				continue
			}
			if !strings.Contains(r.Expr, `and on(instance, job) (min_over_time(up{job="kubelet", metrics_path="/metrics"}[1m]) == 1)`) {
				t.Errorf("%s %s %s: not held to an answering /metrics: %s", v, r.Alert, r.Mode, r.Expr)
			}
			ready := strings.Contains(r.Expr, `kube_node_status_condition{job="kube-state-metrics", condition="Ready", status="false"} == 1`)
			if want := r.Kind == answer.AlertUnhealthy; ready != want || (r.Dark != "") != want {
				t.Errorf("%s %s %s: reads Ready False %v (dark %q), want %v: %s", v, r.Alert, r.Mode, ready, r.Dark, want, r.Expr)
			}
			if r.Kind == answer.AlertUnhealthy && !strings.Contains(r.Expr, `group_left() (max by (node) (max_over_time((timestamp(kube_node_status_condition{job="kube-state-metrics", condition="Ready", status="true"} == 1))[1h:30s]))`) {
				t.Errorf("%s %s %s: does not ask when the node was last Ready: %s", v, r.Alert, r.Mode, r.Expr)
			}
			if r.Signal == answer.SignalRelistProgress && strings.Contains(r.Expr, "increase(kubelet_pleg_relist_duration_seconds_count") {
				t.Errorf("%s %s %s: reads the relist count's increase, which a dark period empties: %s", v, r.Alert, r.Mode, r.Expr)
			}
		}
	}
}

// Without kube-state-metrics in the layout, nothing reads the Ready
// condition: the unhealthy rule needs an answering /metrics, a dark
// /metrics is KubeletMetricsDark whatever the node, no KubeletRuntimeHung
// is written, and the answer says each.
func TestWithoutKubeStateMetrics(t *testing.T) {
	rep := shapes()["v1.37.2"]
	rep.Health = health()
	rep.Health.Checks = rep.Health.Checks[:1] // v1.37: one mode
	l := answer.DefaultScrapeLayout()
	l.KSMJob = ""
	a := Build(rep, l)
	if r := ruleOf(a, answer.AlertUnhealthy, ""); r == nil || r.Dark != "" || strings.Contains(r.Expr, "kube_node_status_condition") {
		t.Errorf("unhealthy rule: %+v", r)
	}
	if r := ruleOf(a, answer.AlertRuntimeHung, ""); r != nil {
		t.Errorf("runtime-hung rule written: %s", r.Expr)
	}
	if r := ruleOf(a, answer.AlertMetricsDark, ""); r == nil || strings.Contains(r.Expr, "unless") || r.Severity != "warning" {
		t.Errorf("metrics-dark rule: %+v", r)
	}
	for _, part := range []string{answer.AlertRuntimeHung, "dark-unhealthy/always"} {
		if why := unwrittenPart(a, part); !strings.Contains(why, "-ksm-job") {
			t.Errorf("unwritten %s: %q", part, why)
		}
	}
}

// A dark /metrics on a Ready node is a warning; on a NotReady node the
// critical KubeletRuntimeHung, never both; each names the ladder's rungs.
func TestDarkSeverityFollowsReady(t *testing.T) {
	rep := shapes()["v1.37.2"]
	rep.Health = health()
	lad := &answer.Ladder{Rungs: []answer.LadderRung{
		{Name: rungMetricsDark, Latency: "2.5s", Seconds: 2.5},
		{Name: rungRuntimeDown, Latency: "25s", Seconds: 25},
		{Name: rungDeadline, Latency: "2m0s", Seconds: 120},
	}}
	a := build(rep, answer.DefaultScrapeLayout(), lad)
	dark, hung := ruleOf(a, answer.AlertMetricsDark, ""), ruleOf(a, answer.AlertRuntimeHung, "")
	if dark == nil || hung == nil {
		t.Fatalf("rules: %+v", a.Rules)
	}
	notReady := `on(node) (kube_node_status_condition{job="kube-state-metrics", condition="Ready", status="false"} == 1)`
	if dark.Severity != "warning" || !strings.Contains(dark.Expr, "unless "+notReady) {
		t.Errorf("metrics-dark: %s %s", dark.Severity, dark.Expr)
	}
	if hung.Severity != "critical" || !strings.Contains(hung.Expr, "and "+notReady) {
		t.Errorf("runtime-hung: %s %s", hung.Severity, hung.Expr)
	}
	if got := len(dark.Rungs); got != 3 || dark.Rungs[0].Name != rungMetricsDark {
		t.Errorf("metrics-dark rungs: %+v", dark.Rungs)
	}
	slowRule := ruleOf(a, answer.AlertRuntimeSlow, "")
	if slowRule == nil || !strings.Contains(slowRule.Expr, ") > 25) unless on(instance, job) min_over_time(up{job=\"kubelet\", metrics_path=\"/metrics\"}[3m]) == 0") || slowRule.Severity != "warning" {
		t.Errorf("runtime-slow: %+v", slowRule)
	}
	// A node label of another name renames kube-state-metrics' node.
	l := answer.DefaultScrapeLayout()
	l.NodeLabel = "nodename"
	if r := ruleOf(build(rep, l, lad), answer.AlertRuntimeHung, ""); r == nil || !strings.Contains(r.Expr, `and on(nodename) (label_replace(kube_node_status_condition{job="kube-state-metrics", condition="Ready", status="false"}, "nodename", "$1", "node", "(.*)") == 1)`) {
		t.Errorf("runtime-hung with -node-label nodename: %+v", r)
	}
	// A rung past the deadline cannot be reached by a call: no rule.
	lad.Rungs[1].PastDeadline = true
	a = build(rep, answer.DefaultScrapeLayout(), lad)
	if ruleOf(a, answer.AlertRuntimeSlow, "") != nil || !strings.Contains(unwrittenPart(a, answer.AlertRuntimeSlow), "past the calls' deadline") {
		t.Errorf("runtime-slow past the deadline: %+v", a.Unwritten)
	}
	// Without a ladder's runtime-down rung, no latency rule, and why.
	lad.Rungs = slices.Delete(lad.Rungs, 1, 2)
	lad.Unknown = "runtime-down: the status loop's calls are not known"
	a = build(rep, answer.DefaultScrapeLayout(), lad)
	if ruleOf(a, answer.AlertRuntimeSlow, "") != nil || !strings.Contains(unwrittenPart(a, answer.AlertRuntimeSlow), "no runtime-down rung: runtime-down: the status loop's calls are not known") {
		t.Errorf("runtime-slow without its rung: %+v", a.Unwritten)
	}
	// Without a ladder, none.
	a = build(rep, answer.DefaultScrapeLayout(), nil)
	if ruleOf(a, answer.AlertRuntimeSlow, "") != nil || !strings.Contains(unwrittenPart(a, answer.AlertRuntimeSlow), "carries no latency ladder") {
		t.Errorf("runtime-slow without a ladder: %+v", a.Unwritten)
	}
}

// A layout the rules cannot be written with is refused, field by field.
func TestCheckLayout(t *testing.T) {
	edit := func(f func(*answer.ScrapeLayout)) answer.ScrapeLayout {
		l := answer.DefaultScrapeLayout()
		f(&l)
		return l
	}
	for _, tt := range []struct {
		name   string
		layout answer.ScrapeLayout
		field  string
		want   string
	}{
		{"label name promtool rejects", edit(func(l *answer.ScrapeLayout) { l.PathLabel = "metrics-path" }), "pathLabel", "a Prometheus label name"},
		{"path label the rules match on", edit(func(l *answer.ScrapeLayout) { l.PathLabel = "job" }), "pathLabel", `not "job", a label the rules match on already`},
		{"injected matchers", edit(func(l *answer.ScrapeLayout) { l.PathLabel = `metrics_path="/metrics",x` }), "pathLabel", "a Prometheus label name"},
		{"reserved label", edit(func(l *answer.ScrapeLayout) { l.PathLabel = "__metrics_path__" }), "pathLabel", "starting with __"},
		{"alive path equal to metrics path", edit(func(l *answer.ScrapeLayout) { l.AlivePath = "/metrics" }), "alivePath", "not its /metrics"},
		{"quote in a path", edit(func(l *answer.ScrapeLayout) { l.MetricsPath = `/metrics", job="x` }), "metricsPath", "without quotes"},
		{"brace in the job", edit(func(l *answer.ScrapeLayout) { l.Job = "kubelet}" }), "job", "without quotes, braces"},
		{"comma in the alive path", edit(func(l *answer.ScrapeLayout) { l.AlivePath = "/a,b" }), "alivePath", "commas"},
		{"no job", edit(func(l *answer.ScrapeLayout) { l.Job = "" }), "job", "the name of the job"},
		{"node label equal to the path label", edit(func(l *answer.ScrapeLayout) { l.NodeLabel = "metrics_path" }), "nodeLabel", "the path label"},
		{"node label promtool rejects", edit(func(l *answer.ScrapeLayout) { l.NodeLabel = "node name" }), "nodeLabel", "a Prometheus label name"},
		{"kube-state-metrics job the kubelets'", edit(func(l *answer.ScrapeLayout) { l.KSMJob = "kubelet" }), "ksmJob", "not the kubelets'"},
		{"kube-state-metrics job with a quote", edit(func(l *answer.ScrapeLayout) { l.KSMJob = `ksm"` }), "ksmJob", "without quotes"},
	} {
		p := CheckLayout(tt.layout)
		if len(p) == 0 || p[0].Field != tt.field || !strings.Contains(p[0].Want, tt.want) {
			t.Errorf("%s: %+v; want %s: ...%s...", tt.name, p, tt.field, tt.want)
		}
	}
	for _, l := range []answer.ScrapeLayout{answer.DefaultScrapeLayout(), {Job: "kubelet"}, {Job: "k", PathLabel: "endpoint", MetricsPath: "/m", AlivePath: "/c", NodeLabel: "nodename", KSMJob: "ksm"}} {
		if p := CheckLayout(l); len(p) > 0 {
			t.Errorf("%+v refused: %+v", l, p)
		}
	}
	if !slices.Contains(ruleLabels, "instance") {
		t.Error("instance is a label the rules match on")
	}
}
