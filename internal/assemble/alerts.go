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
	return fromReport(ctx, opts, "rules", func(layout answer.ScrapeLayout) []string {
		question := []string{"Alerts"}
		if layout != answer.DefaultScrapeLayout() {
			question = append(question, scrapeKey(layout))
		}
		return question
	}, alerts.Build)
}

// Dashboard builds the Grafana dashboard for a tree's kubelets (plegvet
// alerts -o dashboard) from the report read afresh, as Alerts builds the
// rules, with the same model; it is kept as they are.
func Dashboard(ctx context.Context, opts Options) (*answer.Dashboard, error) {
	return fromReport(ctx, opts, "dashboard", func(layout answer.ScrapeLayout) []string {
		return []string{"Dashboard", scrapeKey(layout)}
	}, alerts.BuildDashboard)
}

// fromReport builds what (rules, a dashboard) from the tree's report in
// the scrape layout opts give (the default when none), checked first,
// and keeps it under the question the layout gives.
func fromReport[T any](ctx context.Context, opts Options, what string, question func(answer.ScrapeLayout) []string, build func(*answer.Report, answer.ScrapeLayout) *T) (*T, error) {
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
	return cached(opts, t, question(layout), func() (*T, error) {
		rep, err := inspect(ctx, t, src, opts.Proto)
		if err != nil {
			return nil, err
		}
		if rep.Relist == nil {
			for _, m := range rep.Missing {
				if m.Part == "relist" {
					return nil, fmt.Errorf("%s: no %s to write: %s", src.Dir, what, m.Why)
				}
			}
		}
		return build(rep, layout), nil
	})
}

// scrapeKey is the layout as a cache key's part.
func scrapeKey(l answer.ScrapeLayout) string {
	return fmt.Sprintf("scrape %q %q %q %q %q %q", l.Job, l.PathLabel, l.MetricsPath, l.AlivePath, l.NodeLabel, l.KSMJob)
}
