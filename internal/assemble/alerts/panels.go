package alerts

import (
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
)

// The quantiles the duration panels draw: the median beside the one the
// rules compare with.
const medianQuantile = "0.5"

// successes counts the evented PLEG's stream connections.
const successes = "kubelet_evented_pleg_connection_success_count"

// BuildDashboard writes the dashboard for rep's kubelets, scraped as
// layout says: the panels' queries are the rules' own expressions (the
// same plan, modes and series; Build's), each for the node the
// dashboard's variables pick, and the lines they are drawn against the
// values the rules compare with.
func BuildDashboard(rep *answer.Report, layout answer.ScrapeLayout) *answer.Dashboard {
	a := Build(rep, layout)
	p := planFor(rep, layout)
	s := p.series
	s.picked = true
	d := &answer.Dashboard{SchemaVersion: answer.SchemaVersion, Source: a.Source, Minor: a.Minor, Group: a.Group, Gate: a.Gate, Scrape: layout, Window: a.Window,
		Ladder: ladderOf(rep), Panels: []answer.Panel{}, Alerts: []string{}, Unwritten: []answer.Missing{}}
	d.Variables = []answer.DashboardVariable{
		{Name: "datasource", Datasource: "prometheus"},
		{Name: "cluster", Query: fmt.Sprintf("label_values(up{job=%q}, cluster)", layout.Job)},
		{Name: s.nodeVar(), Query: fmt.Sprintf("label_values(up{job=%q, cluster=\"$cluster\"}, %s)", layout.Job, s.nodeVar())},
	}
	// pick keeps a kubelet's series when its target is the node picked.
	pick := fmt.Sprintf(" and %s %s", join, s.up(""))
	rules := func(kind, mode string) *answer.AlertRule {
		for i := range a.Rules {
			if r := &a.Rules[i]; r.Kind == kind && (mode == "" || r.Mode == mode) {
				return r
			}
		}
		return nil
	}
	if rep.Relist == nil {
		d.Unwritten = append(d.Unwritten, answer.Missing{Part: answer.PanelRelistAge, Why: "the tree builds no PLEG (report's missing part says why)"})
	} else {
		d.Panels = append(d.Panels, relistPanels(p.modes, pick, rules)...)
	}
	d.Panels = append(d.Panels, latencyPanel(d.Ladder, pick, rules(answer.AlertRuntimeSlow, "")), scrapePanel(s))
	if s.readsReady() {
		d.Panels = append(d.Panels, answer.Panel{Kind: answer.PanelReady, Queries: []answer.PanelQuery{{Ref: "A", Expr: s.ready("true"), Series: "node"}}, Lines: []answer.PanelLine{}})
	} else {
		d.Unwritten = append(d.Unwritten, answer.Missing{Part: answer.PanelReady, Why: "the scrape layout names no kube-state-metrics job or node label (-ksm-job, -node-label)"})
	}
	if r := rules(answer.AlertEventedGaveUp, ""); r != nil {
		d.Panels = append(d.Panels, answer.Panel{Kind: answer.PanelEventedStream, Queries: []answer.PanelQuery{
			{Ref: "A", Expr: successes + pick, Series: "instance"}, {Ref: "B", Expr: connErrors + pick, Series: "instance"},
		}, Lines: []answer.PanelLine{{Name: "retries", At: float64(retries(r.Retries)), Alert: r.Alert, Retries: r.Retries}}})
	} else {
		d.Unwritten = append(d.Unwritten, answer.Missing{Part: answer.PanelEventedStream, Why: "the tree builds no evented PLEG with a stream retry limit"})
	}
	for _, r := range a.Rules {
		if !strings.Contains(strings.Join(d.Alerts, "|")+"|", r.Alert+"|") {
			d.Alerts = append(d.Alerts, r.Alert)
		}
	}
	if len(d.Alerts) > 0 {
		d.Panels = append(d.Panels, answer.Panel{Kind: answer.PanelAlerts, Queries: []answer.PanelQuery{
			{Ref: "A", Expr: fmt.Sprintf("ALERTS{alertname=~%q}%s", strings.Join(d.Alerts, "|"), pick), Series: "alertname"},
		}, Lines: []answer.PanelLine{}})
	}
	return d
}

