package main

import (
	"context"
	"errors"
	"io"

	"github.com/plegvet/plegvet"
	answ "github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
)

func runAlerts(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("alerts", false)
	form := render.RulesFile
	fs.Func("o", "what to write, `rules|prometheusrule`: rules (a Prometheus rules file, the default) or prometheusrule (a prometheus-operator PrometheusRule, monitoring.coreos.com/v1)", func(v string) error {
		form = render.AlertsForm(v)
		if form != render.RulesFile && form != render.PrometheusRule {
			return errors.New("want rules or prometheusrule")
		}
		return nil
	})
	layout := answ.DefaultScrapeLayout()
	fs.StringVar(&layout.Job, "job", layout.Job, "the `name` of the Prometheus job scraping the kubelets")
	fs.StringVar(&layout.PathLabel, "path-label", layout.PathLabel, "the `label` telling the kubelet's endpoints apart within the job (kube-prometheus's metrics_path); \"\" when it scrapes /metrics alone: a hung runtime then cannot be told from a kubelet that is gone, and no KubeletRuntimeHung rule is written")
	fs.StringVar(&layout.MetricsPath, "metrics-path", layout.MetricsPath, "the path-label's `value` for the kubelet's /metrics, whose collectors call the runtime")
	fs.StringVar(&layout.AlivePath, "alive-path", layout.AlivePath, "the path-label's `value` for an endpoint of the same kubelet that calls no runtime, whose answer says the kubelet is alive")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	if layout.Job == "" {
		return usageError(stderr, "alerts", "-job: want the name of the job scraping the kubelets")
	}
	opts := src.options(stderr)
	opts.Scrape = layout
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
