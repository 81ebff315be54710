// The kubelet's PLEG health rule as the decision takes it: the thresholds
// in each mode, the kubelet's words for a failed check, and where it hands
// them to the node's Ready condition.

package nodesource

import (
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/plegperiods"
)

// HealthRule is the kubelet's PLEG health rule from this source: the
// generic PLEG's thresholds in each mode, and its words.
func (s *NodeSource) HealthRule() nodeverdict.HealthRule {
	r := s.Relist
	var h nodeverdict.HealthRule
	check := s.Health.RelistCheck()
	if check != nil {
		h.Words = words(s.Health, check)
	}
	h.GateOff = threshold(nil, "the source builds no generic PLEG")
	if r.GateOff != nil {
		h.GateOff = threshold(r.GateOff.Threshold, "the generic PLEG's construction passes no threshold plegvet reads")
	}
	h.GateOn, h.Fallback = h.GateOff, threshold(nil, "the source restores no threshold with the fallback period")
	if on := r.GateOn; on != nil {
		h.GateOn = threshold(on.Threshold, "the gate-on construction passes no threshold plegvet reads")
		if on.Fallback != nil {
			h.Fallback = threshold(nil, "the source's health rule does not say which threshold the evented PLEG restores with the fallback period")
			if check != nil && check.Threshold != nil && check.Threshold.Fallback != nil {
				h.Fallback = threshold(check.Threshold.Fallback, "")
			}
		}
	}
	if why := unknownRule(s.Health, check); why != "" {
		// No threshold holds the node to a rule plegvet does not know.
		h.GateOff, h.GateOn, h.Fallback = threshold(nil, why), threshold(nil, why), threshold(nil, why)
	}
	h.ReadyWiring = readyWiring(s.Health)
	switch {
	case s.Health != nil:
		h.LastSeenRefreshed = render.LastSeenRefreshed(s.Health, check)
		if later := s.Health.LastSeenHider(); later != nil && h.LastSeenRefreshed != "" {
			h.LastSeenRefreshedGateOff = later.Gate == nil || !later.Gate.On
		}
	case s.Evented != nil && s.Evented.Role == nodeverdict.RoleEventSource:
		// No health rule was read (an older index entry): the design
		// says what every release read so far does.
		h.LastSeenRefreshed = "this source's evented PLEG is an event source (" + s.Evented.Why + "), and such an evented PLEG registers a health check of its own that sets the gauge to the time of the check in every release read so far (v1.26 to v1.36); which health checks this source registers was not read"
	}
	return h
}

// readyWiring says where the kubelet words its failed checks and hands
// them to the node's Ready condition, with positions; "" when the source
// read does not show the hand-over.
func readyWiring(h *answer.Health) string {
	if h == nil || h.ReadyCondition == nil {
		return ""
	}
	w := h.ReadyCondition
	s := ""
	if e := h.RuntimeErrors; e != nil {
		s = fmt.Sprintf("the kubelet words a failed check %q (%s:%d), and ", e.Format, e.Pos.File, e.Pos.Line)
	}
	if d := h.RuntimeDown; d != nil && !strings.Contains(d.Format, "%") {
		s += fmt.Sprintf("says %q (%s:%d) when its runtime-up check fails; ", d.Format, d.Pos.File, d.Pos.Line)
	}
	return s + fmt.Sprintf("hands its runtime errors to the node's Ready condition at %s:%d (%s)", w.Pos.File, w.Pos.Line, w.Func)
}

// unknownRule says why the source's PLEG health rule is unknown: it
// registers no check, or none of relist-elapsed, and one plegvet does not
// recognise exactly; "" when the relist check is known, or no health rule
// was read.
func unknownRule(h *answer.Health, check *answer.HealthRule) string {
	switch {
	case h == nil || check != nil:
		return ""
	case h.Unknown != "":
		return "the source's PLEG health rule is unknown: " + h.Unknown
	}
	for _, c := range h.Checks {
		if c.Rule == plegperiods.HealthUnknown && c.Why != "" {
			return fmt.Sprintf("the source's PLEG health check %q is unknown: %s", c.Name, c.Why)
		}
	}
	return "the source registers no PLEG health check comparing the time since the last relist with a threshold"
}

// reconcile is the source's relist as level-triggered reconciliation;
// nil when not read.
func (s *NodeSource) reconcile() *answer.Reconcile {
	if s.Health == nil {
		return nil
	}
	return s.Health.Reconcile
}

// words are the kubelet's words for check failing, as the source has them.
func words(h *answer.Health, check *answer.HealthRule) nodeverdict.HealthWords {
	w := nodeverdict.HealthWords{CheckName: check.Name}
	for _, m := range check.Messages {
		switch m.When {
		case plegperiods.WhenThresholdExceeded:
			w.StaleFormat = m.Format
		case plegperiods.WhenNeverRelisted:
			w.NeverFormat = m.Format
		}
	}
	if h.RuntimeErrors != nil {
		w.ErrorsFormat = h.RuntimeErrors.Format
	}
	if d := h.RuntimeDown; d != nil && !strings.Contains(d.Format, "%") {
		w.RuntimeDown = d.Format
		if d.Threshold != nil {
			w.RuntimeDownAfter = render.Value(d.Threshold, render.Cited)
		}
	}
	return w
}

// threshold turns a threshold from the source into the decision's; why
// says why it is unknown when v is nil.
func threshold(v *answer.Value, why string) nodeverdict.Threshold {
	switch {
	case v == nil:
		return nodeverdict.Threshold{Why: why}
	case v.Unresolved != "":
		return nodeverdict.Threshold{Why: render.Value(v, render.Cited)}
	}
	d, ok := v.Duration()
	return nodeverdict.Threshold{Duration: d, Known: ok, Why: "not a duration: " + v.Value,
		Cited: nodeverdict.Cited{Value: v.Value, Const: v.Const, Decl: v.Decl}, Evidence: render.Value(v, render.Cited)}
}
