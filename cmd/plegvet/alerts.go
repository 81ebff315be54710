package main

import (
	"context"
	"errors"
	"io"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/render"
)

func runAlerts(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("alerts", false)
	form := render.RulesFile
	fs.Func("o", "what to write: rules (a Prometheus rules file, the default) or prometheusrule (a prometheus-operator PrometheusRule, monitoring.coreos.com/v1)", func(v string) error {
		form = render.AlertsForm(v)
		if form != render.RulesFile && form != render.PrometheusRule {
			return errors.New("want rules or prometheusrule")
		}
		return nil
	})
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	rules, err := plegvet.Alerts(ctx, src.options(stderr))
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
	return answer("alerts", stdout, stderr, out, rules, func(w io.Writer) error { return render.AlertRules(w, rules, form) }, rules.Source)
}
