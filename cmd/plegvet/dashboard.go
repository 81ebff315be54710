package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/internal/render/grafana"
)

// The alerts command's outputs beyond the rules: the dashboard, and the
// bundle of the PrometheusRule and the dashboard's ConfigMap.
const (
	formDashboard render.AlertsForm = "dashboard"
	formBundle    render.AlertsForm = "bundle"
)

// runDashboard writes the dashboard's JSON on stdout, or the bundle's two
// files into dir, each printed as the rules are (a release's positions
// as links to the lines).
func runDashboard(ctx context.Context, src *sourceFlags, opts plegvet.Options, form render.AlertsForm, dir string, stdout, stderr io.Writer) int {
	d, err := plegvet.Dashboard(ctx, opts)
	if err != nil {
		return fail(stderr, "alerts", err)
	}
	if err := src.relocate(d, d.Source); err != nil {
		return fail(stderr, "alerts", err)
	}
	out := src.output(stdout)
	out.document = true
	if out.positions == "" && d.Source.Release() != "" {
		out.positions = plegvet.PositionsURL
	}
	if form == formDashboard {
		return printAnswer("alerts", stdout, stderr, out, d, func(w io.Writer) error { return grafana.DashboardJSON(w, d) }, d.Source)
	}
	rules, err := plegvet.Alerts(ctx, opts)
	if err != nil {
		return fail(stderr, "alerts", err)
	}
	if err := src.relocate(rules, rules.Source); err != nil {
		return fail(stderr, "alerts", err)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fail(stderr, "alerts", err)
	}
	uid := render.DashboardUID(d)
	for _, f := range []struct {
		name  string
		value any
		write func(io.Writer) error
	}{
		{uid + "-prometheusrule.yaml", rules, func(w io.Writer) error { return render.AlertRules(w, rules, render.PrometheusRule) }},
		{uid + "-dashboard.yaml", d, func(w io.Writer) error { return grafana.DashboardConfigMap(w, d) }},
	} {
		path := filepath.Join(dir, f.name)
		file, err := os.Create(path)
		if err != nil {
			return fail(stderr, "alerts", err)
		}
		out.json = false
		err = out.text(file, f.value, f.write, &d.Source)
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fail(stderr, "alerts", err)
		}
		fmt.Fprintln(stdout, path)
	}
	return problems(stderr, "alerts", d.Source)
}
