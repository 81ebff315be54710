package plegvet

import (
	"bytes"
	"context"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/render"
)

// Alerts builds Prometheus alerting rules for a tree's kubelets (plegvet
// alerts): PLEG stalled, unhealthy, evented PLEG gave up and relist slow,
// each against the thresholds Inspect reads from the tree.
func Alerts(ctx context.Context, opts Options) (*answer.Alerts, error) {
	return assemble.Alerts(ctx, opts.internal())
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

// Dashboard is the Grafana dashboard for a tree's kubelets (plegvet
// alerts -o dashboard): per node, the relist's age and duration against
// the thresholds and periods in force, the runtime's latency against the
// latency ladder, the scrape, the node's Ready condition, the evented
// PLEG's stream and the alerts' state, each query the rules' own.
func Dashboard(ctx context.Context, opts Options) (*answer.Dashboard, error) {
	return assemble.Dashboard(ctx, opts.internal())
}
