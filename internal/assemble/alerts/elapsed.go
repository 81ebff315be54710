package alerts

import (
	"cmp"
	"fmt"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/plegperiods"
)

// The stall alert fires at two thirds of the threshold in force: above
// the gate-on relist period (5m of 10m in v1.26-v1.36), so a healthy
// kubelet relisting every 5m never trips it, and a minute before a 3m
// threshold turns the node NotReady.
const stallNum, stallDen = 2, 3

// A quantile of kubelet_pleg_relist_duration_seconds cannot exceed its
// highest finite bucket, le="10" in every real scrape of v1.36.5 and
// v1.37.2 (nodeverdict/testdata/real): only periods below it can be
// compared with.
const durationBucketTop = 10 * time.Second

// The relist-slow rule reads the 0.99 quantile over slowWindow, and fires
// when it stays above the period for slowFor.
const (
	slowQuantile = "0.99"
	slowWindow   = 5 * time.Minute
	slowFor      = 5 * time.Minute
)

// riseWindow and riseStep: the relist count is seen to rise at a step
// when it changed within riseWindow before it; riseWindow is two steps,
// so that every change between two scrapes up to a step apart is seen.
const (
	riseWindow = 2 * time.Minute
	riseStep   = time.Minute
)

// lastSeenAt is the start of the kubelet's last successful relist, the
// newest value of its gauge within w: while /metrics is dark, the value
// it had when it last answered; 0 means no health poll has set it yet,
// which is no stall.
func lastSeenAt(w time.Duration) string {
	return fmt.Sprintf("(max_over_time(kubelet_pleg_last_seen_seconds[%s]) > 0)", window(w))
}

// lastRiseAt is about when the relist count last rose within w (a relist
// completed), late by at most riseWindow; where the evented PLEG's check
// overwrites last-seen, the last relist time that survives a dark
// /metrics. A count never seen to rise within w (a kubelet younger than
// its first gate-on relist period: a real v1.36.5 kubelet hung 25s after
// its start, docs/runtime-hung-evented.md) was set by a relist before its
// first sample there: that sample's time, late at worst.
func lastRiseAt(w time.Duration) string {
	const count = "kubelet_pleg_relist_duration_seconds_count"
	return fmt.Sprintf("(max_over_time((timestamp(changes(%s[%s]) > 0))[%s:%s]) or min_over_time(timestamp(%s)[%s:%s]))",
		count, window(riseWindow), window(w), window(riseStep), count, window(w), window(riseStep))
}

// progressStopped holds where the relist count is the same now as at
// before (no relist completed over at: a relist hung in the runtime's
// list call or in the cache update after it), each the last sample
// within w, so that a dark period between the two is bridged and a
// kubelet younger than at has no sample then; or where every
// list_podsandbox call failed over at (a relist that fails fast: its
// GetPods starts with ListPodSandbox, so none can have succeeded).
func progressStopped(at, w time.Duration) string {
	ops := func(metric string) string {
		return fmt.Sprintf("sum without(operation_type) (increase(%s{operation_type=\"list_podsandbox\"}[%s]))", metric, window(at))
	}
	const count = "kubelet_pleg_relist_duration_seconds_count"
	return fmt.Sprintf("(last_over_time(%s[%s]) == last_over_time(%s[%s] offset %s) or %s %s >= %s > 0)",
		count, window(w), count, window(w), window(at), join, ops("kubelet_runtime_operations_errors_total"), ops("kubelet_runtime_operations_total"))
}

// lastRelist is when m's kubelet last relisted successfully, as far as
// its series show, and the signal that says it: last-seen, or where a
// health check hides it, the relist count's last rise.
func (m mode) lastRelist() (expr, signal string) {
	if m.hiddenBy == nil {
		return lastSeenAt(m.window), answer.SignalLastSeen
	}
	return lastRiseAt(m.window), answer.SignalRelistProgress
}

// relistQuantile is the q quantile of the relists' duration over
// slowWindow, per kubelet.
func relistQuantile(q string) string {
	return fmt.Sprintf("histogram_quantile(%s, sum by (instance, job, le) (rate(kubelet_pleg_relist_duration_seconds_bucket[%s])))", q, window(slowWindow))
}

// connErrors counts the evented PLEG's stream failures.
const connErrors = "kubelet_evented_pleg_connection_error_count"

// elapsedRule is a rule comparing the time since the last successful
// relist with at: through last-seen, or where a health check hides it,
// through the relist's progress over at. It holds on an answering
// /metrics; while /metrics is dark, nobody can see the relist (a held
// call that stalls it and a slow runtime that does not look the same
// from outside): the unhealthy rule then holds only with the kubelet's
// own word (corroborated), and the stalled rule not at all.
func elapsedRule(m mode, at time.Duration, kind string) answer.AlertRule {
	r := answer.AlertRule{Mode: m.name, Threshold: m.threshold, Period: m.period, HiddenBy: m.hiddenBy, Message: m.message, At: at.String(),
		Needs: []string{answer.NeedsKubelet, answer.NeedsUp}}
	if m.check != nil {
		r.Check = m.check.Name
	}
	s := m.scrape
	var answering string
	last, signal := m.lastRelist()
	if r.Signal = signal; m.hiddenBy == nil {
		answering = fmt.Sprintf("(time() - %s > %s) and %s (%s)", last, seconds(at), join, s.answering())
	} else {
		answering = fmt.Sprintf("%s and %s (%s)", progressStopped(at, m.window), join, s.answering())
	}
	if kind != answer.AlertUnhealthy || !s.tellsDark() || !s.readsReady() {
		r.Expr = answering + m.selector
		return r
	}
	r.Dark = "ready-false"
	r.Needs = append(r.Needs, answer.NeedsAlive, answer.NeedsReady)
	r.Expr = fmt.Sprintf("(%s or (time() - %s > %s) and %s)%s", answering, last, seconds(at), s.corroborated(last, at), m.selector)
	return r
}

