package main

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/plegvet/plegvet"
	answ "github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/alerts"
	"github.com/plegvet/plegvet/internal/render"
)

// layoutFlags names the flag setting each scrape layout field (its JSON key).
var layoutFlags = map[string]string{
	"job": "job", "pathLabel": "path-label", "metricsPath": "metrics-path", "alivePath": "alive-path", "nodeLabel": "node-label", "ksmJob": "ksm-job",
}

func runAlerts(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("alerts", false)
	form := render.RulesFile
	fs.Func("o", "what to write, `rules|prometheusrule|dashboard|bundle`: rules (a Prometheus rules file, the default), prometheusrule (a prometheus-operator PrometheusRule, monitoring.coreos.com/v1), dashboard (a Grafana dashboard's JSON, its panels' queries the rules' own) or bundle (the PrometheusRule and the dashboard as a ConfigMap labelled grafana_dashboard: \"1\", written into -dir)", func(v string) error {
		form = render.AlertsForm(v)
		if !slices.Contains([]render.AlertsForm{render.RulesFile, render.PrometheusRule, formDashboard, formBundle}, form) {
			return errors.New("want rules, prometheusrule, dashboard or bundle")
		}
		return nil
	})
	dir := fs.String("dir", "", "with -o bundle, the `directory` to write the PrometheusRule and the dashboard's ConfigMap into (made if missing; kubectl apply -f DIR installs them)")
	layout := answ.DefaultScrapeLayout()
	fs.StringVar(&layout.Job, "job", layout.Job, "the `name` of the Prometheus job scraping the kubelets")
	fs.StringVar(&layout.PathLabel, "path-label", layout.PathLabel, "the `label` telling the kubelet's endpoints apart within the job (kube-prometheus's metrics_path); \"\" when it scrapes /metrics alone: a hung runtime then cannot be told from a kubelet that is gone, and no KubeletRuntimeHung rule is written")
	fs.StringVar(&layout.MetricsPath, "metrics-path", layout.MetricsPath, "the path-label's `value` for the kubelet's /metrics, whose collectors call the runtime")
	fs.StringVar(&layout.AlivePath, "alive-path", layout.AlivePath, "the path-label's `value` for an endpoint of the same kubelet that calls no runtime, whose answer says the kubelet is alive")
	fs.StringVar(&layout.NodeLabel, "node-label", layout.NodeLabel, "the `label` naming the kubelet's node on its targets (kube-prometheus's node), joined with kube-state-metrics' node; \"\" when none: no rule then reads the node's Ready condition")
	fs.StringVar(&layout.KSMJob, "ksm-job", layout.KSMJob, "the `name` of the Prometheus job scraping kube-state-metrics, whose kube_node_status_condition says the node's Ready condition; \"\" when none: PLEGUnhealthy then needs an answering /metrics, and no KubeletRuntimeHung rule is written")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	if p := alerts.CheckLayout(layout); len(p) > 0 {
		return usageError(stderr, "alerts", "-%s: want %s", layoutFlags[p[0].Field], p[0].Want)
	}
	switch {
	case form == formBundle && *dir == "":
		return usageError(stderr, "alerts", "-o bundle needs -dir DIR")
	case form != formBundle && *dir != "":
		return usageError(stderr, "alerts", "-dir is for -o bundle")
	}
	opts := src.options(stderr)
	opts.Scrape = layout
	if form == formDashboard || form == formBundle {
		return runDashboard(ctx, src, opts, form, *dir, stdout, stderr)
	}
	rules, err := plegvet.Alerts(ctx, opts)
	if err != nil {
		return fail(stderr, "alerts", err)
	}
	if err := src.relocate(rules, rules.Source); err != nil {
		return fail(stderr, "alerts", err)
	}
	// A rules file is read by Prometheus and by whoever an alert wakes: a
	// release's positions are written as links to the lines, by default.
	out := src.output(stdout)
	out.document = true
	if out.positions == "" && rules.Source.Release() != "" {
		out.positions = plegvet.PositionsURL
	}
	return printAnswer("alerts", stdout, stderr, out, rules, func(w io.Writer) error { return render.AlertRules(w, rules, form) }, rules.Source)
}
