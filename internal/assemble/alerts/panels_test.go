package alerts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

// The relist-age panel's queries are the rules' own: each mode's query is
// the last relist its rules read, their mode selector, for the node
// picked; drawn against the values the rules compare with.
func TestDashboardPanelsAreTheRules(t *testing.T) {
	wantLines := map[string][]string{
		"v1.25.16": {"stalled always 120 PLEGRelistStalled", "threshold always 180 PLEGUnhealthy"},
		"v1.36.5": {"stalled gate-off 120 PLEGRelistStalled", "threshold gate-off 180 PLEGUnhealthy", "stalled gate-on 400 PLEGRelistStalled", "threshold gate-on 600 PLEGUnhealthy",
			"stalled fallback 120 PLEGRelistStalled", "threshold fallback 180 PLEGUnhealthy"},
		"v1.37.2": {"stalled always 120 PLEGRelistStalled", "threshold always 180 PLEGUnhealthy"},
	}
	for v, rep := range shapes() {
		rep.Health = health()
		if e := rep.EventedPLEG; e == nil || e.HealthCheck == nil {
			rep.Health.Checks = rep.Health.Checks[:1]
		}
		layout := answer.DefaultScrapeLayout()
		d := BuildDashboard(rep, layout)
		a := Build(rep, layout)
		p := planFor(rep, layout)
		pick := ` and on(instance, job) up{job="kubelet", node="$node", cluster="$cluster"}`
		var age *answer.Panel
		for i := range d.Panels {
			if d.Panels[i].Kind == answer.PanelRelistAge {
				age = &d.Panels[i]
			}
		}
		if age == nil || len(age.Queries) != len(p.modes) {
			t.Fatalf("%s: relist-age panel %+v; want a query per mode (%d)", v, age, len(p.modes))
		}
		for i, m := range p.modes {
			last, _ := m.lastRelist()
			if q := age.Queries[i]; q.Mode != m.name || q.Expr != "time() - "+last+m.selector+pick {
				t.Errorf("%s %s: query %q; want time() - %s%s%s", v, m.name, q.Expr, last, m.selector, pick)
			}
			for _, r := range a.Rules {
				if r.Kind == answer.AlertUnhealthy && r.Mode == m.name && (!strings.Contains(r.Expr, last) || !strings.HasSuffix(r.Expr, m.selector)) {
					t.Errorf("%s %s: the rule does not read the panel's last relist %s with its selector: %s", v, m.name, last, r.Expr)
				}
			}
		}
		var lines []string
		for _, l := range age.Lines {
			lines = append(lines, fmt.Sprintf("%s %s %v %s", l.Name, l.Mode, l.At, l.Alert))
		}
		if !reflect.DeepEqual(lines, wantLines[v]) {
			t.Errorf("%s: lines %q; want %q", v, lines, wantLines[v])
		}
	}
}

// A layout without kube-state-metrics has no Ready panel, one without a
// path label shows up of every endpoint, and a release without an
// evented PLEG no stream panel: each says why.
func TestDashboardLayouts(t *testing.T) {
	rep := shapes()["v1.25.16"]
	rep.Health = health()
	rep.Health.Checks = rep.Health.Checks[:1]
	layout := answer.DefaultScrapeLayout()
	layout.KSMJob, layout.PathLabel = "", ""
	d := BuildDashboard(rep, layout)
	var kinds, unwritten []string
	for _, p := range d.Panels {
		kinds = append(kinds, p.Kind)
		if p.Kind == answer.PanelScrape && (len(p.Queries) != 1 || p.Queries[0].Expr != `up{job="kubelet", node="$node", cluster="$cluster"}`) {
			t.Errorf("scrape panel without a path label: %+v", p.Queries)
		}
	}
	for _, m := range d.Unwritten {
		unwritten = append(unwritten, m.Part)
	}
	want := []string{answer.PanelRelistAge, answer.PanelRelistDuration, answer.PanelRuntimeLatency, answer.PanelScrape, answer.PanelAlerts}
	if !reflect.DeepEqual(kinds, want) || !reflect.DeepEqual(unwritten, []string{answer.PanelReady, answer.PanelEventedStream}) {
		t.Errorf("panels %q, unwritten %q; want %q, [ready evented-stream]", kinds, unwritten, want)
	}
}