// elapsed writes the stalled (two thirds of the threshold) or the
// unhealthy (the threshold) rule of a mode.
func elapsed(a *answer.Alerts, m mode, kind string) {
	part := kind + "/" + m.name
	t, ok := m.threshold.Duration()
	if !ok {
		unwritten(a, part, "the threshold is %s", m.threshold)
		if kind == answer.AlertUnhealthy && m.relist != nil {
			// The node's health threshold was not followed: no rule says when it turns NotReady.
			notFollowed(a, m.relist, fmt.Sprintf("no PLEGRelistStalled or PLEGUnhealthy rule written for %s: the threshold is %s", m.name, m.threshold))
		}
		return
	}
	alert, severity := nameUnhealthy, "critical"
	if kind == answer.AlertStalled {
		t, alert, severity = t*stallNum/stallDen, nameStalled, "warning"
		if p, ok := m.period.Duration(); ok && t <= p {
			unwritten(a, part, "two thirds of the threshold (%s) is not above the relist period %s: a healthy kubelet would trip it", t, p)
			return
		}
	}
	r := elapsedRule(m, t, kind)
	r.Alert, r.Kind, r.Severity = alert, kind, severity
	a.Rules = append(a.Rules, r)
	if kind == answer.AlertUnhealthy && r.Dark == "" {
		unwritten(a, "dark-"+part, "%s", darkWhy(m.scrape))
	}
}

// darkWhy says why no rule holds the PLEG unhealthy while /metrics is dark.
func darkWhy(s series) string {
	if !s.tellsDark() {
		return "while /metrics is dark nothing says the PLEG is unhealthy: the scrape layout names no label telling the kubelet's /metrics from an endpoint of it that calls no runtime (-path-label, -alive-path)"
	}
	return "while /metrics is dark nothing says the PLEG is unhealthy: the scrape layout names no kube-state-metrics job or node label (-ksm-job, -node-label), so the node's Ready condition, the kubelet's own word, cannot be read"
}

// A relist that waited on a hung runtime took its whole deadline, and the
// rate of the duration histogram holds it for slowWindow after: the
// relist-slow rule holds only where the kubelet's /metrics answered every
// scrape over slowWindow and slowFor, so that a hang (alerted on by the
// stall and runtime-hung rules) leaves no relist-slow alert behind.
func slow(a *answer.Alerts, m mode) {
	p, ok := m.period.Duration()
	switch {
	case !ok:
		unwritten(a, answer.AlertRelistSlow+"/"+m.name, "the relist period is %s", m.period)
		return
	case p >= durationBucketTop:
		unwritten(a, answer.AlertRelistSlow+"/"+m.name, "the relist period %s is not below the relist duration histogram's highest finite bucket (%s): no quantile can exceed it; the stall rules cover a relist slower than that", p, durationBucketTop)
		return
	}
	a.Rules = append(a.Rules, answer.AlertRule{
		Alert: nameSlow, Kind: answer.AlertRelistSlow, Mode: m.name, Signal: answer.SignalRelistDuration, Severity: "warning",
		Expr: fmt.Sprintf("(%s > %s) unless %s min_over_time(%s[%s]) == 0%s",
			relistQuantile(slowQuantile), seconds(p), join, m.scrape.up(m.scrape.l.MetricsPath), window(slowWindow+slowFor), m.selector),
		For: window(slowFor), At: p.String(), Period: m.period, Threshold: m.threshold, Needs: []string{answer.NeedsKubelet, answer.NeedsUp},
	})
}

// gaveUp is the rule for the evented PLEG's last allowed stream failure,
// for a tree whose evented PLEG has a retry limit.
func gaveUp(a *answer.Alerts, rep *answer.Report, scope string) {
	on := rep.Relist.GateOn
	if on == nil || on.MaxStreamRetries == nil {
		unwritten(a, answer.AlertEventedGaveUp, "the tree builds no evented PLEG with a stream retry limit")
		return
	}
	n := retries(on.MaxStreamRetries)
	if n <= 0 {
		unwritten(a, answer.AlertEventedGaveUp, "the stream retry limit is %s", cmp.Or(on.MaxStreamRetries.Unresolved, "not a positive count"))
		return
	}
	r := answer.AlertRule{
		Alert: nameGaveUp, Kind: answer.AlertEventedGaveUp, Mode: answer.ModeGateOn, Signal: answer.SignalConnectionErrors, Severity: "warning",
		Expr: fmt.Sprintf("%s >= %d%s", connErrors, n, scope), At: fmt.Sprint(n), Retries: on.MaxStreamRetries,
		Needs: []string{answer.NeedsKubelet},
	}
	if e := rep.EventedPLEG; e != nil {
		r.OnStreamFailure = &e.OnStreamFailure
		if e.OnStreamFailure.Action == plegperiods.RestoreGenericRelist && on.Fallback.Resolved() {
			r.Fallback, r.FallbackThreshold = on.Fallback, on.FallbackThreshold
		}
	}
	a.Rules = append(a.Rules, r)
}
