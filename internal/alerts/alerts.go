// Package alerts builds Prometheus alerting rules for a tree's kubelets
// from plegvet's report: the PromQL of each rule and the values read from
// the tree it compares with. The wording (annotations) and the YAML are
// internal/render's.
package alerts

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"golang.org/x/mod/semver"

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

// Alert names, one per kind.
const (
	nameStalled   = "PLEGRelistStalled"
	nameUnhealthy = "PLEGUnhealthy"
	nameGaveUp    = "EventedPLEGGaveUp"
	nameSlow      = "PLEGRelistSlow"
)

// join matches a kubelet's series with its other series: the same
// scrape target.
const join = "on(instance, job)"

// mode is one threshold in force and how a rule selects the kubelets
// it holds for.
type mode struct {
	name              string
	period, threshold *answer.Value
	hiddenBy          *answer.HealthCheck
	selector          string // appended to each expression: " and on(...) ..."
	// check is the health check failing at threshold, and message the
	// error it then returns; nil when none was read.
	check   *answer.HealthRule
	message *answer.HealthMessage
}

// Build writes the rules for rep's kubelets.
func Build(rep *answer.Report) *answer.Alerts {
	a := &answer.Alerts{SchemaVersion: answer.SchemaVersion, Source: rep.Source, Health: rep.Health, Rules: []answer.AlertRule{}, Unwritten: []answer.Missing{}}
	scope := ""
	if mm := semver.MajorMinor(rep.Source.KubernetesVersion); mm != "" {
		a.Minor = mm
		scope = fmt.Sprintf(" and %s kubernetes_build_info{git_version=~%q}", join, strings.ReplaceAll(mm, ".", "[.]")+"[.].*")
	}
	a.Group = strings.TrimSuffix("plegvet-pleg-"+a.Minor, "-")
	r := rep.Relist
	if r == nil {
		unwritten(a, "all", "the tree builds no PLEG (report's missing part says why)")
		return a
	}
	if r.Gate != nil {
		a.Gate = r.Gate.Name
	}
	if r.GateUnresolved != nil {
		unwritten(a, "gate-on", "the test deciding the evented PLEG could not be followed to a feature gate; the rules hold for the gate-off relist only")
	}
	for _, m := range modes(rep) {
		m.selector += scope
		m.check = failingCheck(rep.Health, m)
		m.message = thresholdMessage(m.check)
		elapsed(a, m, answer.AlertStalled)
		elapsed(a, m, answer.AlertUnhealthy)
		slow(a, m)
	}
	gaveUp(a, rep, scope)
	return a
}

func unwritten(a *answer.Alerts, part, format string, args ...any) {
	a.Unwritten = append(a.Unwritten, answer.Missing{Part: part, Why: fmt.Sprintf(format, args...)})
}

// modes are the thresholds a kubelet of the tree can run with: one when
// the gate changes neither the threshold nor what last-seen shows; else
// gate off, gate on and, when the evented PLEG restores a threshold after
// its stream fails for good, the fallback.
func modes(rep *answer.Report) []mode {
	r, off := rep.Relist, rep.Relist.GateOff
	on := r.GateOn
	var hidden *answer.HealthCheck
	if e := rep.EventedPLEG; e != nil {
		hidden = e.HealthCheck
	}
	if r.Gate == nil || on == nil || (sameValue(on.Threshold, off.Threshold) && hidden == nil) {
		return []mode{{name: answer.ModeAlways, period: off.Period, threshold: off.Threshold}}
	}
	gateOn := fmt.Sprintf("%s{name=%q} == 1", "kubernetes_feature_enabled", r.Gate.Name)
	ms := []mode{
		{name: answer.ModeGateOff, period: off.Period, threshold: off.Threshold, selector: fmt.Sprintf(" unless %s %s", join, gateOn)},
		{name: answer.ModeGateOn, period: on.Period, threshold: on.Threshold, hiddenBy: hidden, selector: fmt.Sprintf(" and %s %s", join, gateOn)},
	}
	if on.Fallback.Resolved() && on.FallbackThreshold.Resolved() && retries(on.MaxStreamRetries) > 0 {
		fellBack := fmt.Sprintf("kubelet_evented_pleg_connection_error_count >= %d", retries(on.MaxStreamRetries))
		ms[1].selector += fmt.Sprintf(" unless %s %s", join, fellBack)
		ms = append(ms, mode{name: answer.ModeFallback, period: on.Fallback, threshold: on.FallbackThreshold, hiddenBy: hidden,
			selector: fmt.Sprintf(" and %s %s and %s %s", join, gateOn, join, fellBack)})
	}
	return ms
}

// failingCheck is the health check that fails when the time since the
// last successful relist passes m's threshold: one registered in m that
// compares that time with m's threshold; nil when none does.
func failingCheck(h *answer.Health, m mode) *answer.HealthRule {
	if h == nil {
		return nil
	}
	for i := range h.Checks {
		c := &h.Checks[i]
		if c.Rule == plegperiods.RelistElapsed && c.Threshold != nil && registeredIn(c.Gate, m.name) && sameValue(thresholdIn(c.Threshold, m.name), m.threshold) {
			return c
		}
	}
	return nil
}