// relistPanels are the relist's age and duration panels: a query per
// mode, each selecting the kubelets in that mode as the mode's rules do,
// drawn against the mode's threshold (and the stall alert's line) and
// period.
func relistPanels(ms []mode, pick string, rules func(kind, mode string) *answer.AlertRule) []answer.Panel {
	age := answer.Panel{Kind: answer.PanelRelistAge, Queries: []answer.PanelQuery{}, Lines: []answer.PanelLine{}}
	dur := answer.Panel{Kind: answer.PanelRelistDuration, Queries: []answer.PanelQuery{}, Lines: []answer.PanelLine{}}
	for i, m := range ms {
		last, _ := m.lastRelist()
		age.Queries = append(age.Queries, answer.PanelQuery{Ref: ref(i), Mode: m.name, Expr: fmt.Sprintf("time() - %s%s%s", last, m.selector, pick), Series: "instance"})
		if r := rules(answer.AlertStalled, m.name); r != nil {
			if at, err := time.ParseDuration(r.At); err == nil {
				age.Lines = append(age.Lines, answer.PanelLine{Name: "stalled", Mode: m.name, At: at.Seconds(), Alert: r.Alert, Value: m.threshold})
			}
		}
		if t, ok := m.threshold.Duration(); ok {
			l := answer.PanelLine{Name: "threshold", Mode: m.name, At: t.Seconds(), Value: m.threshold}
			if r := rules(answer.AlertUnhealthy, m.name); r != nil {
				l.Alert = r.Alert
			}
			age.Lines = append(age.Lines, l)
		}
		for j, q := range []string{medianQuantile, slowQuantile} {
			dur.Queries = append(dur.Queries, answer.PanelQuery{Ref: ref(2*i + j), Mode: m.name, Expr: relistQuantile(q) + m.selector + pick, Series: "quantile " + q})
		}
		if p, ok := m.period.Duration(); ok {
			l := answer.PanelLine{Name: "period", Mode: m.name, At: p.Seconds(), Value: m.period}
			if r := rules(answer.AlertRelistSlow, m.name); r != nil {
				l.Alert = r.Alert
			}
			dur.Lines = append(dur.Lines, l)
		}
	}
	return []answer.Panel{age, dur}
}

// latencyPanel is the runtime calls' latency per operation, drawn
// against the ladder's rungs and the latency rule's line.
func latencyPanel(lad *answer.Ladder, pick string, slow *answer.AlertRule) answer.Panel {
	p := answer.Panel{Kind: answer.PanelRuntimeLatency, Lines: []answer.PanelLine{}, Queries: []answer.PanelQuery{
		{Ref: "A", Expr: latencyQuantileOf(latencyQuantile) + pick, Series: "operation_type"},
	}}
	if lad == nil {
		return p
	}
	for i := range lad.Rungs {
		r := &lad.Rungs[i]
		if r.Seconds > 0 {
			p.Lines = append(p.Lines, answer.PanelLine{Name: r.Name, At: r.Seconds, Rung: r})
		}
	}
	if slow != nil && len(slow.Rungs) > 0 {
		r := slow.Rungs[0]
		if r.WarnSeconds > 0 {
			p.Lines = append(p.Lines, answer.PanelLine{Name: r.Name + " warning", At: r.WarnSeconds, Alert: slow.Alert, Rung: &r})
		}
	}
	return p
}

// scrapePanel is up of each of the kubelet's endpoints: /metrics, whose
// collectors call the runtime, and the endpoint that calls none.
func scrapePanel(s series) answer.Panel {
	p := answer.Panel{Kind: answer.PanelScrape, Lines: []answer.PanelLine{}}
	if !s.tellsDark() {
		p.Queries = []answer.PanelQuery{{Ref: "A", Expr: s.up(""), Series: "instance"}}
		return p
	}
	p.Queries = []answer.PanelQuery{{Ref: "A", Expr: s.up(s.l.MetricsPath), Series: s.l.PathLabel}, {Ref: "B", Expr: s.up(s.l.AlivePath), Series: s.l.PathLabel}}
	return p
}

// ref is a query's Grafana refId: A, B, ...
func ref(i int) string {
	return string(rune('A' + i))
}
