// Package alerts builds Prometheus alerting rules for a tree's kubelets
// from plegvet's report: the PromQL of each rule and the values read from
// the tree it compares with. The wording (annotations) and the YAML are
// internal/render's.
package alerts

import (
	"cmp"
	"fmt"
	"slices"
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
	nameHung      = "KubeletRuntimeHung"
)

// A hung runtime makes the kubelet's /metrics wait with it: the scrape
// times out and Prometheus marks every series of the target stale, so an
// instant selector finds nothing until the runtime answers again. The
// rules read the last sample within a window instead: at least
// minWindow, and at least windowPerThreshold times the longest
// threshold, so that the last sample before the hang stays in it well
// past the threshold; a kubelet whose target is gone (its node removed)
// has no up series, and its rules stop at once.
const (
	minWindow          = time.Hour
	windowPerThreshold = 2
)

// The runtime-hung rule fires once the kubelet's /metrics has failed,
// while the same kubelet answered an endpoint that calls no runtime, for
// hungFor: a minute of failed scrapes is no passing overload, and it
// leaves the alert a minute before the node turns NotReady (the node
// status update waits for a runtime call's whole deadline, 2m by default).
const hungFor = time.Minute

// join matches a kubelet's series with its other series: the same
// scrape target.
const join = "on(instance, job)"

// mode is one threshold in force and how a rule selects the kubelets
// it holds for.
type mode struct {
	name              string
	period, threshold *answer.Value
	hiddenBy          *answer.HealthCheck
	selector          string        // appended to each expression: " and on(...) ..."
	window            time.Duration // see lastSampleWindow
	alive             string        // see alive
	// check is the health check failing at threshold, and message the
	// error it then returns; nil when none was read.
	check   *answer.HealthRule
	message *answer.HealthMessage
	relist  *answer.Relist
}