// registeredIn reports whether a check registered under gate (nil: always)
// is registered in mode.
func registeredIn(gate *plegperiods.HealthGate, mode string) bool {
	switch {
	case gate == nil:
		return true
	case mode == answer.ModeAlways:
		return false
	}
	return gate.On == (mode != answer.ModeGateOff)
}

// thresholdIn is a check's threshold in mode.
func thresholdIn(t *answer.HealthThreshold, mode string) *answer.Value {
	switch mode {
	case answer.ModeGateOn:
		return t.GateOn
	case answer.ModeFallback:
		return t.Fallback
	}
	return t.GateOff
}

// thresholdMessage is the error c returns once its threshold is passed;
// nil when c or the error was not read.
func thresholdMessage(c *answer.HealthRule) *answer.HealthMessage {
	if c == nil {
		return nil
	}
	for i := range c.Messages {
		if c.Messages[i].When == plegperiods.WhenThresholdExceeded {
			return &c.Messages[i]
		}
	}
	return nil
}

func sameValue(a, b *answer.Value) bool {
	return a.Resolved() && b.Resolved() && a.Int() == b.Int()
}

// retries is a resolved retry count; 0 for none.
func retries(r *answer.RetryCount) int64 {
	if r == nil || r.Value == nil {
		return 0
	}
	return *r.Value
}

// seconds writes d as a PromQL number of seconds.
func seconds(d time.Duration) string {
	return fmt.Sprint(d.Seconds())
}

// window writes d as a PromQL duration (6m40s).
func window(d time.Duration) string {
	return model.Duration(d).String()
}

// lastSeen is the kubelet's own elapsed time since its last successful
// relist; 0 means no health poll has set it yet, which is no stall.
const lastSeen = "time() - (kubelet_pleg_last_seen_seconds > 0)"

// progressStopped holds where no relist completed over w (a relist hung
// in the runtime's list call or in the cache update after it) in a kubelet
// older than w (a kubelet that just started has relisted once, and relists
// next a period later), or where every list_podsandbox call failed over w
// (a relist that fails fast: its GetPods starts with ListPodSandbox, so
// none can have succeeded).
func progressStopped(w time.Duration) string {
	ops := func(metric string) string {
		return fmt.Sprintf("sum without(operation_type) (increase(%s{operation_type=\"list_podsandbox\"}[%s]))", metric, window(w))
	}
	return fmt.Sprintf("(increase(kubelet_pleg_relist_duration_seconds_count[%s]) == 0 and %s time() - process_start_time_seconds > %s or %s %s >= %s > 0)",
		window(w), join, seconds(w), join, ops("kubelet_runtime_operations_errors_total"), ops("kubelet_runtime_operations_total"))
}

// elapsedRule is a rule comparing the time since the last successful
// relist with at: through last-seen, or where a health check hides it,
// through the relist's progress over at.
func elapsedRule(m mode, at time.Duration) answer.AlertRule {
	r := answer.AlertRule{Mode: m.name, Threshold: m.threshold, Period: m.period, HiddenBy: m.hiddenBy, Message: m.message, At: at.String()}
	if m.check != nil {
		r.Check = m.check.Name
	}
	if m.hiddenBy == nil {
		r.Signal, r.Expr = answer.SignalLastSeen, fmt.Sprintf("(%s > %s)%s", lastSeen, seconds(at), m.selector)
	} else {
		r.Signal, r.Expr = answer.SignalRelistProgress, progressStopped(at)+m.selector
	}
	return r
}

// elapsed writes the stalled (two thirds of the threshold) or the
// unhealthy (the threshold) rule of a mode.
func elapsed(a *answer.Alerts, m mode, kind string) {
	part := kind + "/" + m.name
	t, ok := m.threshold.Duration()
	if !ok {
		unwritten(a, part, "the threshold is %s", m.threshold)
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
	r := elapsedRule(m, t)
	r.Alert, r.Kind, r.Severity = alert, kind, severity
	a.Rules = append(a.Rules, r)
}

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
		Expr: fmt.Sprintf("(histogram_quantile(%s, sum by (instance, job, le) (rate(kubelet_pleg_relist_duration_seconds_bucket[%s]))) > %s)%s",
			slowQuantile, window(slowWindow), seconds(p), m.selector),
		For: window(slowFor), At: p.String(), Period: m.period, Threshold: m.threshold,
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
		Expr: fmt.Sprintf("kubelet_evented_pleg_connection_error_count >= %d%s", n, scope), At: fmt.Sprint(n), Retries: on.MaxStreamRetries,
	}
	if e := rep.EventedPLEG; e != nil {
		r.OnStreamFailure = &e.OnStreamFailure
		if e.OnStreamFailure.Action == plegperiods.RestoreGenericRelist && on.Fallback.Resolved() {
			r.Fallback, r.FallbackThreshold = on.Fallback, on.FallbackThreshold
		}
	}
	a.Rules = append(a.Rules, r)
}
