package plegvet

import (
	"bytes"
	"context"
	"fmt"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/alerts"
	"github.com/plegvet/plegvet/internal/render"
)

type (
	// AlertRules is the Prometheus alerting rules for a tree's kubelets.
	AlertRules = answer.Alerts
	// AlertRule is one of them, and what it was built from.
	AlertRule = answer.AlertRule
)

// Alerts builds Prometheus alerting rules for a tree's kubelets (plegvet
// alerts): PLEG stalled, unhealthy, evented PLEG gave up and relist slow,
// each against the thresholds Inspect reads from the tree. The report is
// computed afresh (a kept report does not hold every value the rules
// need); the rules are kept as Inspect's answer is.
func Alerts(ctx context.Context, opts Options) (*AlertRules, error) {
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	return cached(opts, t, []string{"Alerts"}, func() (*AlertRules, error) {
		rep, err := inspect(ctx, t, src, opts.Proto)
		if err != nil {
			return nil, err
		}
		if rep.Relist == nil {
			for _, m := range rep.Missing {
				if m.Part == "relist" {
					return nil, fmt.Errorf("%s: no rules to write: %s", src.Dir, m.Why)
				}
			}
		}
		return alerts.Build(rep), nil
	})
}

// AlertRulesFile is Alerts written as a Prometheus rules file (what
// rule_files and promtool check rules read), positions relative to the
// tree.
func AlertRulesFile(ctx context.Context, opts Options) ([]byte, error) {
	a, err := Alerts(ctx, opts)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := render.AlertRules(&b, a, render.RulesFile); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