// Build writes the rules for rep's kubelets, scraped as layout says.
func Build(rep *answer.Report, layout answer.ScrapeLayout) *answer.Alerts {
	a := &answer.Alerts{SchemaVersion: answer.SchemaVersion, Source: rep.Source, Health: rep.Health, Scrape: layout, Rules: []answer.AlertRule{}, Unwritten: []answer.Missing{}}
	w := lastSampleWindow(rep)
	a.Window = window(w)
	scope := ""
	if mm := semver.MajorMinor(rep.Source.KubernetesVersion); mm != "" {
		a.Minor = mm
		scope = fmt.Sprintf(" and %s %s", join, lastSample(fmt.Sprintf("kubernetes_build_info{git_version=~%q}", strings.ReplaceAll(mm, ".", "[.]")+"[.].*"), w))
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
	ms, fallbackWhy := modes(rep, w)
	if fallbackWhy != "" {
		// A node whose evented PLEG gave up runs a relist plegvet could
		// not read: no rule holds it to a guess, and the file says so.
		for _, kind := range []string{answer.AlertStalled, answer.AlertUnhealthy, answer.AlertRelistSlow} {
			unwritten(a, kind+"/"+answer.ModeFallback, "%s", fallbackWhy)
		}
		if len(a.Source.Load.Unfollowed) == 0 {
			notFollowed(a, rep.Relist, "no rule written for a kubelet whose evented PLEG gave up its stream: "+fallbackWhy)
		}
	}
	for _, m := range ms {
		m.selector += scope
		m.window, m.alive, m.relist = w, alive(layout), r
		m.check = failingCheck(rep.Health, m)
		m.message = thresholdMessage(m.check)
		if why := noCheck(rep.Health, m); why != "" {
			// No rule for a threshold no check is known to hold the node
			// to: the command says so and exits 1 (Load.Unfollowed), at
			// the check's registration when one is unknown (the pleg
			// analyzer's health-unknown finding), else here.
			unwritten(a, answer.AlertStalled+"/"+m.name, "%s", why)
			unwritten(a, answer.AlertUnhealthy+"/"+m.name, "%s", why)
			if !unknownCheckReported(rep.Health) {
				notFollowed(a, rep.Relist, fmt.Sprintf("no PLEGRelistStalled or PLEGUnhealthy rule written for %s: %s", m.name, why))
			}
		} else {
			elapsed(a, m, answer.AlertStalled)
			elapsed(a, m, answer.AlertUnhealthy)
		}
		slow(a, m, layout)
	}
	gaveUp(a, rep, scope)
	runtimeHung(a, layout, scope, rep.Health)
	return a
}

// lastSampleWindow is the window the rules read a stale series' last
// sample in: minWindow, or windowPerThreshold times the longest
// threshold rep reads when that is longer.
func lastSampleWindow(rep *answer.Report) time.Duration {
	w := time.Duration(minWindow)
	if r := rep.Relist; r != nil {
		for _, v := range []*answer.Value{r.GateOff.Threshold, gateOnThreshold(r)} {
			if d, ok := v.Duration(); ok {
				w = max(w, windowPerThreshold*d)
			}
		}
	}
	return w
}

func gateOnThreshold(r *answer.Relist) *answer.Value {
	if r.GateOn == nil {
		return nil
	}
	return r.GateOn.Threshold
}

// lastSample is series' last sample within w: what it was when the
// target last answered.
func lastSample(series string, w time.Duration) string {
	return fmt.Sprintf("last_over_time(%s[%s])", series, window(w))
}

// alive holds for a kubelet that answers one of its targets: its
// /metrics, or, while a hung runtime makes that wait, its endpoint that
// calls no runtime. A kubelet that is gone answers neither, and the last
// samples of its series are no PLEG's. Without a layout telling the two
// endpoints apart, a target still scraped (up, whatever its value) holds:
// a hung runtime's kubelet is then not told from a gone one.
func alive(layout answer.ScrapeLayout) string {
	if layout.Job == "" || layout.PathLabel == "" || layout.AlivePath == "" {
		return "up"
	}
	return "max by (instance, job) (up) == 1"
}

// up selects the up series of layout's targets at path ("": any).
func up(layout answer.ScrapeLayout, path string) string {
	sel := fmt.Sprintf("job=%q", layout.Job)
	if path != "" && layout.PathLabel != "" {
		sel += fmt.Sprintf(", %s=%q", layout.PathLabel, path)
	}
	return "up{" + sel + "}"
}

func unwritten(a *answer.Alerts, part, format string, args ...any) {
	a.Unwritten = append(a.Unwritten, answer.Missing{Part: part, Why: fmt.Sprintf(format, args...)})
}

// modes are the thresholds a kubelet of the tree can run with: one when
// the gate changes neither the threshold nor what last-seen shows; else
// gate off, gate on and, when the evented PLEG restores a threshold after
// its stream fails for good, the fallback. fallbackWhy says why no
// fallback mode is written for an evented PLEG that restores a period or
// threshold plegvet could not read ("" otherwise); a node that gave its
// stream up is then left out of the gate-on mode as well.
func modes(rep *answer.Report, w time.Duration) (ms []mode, fallbackWhy string) {
	r, off := rep.Relist, rep.Relist.GateOff
	on := r.GateOn
	hidden, hiddenOff := hidingCheck(rep)
	if r.Gate == nil || on == nil || (sameValue(on.Threshold, off.Threshold) && hidden == nil) {
		return []mode{{name: answer.ModeAlways, period: off.Period, threshold: off.Threshold, hiddenBy: hiddenOff}}, ""
	}
	gateOn := lastSample(fmt.Sprintf("%s{name=%q}", "kubernetes_feature_enabled", r.Gate.Name), w) + " == 1"
	ms = []mode{
		{name: answer.ModeGateOff, period: off.Period, threshold: off.Threshold, hiddenBy: hiddenOff, selector: fmt.Sprintf(" unless %s %s", join, gateOn)},
		{name: answer.ModeGateOn, period: on.Period, threshold: on.Threshold, hiddenBy: hidden, selector: fmt.Sprintf(" and %s %s", join, gateOn)},
	}
	switch {
	case on.Fallback != nil && on.Fallback.Unresolved != "":
		fallbackWhy = "the relist the evented PLEG restores once its stream has failed for good is unresolved: " + on.Fallback.Unresolved
	case on.Fallback.Resolved() && on.FallbackThreshold != nil && on.FallbackThreshold.Unresolved != "":
		fallbackWhy = "the threshold the evented PLEG restores once its stream has failed for good is unresolved: " + on.FallbackThreshold.Unresolved
	}
	n := retries(on.MaxStreamRetries)
	fellBack := fmt.Sprintf("%s >= %d", lastSample("kubelet_evented_pleg_connection_error_count", w), n)
	switch {
	case n > 0 && fallbackWhy != "":
		ms[1].selector += fmt.Sprintf(" unless %s %s", join, fellBack)
	case n > 0 && on.Fallback.Resolved() && on.FallbackThreshold.Resolved():
		ms[1].selector += fmt.Sprintf(" unless %s %s", join, fellBack)
		ms = append(ms, mode{name: answer.ModeFallback, period: on.Fallback, threshold: on.FallbackThreshold, hiddenBy: hidden,
			selector: fmt.Sprintf(" and %s %s and %s %s", join, gateOn, join, fellBack)})
	}
	return ms, fallbackWhy
}

// hidingCheck is the health check that leaves last-seen showing
// something else than the last relist (Health.LastSeenHider, read from
// the checks' code), with the gate on (hidden) and with it off
// (hiddenOff); nil where none does. An answer without a health rule (an
// older one) falls back on the evented PLEG's own check, with the gate on,
// as the node verdict does.
func hidingCheck(rep *answer.Report) (hidden, hiddenOff *answer.HealthCheck) {
	if rep.Health == nil {
		if e := rep.EventedPLEG; e != nil {
			return e.HealthCheck, nil
		}
		return nil, nil
	}
	later := rep.Health.LastSeenHider()
	if later == nil {
		return nil, nil
	}
	c := &answer.HealthCheck{Name: later.Name, Pos: later.Registered}
	if registeredIn(later.Gate, answer.ModeGateOn) {
		hidden = c
	}
	if registeredIn(later.Gate, answer.ModeGateOff) {
		hiddenOff = c
	}
	return hidden, hiddenOff
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

// noCheck says why no rule is written for m's threshold: the health rule
// read is unknown (no check registered, or a check plegvet does not
// recognise exactly), or no check fails at it; "" when m.check does, or
// when no health rule was read at all (an older answer).
func noCheck(h *answer.Health, m mode) string {
	switch {
	case h == nil || m.check != nil:
		return ""
	case h.Unknown != "":
		return "the PLEG health rule is unknown: " + h.Unknown
	}
	for _, c := range h.Checks {
		if c.Rule == plegperiods.HealthUnknown && registeredIn(c.Gate, m.name) {
			return fmt.Sprintf("the PLEG health check %q is unknown: %s", c.Name, c.Why)
		}
	}
	if !m.threshold.Resolved() {
		return "" // elapsed says the threshold is unresolved, and why
	}
	return fmt.Sprintf("no registered PLEG health check compares the time since the last relist with the %s threshold %s", m.name, m.threshold)
}

// unknownCheckReported reports whether h has a check the pleg analyzer
// reports as health-unknown (a Load.Unfollowed line already).
func unknownCheckReported(h *answer.Health) bool {
	for _, c := range h.Checks {
		if c.Rule == plegperiods.HealthUnknown && c.Fails {
			return true
		}
	}
	return false
}

// notFollowed adds a Load.Unfollowed line at the generic PLEG's
// construction (the answer is not whole: the command exits 1).
func notFollowed(a *answer.Alerts, r *answer.Relist, why string) {
	at := "pkg/kubelet"
	if r.GateOff != nil && r.GateOff.Call != nil {
		p := r.GateOff.Call
		at = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	line := at + ": " + why
	if !slices.Contains(a.Source.Load.Unfollowed, line) {
		a.Source.Load.Unfollowed = append(slices.Clip(a.Source.Load.Unfollowed), line)
	}
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
// relist, from the newest value the gauge had within w: while the
// kubelet's /metrics does not answer (a hung runtime), the value it had
// when it last did, which the time since only grows past; 0 means no
// health poll has set it yet, which is no stall. The rule holds while the
// kubelet's target is still scraped (its up series, whatever its value).
func lastSeen(w time.Duration) string {
	return fmt.Sprintf("time() - (max_over_time(kubelet_pleg_last_seen_seconds[%s]) > 0)", window(w))
}

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
		r.Signal, r.Expr = answer.SignalLastSeen, fmt.Sprintf("(%s > %s) and %s (%s)%s", lastSeen(m.window), seconds(at), join, m.alive, m.selector)
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
	r := elapsedRule(m, t)
	r.Alert, r.Kind, r.Severity = alert, kind, severity
	a.Rules = append(a.Rules, r)
}

// A relist that waited on a hung runtime took its whole deadline, and the
// rate of the duration histogram holds it for slowWindow after: the
// relist-slow rule holds only where the kubelet's /metrics answered every
// scrape over slowWindow and slowFor, so that a hang (alerted on by the
// stall and runtime-hung rules) leaves no relist-slow alert behind.
func slow(a *answer.Alerts, m mode, layout answer.ScrapeLayout) {
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
		Expr: fmt.Sprintf("(histogram_quantile(%s, sum by (instance, job, le) (rate(kubelet_pleg_relist_duration_seconds_bucket[%s]))) > %s) unless %s min_over_time(%s[%s]) == 0%s",
			slowQuantile, window(slowWindow), seconds(p), join, up(layout, layout.MetricsPath), window(slowWindow+slowFor), m.selector),
		For: window(slowFor), At: p.String(), Period: m.period, Threshold: m.threshold,
	})
}

// runtimeHung is the rule for a kubelet alive while its runtime does not
// answer: its /metrics target is down (the scrape timed out waiting on
// collectors that call the runtime) while its endpoint that calls no
// runtime answers. A kubelet that is gone (refused) or a node that is
// down answers neither, and is not this alert's.
func runtimeHung(a *answer.Alerts, layout answer.ScrapeLayout, scope string, h *answer.Health) {
	var hang *answer.RuntimeHang
	if h != nil {
		hang = h.RuntimeHang
	}
	switch {
	case hang == nil:
		unwritten(a, answer.AlertRuntimeHung, "the report read nothing of what a hung runtime does to this tree's kubelet (health.runtimeHang): whether its /metrics waits on the runtime is not known")
		return
	case !hang.DarkOnHang():
		why := cmp.Or(hang.Unknown, "no collector registered on /metrics reaches a CRI call")
		unwritten(a, answer.AlertRuntimeHung, "the tree's code shows no /metrics that waits on a hung runtime, so its failing scrape says nothing of the runtime: %s", why)
		return
	case layout.Job == "":
		unwritten(a, answer.AlertRuntimeHung, "no scrape job is named: the rule reads the kubelet targets' up series")
		return
	case layout.PathLabel == "" || layout.MetricsPath == "" || layout.AlivePath == "":
		unwritten(a, answer.AlertRuntimeHung, "the scrape layout names no label telling the kubelet's /metrics from an endpoint of it that calls no runtime: a hung runtime cannot be told from a kubelet that is gone")
		return
	}
	sum := hang.Summary()
	a.Rules = append(a.Rules, answer.AlertRule{
		Alert: nameHung, Kind: answer.AlertRuntimeHung, Mode: answer.ModeAlways, Signal: answer.SignalScrape, Severity: "critical",
		Expr: fmt.Sprintf("(%s == 0) and %s (%s == 1)%s", up(layout, layout.MetricsPath), join, up(layout, layout.AlivePath), scope),
		For:  window(hungFor), At: hungFor.String(), Hang: &sum,
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
