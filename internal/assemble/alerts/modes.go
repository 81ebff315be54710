package alerts

import (
	"fmt"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/plegperiods"
)

// mode is one threshold in force and how a rule selects the kubelets
// it holds for.
type mode struct {
	name              string
	period, threshold *answer.Value
	hiddenBy          *answer.HealthCheck
	selector          string        // appended to each expression: " and on(...) ..."
	window            time.Duration // see lastSampleWindow
	scrape            series        // the layout's series
	// check is the health check failing at threshold, and message the
	// error it then returns; nil when none was read.
	check   *answer.HealthRule
	message *answer.HealthMessage
	relist  *answer.Relist
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
	fellBack := fmt.Sprintf("%s >= %d", lastSample(connErrors, w), n)
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
