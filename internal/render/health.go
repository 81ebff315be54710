package render

import (
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// healthRows says the kubelet's PLEG health rule: each check registered
// and what it checks, how the kubelet words a failure, what it then does,
// and the consequence for a node.
func healthRows(row rowFunc, h *answer.Health) {
	if h == nil {
		return
	}
	if h.Unknown != "" {
		row("Health", "unknown: "+h.Unknown)
	}
	label := "Health"
	for i := range h.Checks {
		row(label, checkLines(&h.Checks[i])...)
		label = ""
	}
	if w := sharedRecord(h); w != "" {
		row(label, w)
	}
	if m := h.RuntimeErrors; m != nil {
		row(label, fmt.Sprintf("a failed check is worded %q (%s): %q", m.Format, srcpos.Line(&m.Pos), KubeletMessage(m, "<name>", &answer.HealthMessage{Format: "<its message>"})))
	}
	var acts []string
	if s := h.SyncLoopSkip; s != nil {
		a := fmt.Sprintf("%s skips pod synchronisation while a check fails: %q (%s)", s.Func, s.Message, srcpos.Line(&s.Pos))
		if s.Backoff != nil {
			a += fmt.Sprintf(", sleeping with backoff (%s)", srcpos.Line(s.Backoff))
		}
		acts = append(acts, a)
	}
	if w := h.ReadyCondition; w != nil {
		a := fmt.Sprintf("the node's Ready condition turns False with the same message: %s, wired at %s", w.Func, srcpos.Line(&w.Pos))
		if w.Decl != nil {
			a += fmt.Sprintf(" (declared %s)", srcpos.Line(w.Decl))
		}
		acts = append(acts, a)
	}
	if d := h.RuntimeDown; d != nil {
		acts = append(acts, fmt.Sprintf("%q (%s) once the runtime's status check has not succeeded for %s", d.Format, srcpos.Line(&d.Pos), Value(d.Threshold, Cited)))
	}
	row("On failure", acts...)
	if h.Consequence != "" {
		row("Consequence", h.Consequence)
	}
	hangRows(row, h.RuntimeHang)
	ladderRows(row, h.Ladder)
}

// checkLines says one registered check: where, under which gate, what it
// checks with its values, and its messages.
func checkLines(c *answer.HealthRule) []string {
	head := fmt.Sprintf("check %q registered at %s", c.Name, srcpos.Line(&c.Registered))
	if g := c.Gate; g != nil {
		state := "on"
		if !g.On {
			state = "off"
		}
		head += fmt.Sprintf(" when %s is %s (%s)", g.Name, state, srcpos.Line(&g.Test))
	} else {
		head += ", always"
	}
	lines := []string{head}
	what := string(c.Rule)
	if c.Method != "" {
		what = fmt.Sprintf("%s (%s): %s", c.Method, srcpos.Line(c.Decl), c.Rule)
	}
	switch {
	case c.Rule == "unknown":
		what += ": " + c.Why
	case c.Threshold != nil:
		what += ", elapsed since the last successful relist against " + thresholdWords(c.Threshold)
	case c.Capacity != nil:
		what += ", its event channel full at " + Value(c.Capacity, Cited)
	}
	lines = append(lines, what)
	for _, m := range c.Messages {
		lines = append(lines, fmt.Sprintf("%s: %q (%s)", m.When, m.Format, srcpos.Line(&m.Pos)))
	}
	for _, r := range c.Records {
		lines = append(lines, fmt.Sprintf("each poll records %s (%s)", r.Expr, srcpos.Line(&r.Pos)))
	}
	return lines
}

// sharedRecord says when two checks write the same variable on each
// poll, each with its own value: what the variable shows is the last
// written.
func sharedRecord(h *answer.Health) string {
	for i := range h.Checks {
		c := &h.Checks[i]
		if later, mine, theirs := h.Overwriter(c); later != nil {
			return fmt.Sprintf("checks %q and %q both call %s on each poll, each with its own value: %s (%s) and %s (%s)", c.Name, later.Name, mine.Callee(), mine.Expr, srcpos.Line(&mine.Pos), theirs.Expr, srcpos.Line(&theirs.Pos))
		}
	}
	return ""
}

// thresholdWords is the threshold in each mode, cited.
func thresholdWords(t *answer.HealthThreshold) string {
	s := Value(t.GateOff, Cited)
	if t.GateOn == nil {
		return s
	}
	s = "gate off " + s + ", gate on " + Value(t.GateOn, Cited)
	if t.Fallback != nil {
		s += ", after the fallback " + Value(t.Fallback, Cited)
	}
	return s
}

// HealthConsequence is the health rule's consequence for a node, in one
// sentence, from the values read: when a PLEG whose relist stops
// succeeding turns the node NotReady, in each mode, and when a runtime
// that fails its status check does.
func HealthConsequence(r *answer.Report) string {
	h := r.Health
	c := h.RelistCheck()
	if c == nil {
		return "plegvet found no health check comparing the time since the last relist with a threshold, so it cannot say when this node turns NotReady for its PLEG."
	}
	t := c.Threshold
	var b strings.Builder
	gate := ""
	if r.Relist != nil && r.Relist.Gate != nil {
		gate = r.Relist.Gate.Name
	}
	switch {
	case t.GateOn != nil && gate != "" && r.Relist.GateOn != nil && t.GateOn.Value != t.GateOff.Value:
		// What a node that does not set the gate does comes first: the
		// default, which most readers run.
		retries := "several"
		if on := r.Relist.GateOn; on != nil && on.MaxStreamRetries != nil && on.MaxStreamRetries.Value != nil {
			retries = fmt.Sprint(*on.MaxStreamRetries.Value)
		}
		onWords := Value(t.GateOn, Prose)
		if t.Fallback != nil {
			onWords += fmt.Sprintf(", until the stream fails %s times and the fallback restores %s", retries, Value(t.Fallback, Prose))
		} else if f := r.Relist.GateOn.Fallback; f != nil && f.Unresolved != "" {
			onWords += fmt.Sprintf(", until the stream fails %s times; which threshold holds after that plegvet could not read (the fallback is unresolved)", retries)
		} else {
			onWords += fmt.Sprintf(", and nothing restores %s", Value(t.GateOff, Prose))
		}
		offWords := Value(t.GateOff, Prose)
		switch def := defaultInForce(r.Relist); {
		case def == nil:
			fmt.Fprintf(&b, "With %s off, a PLEG whose relist stops succeeding turns this node NotReady after %s; with %s on, after %s", gate, offWords, gate, onWords)
		case !*def:
			fmt.Fprintf(&b, "On a node that does not set %s (off by default), a PLEG whose relist stops succeeding turns the node NotReady after %s; with %s set to true, after %s", gate, offWords, gate, onWords)
		default:
			fmt.Fprintf(&b, "On a node that does not set %s (on by default), a PLEG whose relist stops succeeding turns the node NotReady after %s; with %s set to false, after %s", gate, onWords, gate, offWords)
		}
	case gate != "":
		fmt.Fprintf(&b, "A PLEG whose relist stops succeeding turns this node NotReady after %s, whether or not %s is on", Value(t.GateOff, Prose), gate)
	default:
		fmt.Fprintf(&b, "A PLEG whose relist stops succeeding turns this node NotReady after %s", Value(t.GateOff, Prose))
	}
	if d := h.RuntimeDown; d != nil && d.Threshold.Resolved() {
		fmt.Fprintf(&b, "; a runtime that fails its status check does so sooner, after %s (%q)", Value(d.Threshold, Prose), d.Format)
	}
	b.WriteString(".")
	return b.String()
}

// defaultInForce is the gate's value on a node that does not set it: what
// the kubelet's code writes, when every write agrees, else the spec's
// default; nil when unknown.
func defaultInForce(rl *answer.Relist) *bool {
	if ws := rl.GateSetInCode; len(ws) > 0 {
		for _, w := range ws {
			if w.On == nil || *w.On != *ws[0].On {
				return nil
			}
		}
		return ws[0].On
	}
	return rl.Gate.Default
}

// KubeletMessage is the message the kubelet gives for a failed check, as
// its runtimeErrors words it: the check's name and its message m, whose
// format is filled with args.
func KubeletMessage(runtimeErrors *answer.HealthMessage, check string, m *answer.HealthMessage, args ...any) string {
	msg := fmt.Sprintf(m.Format, args...)
	if runtimeErrors == nil {
		return msg
	}
	return fmt.Sprintf(runtimeErrors.Format, check, msg)
}

// LevelTriggered words relist as level-triggered reconciliation from the
// evidence read (rc: the list call and the comparison, each with its
// position) and the relist period in force (period). stream says whether
// an event stream runs beside the relist (its missed changes are what the
// relist finds); without one, the relist finds every change.
func LevelTriggered(rc *answer.Reconcile, period *answer.Value, stream bool) string {
	missed := "a change no event announced (a runtime restart, a dropped connection)"
	if stream {
		missed = "a change the event stream never delivered (a runtime restart, a dropped connection)"
	}
	every := fmt.Sprintf("is found at the next relist, at the period in force (%s)", Value(period, Prose))
	if rc == nil || rc.List == nil || rc.Compare == nil {
		return fmt.Sprintf("In the code it read, plegvet did not find both the generic PLEG's listing of every pod and its comparison with the previous listing, so it cannot ground the relist as level-triggered reconciliation, where %s %s.", missed, every)
	}
	return fmt.Sprintf("Each relist lists every pod and container from the runtime (%s in %s, %s) and compares each container's state with the previous relist's (%s in %s, %s), generating events from the difference; that is level-triggered reconciliation: %s %s.",
		rc.List.Expr, rc.List.Func, srcpos.Line(&rc.List.Pos), rc.Compare.Expr, rc.Compare.Func, srcpos.Line(&rc.Compare.Pos), missed, every)
}

// LastSeenRefreshed says why kubelet_pleg_last_seen_seconds proves
// nothing about the relist while a check registered after the relist
// check (under a gate: with that gate on) writes it on every poll with
// its own value; "" when no check does.
func LastSeenRefreshed(h *answer.Health, check *answer.HealthRule) string {
	later, mine, theirs := h.Overwriter(check)
	if later == nil {
		return ""
	}
	return fmt.Sprintf("the kubelet's %q check (%s) calls %s on each poll (%s) after the %q check's %s (%s), so the gauge shows the time of its write, not of the last relist",
		later.Name, registeredWhen(later), theirs.Expr, srcpos.Line(&theirs.Pos), check.Name, mine.Expr, srcpos.Line(&mine.Pos))
}

// registeredWhen says when a check is registered: "always registered", or
// under which gate test.
func registeredWhen(later *answer.HealthRule) string {
	when := "always registered"
	if later.Gate != nil {
		on := "on"
		if !later.Gate.On {
			on = "off"
		}
		when = fmt.Sprintf("registered at %s when %s is %s", srcpos.Line(&later.Registered), later.Gate.Name, on)
	}
	return when
}
