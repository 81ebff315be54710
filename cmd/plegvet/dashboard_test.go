package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet/answer"
)

// decodeDashboard decodes a dashboard's JSON strictly into the SDK's
// types (an unknown or mistyped field is an error) and returns each
// panel's title and its Prometheus queries.
func decodeDashboard(t *testing.T, b []byte) (dashboard.Dashboard, map[string][]string) {
	t.Helper()
	plugins.RegisterDefaultPlugins() // the panels' and queries' types, by their type
	var db dashboard.Dashboard
	if err := sdkError(db.UnmarshalJSONStrict(b)); err != nil {
		t.Fatalf("the dashboard does not decode strictly into the SDK's Dashboard: %v", err)
	}
	if err := sdkError(db.Validate()); err != nil {
		t.Fatalf("the SDK's Dashboard does not validate: %v", err)
	}
	// The SDK's PanelOrRowPanel drops a panel whose strict decoding
	// returns its empty error list (v0.0.22): each panel is decoded
	// strictly here, through Panel's own decoder.
	var raw struct {
		Panels []json.RawMessage `json:"panels"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	queries := map[string][]string{}
	for _, r := range raw.Panels {
		var p dashboard.Panel
		if err := sdkError(p.UnmarshalJSONStrict(r)); err != nil {
			t.Fatalf("a panel does not decode strictly into the SDK's Panel: %v\n%s", err, r)
		}
		if err := sdkError(p.Validate()); err != nil {
			t.Fatalf("the SDK's Panel does not validate: %v", err)
		}
		if p.Type != "timeseries" || p.Title == nil || p.Description == nil || p.FieldConfig == nil || p.FieldConfig.Defaults.Thresholds == nil {
			t.Fatalf("a panel without its type, title, description or lines: %s", r)
		}
		// The same holds for its queries, decoded here as Prometheus's.
		var targets struct {
			Targets []json.RawMessage `json:"targets"`
		}
		if err := json.Unmarshal(r, &targets); err != nil {
			t.Fatal(err)
		}
		for _, q := range targets.Targets {
			var pq prometheus.Dataquery
			if err := sdkError(pq.UnmarshalJSONStrict(q)); err != nil {
				t.Fatalf("panel %q: a query does not decode strictly into the SDK's Prometheus Dataquery: %v\n%s", *p.Title, err, q)
			}
			if err := sdkError(pq.Validate()); err != nil || pq.Expr == "" || pq.RefId == nil {
				t.Fatalf("panel %q: a query without its expression or refId (%v): %s", *p.Title, err, q)
			}
			queries[*p.Title] = append(queries[*p.Title], pq.Expr)
		}
	}
	return db, queries
}

// sdkError is err, nil for an empty cog.BuildErrors: the SDK's
// generated code returns its error list as an error even when empty.
func sdkError(err error) error {
	if errs, ok := err.(cog.BuildErrors); ok && len(errs) == 0 {
		return nil
	}
	return err
}

// The dashboard decodes into grafana-foundation-sdk's Dashboard, strictly;
// its panels are the answer's, each query the answer's, for the node the
// dashboard's variables pick.
func TestDashboardDecodesIntoTheSDK(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := dispatch([]string{"alerts", "-o", "dashboard", "-C", lookAlike}, &stdout, &stderr); code != 0 {
		t.Fatalf("alerts -o dashboard: exit %d: %s", code, stderr.String())
	}
	db, queries := decodeDashboard(t, []byte(stdout.String()))
	var vars []string
	for _, v := range db.Templating.List {
		vars = append(vars, v.Name)
	}
	if want := []string{"datasource", "cluster", "node"}; !slices.Equal(vars, want) {
		t.Errorf("variables %q; want %q", vars, want)
	}
	stdout.Reset()
	if code := dispatch([]string{"alerts", "-o", "dashboard", "-json", "-C", lookAlike}, &stdout, &stderr); code != 0 {
		t.Fatalf("alerts -o dashboard -json: exit %d: %s", code, stderr.String())
	}
	var d answer.Dashboard
	if err := json.Unmarshal([]byte(stdout.String()), &d); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	n := 0
	for _, p := range d.Panels {
		kinds = append(kinds, p.Kind)
		n += len(p.Queries)
		for _, q := range p.Queries {
			if !strings.Contains(q.Expr, `node="$node", cluster="$cluster"`) {
				t.Errorf("%s: a query not for the node picked: %s", p.Kind, q.Expr)
			}
		}
	}
	want := []string{answer.PanelRelistAge, answer.PanelRelistDuration, answer.PanelRuntimeLatency, answer.PanelScrape, answer.PanelReady, answer.PanelEventedStream, answer.PanelAlerts}
	if !slices.Equal(kinds, want) {
		t.Errorf("panels %q; want %q", kinds, want)
	}
	got := 0
	for _, qs := range queries {
		got += len(qs)
	}
	if len(queries) != len(want) || got != n {
		t.Errorf("the SDK's dashboard holds %d panels and %d queries; the answer %d and %d", len(queries), got, len(want), n)
	}
}

// The dashboards of two releases, as written: UPDATE_GOLDEN=1 rewrites
// them.
func TestDashboardGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes releases")
	}
	for _, v := range []string{"v1.37.2", "v1.36.5"} {
		var stdout, stderr strings.Builder
		if code := dispatch([]string{"alerts", "-o", "dashboard", "-k8s", v}, &stdout, &stderr); code != 0 {
			t.Fatalf("alerts -o dashboard -k8s %s: exit %d: %s", v, code, stderr.String())
		}
		decodeDashboard(t, []byte(stdout.String()))
		checkGoldenFile(t, filepath.Join("testdata", "dashboard", v+".json"), []byte(stdout.String()))
	}
}

// A bundle is the PrometheusRule and the dashboard's ConfigMap, labelled
// for kube-prometheus-stack's sidecar, its JSON the dashboard's; each is
// printed with its path. (tools/bundlecheck decodes them strictly into
// prometheus-operator's and k8s.io/api's types.)
func TestAlertsBundle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bundle")
	var stdout, stderr strings.Builder
	if code := dispatch([]string{"alerts", "-o", "bundle", "-dir", dir, "-C", lookAlike}, &stdout, &stderr); code != 0 {
		t.Fatalf("alerts -o bundle: exit %d: %s", code, stderr.String())
	}
	files := []string{filepath.Join(dir, "plegvet-pleg-prometheusrule.yaml"), filepath.Join(dir, "plegvet-pleg-dashboard.yaml")}
	if got := strings.Fields(stdout.String()); !slices.Equal(got, files) {
		t.Errorf("printed %q; want %q", got, files)
	}
	var rules, dash strings.Builder
	if code := dispatch([]string{"alerts", "-o", "prometheusrule", "-C", lookAlike}, &rules, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if code := dispatch([]string{"alerts", "-o", "dashboard", "-C", lookAlike}, &dash, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	b, err := os.ReadFile(files[0])
	if err != nil || string(b) != rules.String() {
		t.Errorf("%s is not -o prometheusrule's output (%v)", files[0], err)
	}
	b, err = os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(b, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Metadata.Labels["grafana_dashboard"] != "1" || cm.Data["plegvet-pleg.json"] != dash.String() {
		t.Errorf("the ConfigMap is not the dashboard's, labelled grafana_dashboard: \"1\":\n%s", b)
	}
}

// -o bundle needs -dir, and -dir is for -o bundle alone: one line, exit 2.
func TestAlertsBundleUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "bundle"}, "plegvet alerts: -o bundle needs -dir DIR\n"},
		{[]string{"-o", "dashboard", "-dir", "x"}, "plegvet alerts: -dir is for -o bundle\n"},
		{[]string{"-dir", "x"}, "plegvet alerts: -dir is for -o bundle\n"},
	} {
		var stdout, stderr strings.Builder
		code := dispatch(append(append([]string{"alerts"}, tc.args...), "-C", lookAlike), &stdout, &stderr)
		if code != exitUsage || stderr.String() != tc.want || stdout.Len() != 0 {
			t.Errorf("alerts %q: exit %d, stderr %q; want exit %d, %q", tc.args, code, stderr.String(), exitUsage, tc.want)
		}
	}
}
