// Package grafana writes plegvet's dashboard (answer.Dashboard) as
// Grafana's dashboard JSON, through grafana-foundation-sdk (Apache-2.0),
// whose types Grafana itself generates from its schema: the JSON is what
// Grafana reads, without plegvet depending on Grafana's own (AGPL)
// modules. The words are internal/render's; a package of its own, as
// render/sarif is, so that only the command links the SDK.
package grafana

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
)

// The colours of the lines: a warning's, a critical alert's, a rung's.
const (
	colorBase     = "green"
	colorWarning  = "orange"
	colorCritical = "red"
	colorRung     = "purple"
)

// DashboardJSON writes d as a Grafana dashboard's JSON.
func DashboardJSON(w io.Writer, d *answer.Dashboard) error {
	b, err := dashboardJSON(d)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func dashboardJSON(d *answer.Dashboard) ([]byte, error) {
	ds := common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}
	title, description := render.DashboardWords(d)
	b := dashboard.NewDashboardBuilder(title).Uid(render.DashboardUID(d)).
		Tags([]string{"plegvet", "kubelet", "pleg"}).Description(description).
		Time("now-1h", "now").Refresh("30s").Timezone(common.TimeZoneUtc)
	for _, v := range d.Variables {
		if v.Datasource != "" {
			b.WithVariable(dashboard.NewDatasourceVariableBuilder(v.Name).Label("Data source").Type(v.Datasource))
			continue
		}
		b.WithVariable(dashboard.NewQueryVariableBuilder(v.Name).Label(v.Name).Datasource(ds).
			Query(dashboard.StringOrMap{String: cog.ToPtr(v.Query)}).Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Sort(dashboard.VariableSortAlphabeticalAsc))
	}
	node := d.Variables[len(d.Variables)-1].Name
	for _, p := range d.Panels {
		b.WithPanel(panel(d, &p, ds, node))
	}
	db, err := b.Build()
	if err != nil {
		return nil, err
	}
	// PromQL's comparisons stay readable: no HTML escaping.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(db); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// panel is one panel: a time series of its queries, each query's lines
// drawn as thresholds on its own series.
func panel(d *answer.Dashboard, p *answer.Panel, ds common.DataSourceRef, node string) *timeseries.PanelBuilder {
	title, unit, words := render.PanelWords(d, p)
	pb := timeseries.NewPanelBuilder().Title(title + " on $" + node).Description(words).Datasource(ds).Unit(unit).
		Height(8).Span(12).
		ThresholdsStyle(common.NewGraphThresholdsStyleConfigBuilder().Mode(common.GraphThresholdsStyleModeDashed))
	for _, q := range p.Queries {
		legend := "{{" + q.Series + "}}"
		if strings.HasPrefix(q.Series, "quantile ") {
			legend = q.Series
		}
		if q.Mode != "" {
			legend += " (" + q.Mode + ")"
		}
		if p.Kind == answer.PanelAlerts {
			legend = "{{alertname}} {{alertstate}} ({{pleg_mode}})"
		}
		pb.WithTarget(prometheus.NewDataqueryBuilder().Expr(q.Expr).LegendFormat(legend).RefId(q.Ref).Datasource(ds))
	}
	// The lines a mode's queries are drawn against are theirs; the lines
	// of no mode, every query's.
	pb.Thresholds(thresholds(p.Lines, ""))
	for _, q := range p.Queries {
		if q.Mode == "" {
			continue
		}
		t, _ := thresholds(p.Lines, q.Mode).Build()
		pb.OverrideByQuery(q.Ref, []dashboard.DynamicConfigValue{{Id: "thresholds", Value: t}})
	}
	return pb
}

func thresholds(lines []answer.PanelLine, mode string) *dashboard.ThresholdsConfigBuilder {
	steps := []dashboard.Threshold{{Color: colorBase}}
	for _, l := range lines {
		if l.Mode != mode {
			continue
		}
		color := colorWarning
		switch {
		case l.Rung != nil && l.Alert == "":
			color = colorRung
		case l.Name == "threshold" || l.Name == "retries":
			color = colorCritical
		}
		steps = append(steps, dashboard.Threshold{Value: cog.ToPtr(l.At), Color: color})
	}
	// Grafana reads the steps in order, each from its value up.
	slices.SortStableFunc(steps[1:], func(a, b dashboard.Threshold) int { return cmp.Compare(*a.Value, *b.Value) })
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(steps)
}

// DashboardConfigMap writes d's JSON as a ConfigMap labelled for
// kube-prometheus-stack's Grafana sidecar, which loads the dashboards of
// the ConfigMaps labelled grafana_dashboard: "1".
func DashboardConfigMap(w io.Writer, d *answer.Dashboard) error {
	js, err := dashboardJSON(d)
	if err != nil {
		return err
	}
	type metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	cm := struct {
		APIVersion string            `yaml:"apiVersion"`
		Kind       string            `yaml:"kind"`
		Metadata   metadata          `yaml:"metadata"`
		Data       map[string]string `yaml:"data"`
	}{"v1", "ConfigMap", metadata{render.DashboardUID(d), map[string]string{"grafana_dashboard": "1", "app.kubernetes.io/managed-by": "plegvet"}},
		map[string]string{render.DashboardUID(d) + ".json": string(js)}}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", render.DashboardConfigMapComment(d))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(cm); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}
