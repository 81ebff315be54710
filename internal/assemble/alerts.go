package assemble

import (
	"context"
	"fmt"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/alerts"
)

// Alerts builds Prometheus alerting rules for a tree's kubelets (plegvet
// alerts) from the report read afresh (a kept report does not hold every
// value the rules need); the rules are kept as Inspect's answer is.
func Alerts(ctx context.Context, opts Options) (*answer.Alerts, error) {
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	layout := opts.Scrape
	if layout == (answer.ScrapeLayout{}) {
		layout = answer.DefaultScrapeLayout()
	}
	question := []string{"Alerts"}
	if layout != answer.DefaultScrapeLayout() {
		question = append(question, fmt.Sprintf("scrape %q %q %q %q %q %q", layout.Job, layout.PathLabel, layout.MetricsPath, layout.AlivePath, layout.NodeLabel, layout.KSMJob))
	}
	if p := alerts.CheckLayout(layout); len(p) > 0 {
		return nil, fmt.Errorf("scrape layout: %s: want %s", p[0].Field, p[0].Want)
	}
	return cached(opts, t, question, func() (*answer.Alerts, error) {
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
		return alerts.Build(rep, layout), nil
	})
}

// Dashboard builds the Grafana dashboard for a tree's kubelets (plegvet
// alerts -o dashboard) from the report read afresh, as Alerts builds the
// rules, with the same model; it is kept as they are.
func Dashboard(ctx context.Context, opts Options) (*answer.Dashboard, error) {
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	layout := opts.Scrape
	if layout == (answer.ScrapeLayout{}) {
		layout = answer.DefaultScrapeLayout()
	}
	if p := alerts.CheckLayout(layout); len(p) > 0 {
		return nil, fmt.Errorf("scrape layout: %s: want %s", p[0].Field, p[0].Want)
	}
	question := []string{"Dashboard", fmt.Sprintf("scrape %q %q %q %q %q %q", layout.Job, layout.PathLabel, layout.MetricsPath, layout.AlivePath, layout.NodeLabel, layout.KSMJob)}
	return cached(opts, t, question, func() (*answer.Dashboard, error) {
		rep, err := inspect(ctx, t, src, opts.Proto)
		if err != nil {
			return nil, err
		}
		if rep.Relist == nil {
			for _, m := range rep.Missing {
				if m.Part == "relist" {
					return nil, fmt.Errorf("%s: no dashboard to write: %s", src.Dir, m.Why)
				}
			}
		}
		return alerts.BuildDashboard(rep, layout), nil
	})
}
