package render

import (
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// hangValue words a duration of the hang as Value words a value Cited.
func hangValue(v *answer.Value) string {
	switch {
	case v == nil:
		return "-"
	case v.Unresolved != "":
		return "unresolved: " + v.Unresolved
	}
	return Evidence(v.Value, v.Const, v.Decl)
}

// hangSteps words a chain: each call and its line, "then" between.
func hangSteps(steps []answer.HangStep) string {
	var out []string
	for _, s := range steps {
		out = append(out, fmt.Sprintf("%s (%s)", s.Func, srcpos.Line(&s.Pos)))
	}
	return strings.Join(out, " > ")
}

// hangRows says what a runtime that stops answering does to the node:
// the collectors a scrape of /metrics runs and the CRI calls they make,
// the stats providers, the CRI call's deadline, the runtime Status loop,
// the node status update's runtime call, and the consequence.
func hangRows(row rowFunc, h *answer.RuntimeHang) {
	if h == nil {
		return
	}
	label := "Runtime hang"
	var lines []string
	if h.Unknown != "" {
		lines = append(lines, "unknown: "+h.Unknown)
	}
	for _, c := range h.Collectors {
		where := c.Endpoint
		if where == "" {
			where = "an endpoint plegvet could not tell (" + c.EndpointUnknown + ")"
		}
		head := fmt.Sprintf("collector %s registered by %s at %s, scraped on %s", c.Constructor, c.Register, srcpos.Line(&c.Registered), where)
		each := "each scrape"
		if c.Handler {
			head = fmt.Sprintf("handler %s of %s installed by %s at %s, serving %s", c.Collect.Func, c.Constructor, c.Register, srcpos.Line(&c.Registered), where)
			each = "each request"
		}
		methods, providers := reachWords(c.Reaches)
		switch {
		case len(c.Reaches) == 0:
			head += ": plegvet found no CRI call it makes"
		case providers != "":
			head += fmt.Sprintf(": %s calls %s through %s", each, methods, providers)
		default:
			head += fmt.Sprintf(": %s calls %s", each, methods)
		}
		lines = append(lines, head)
		if len(c.Reaches) > 0 {
			lines = append(lines, fmt.Sprintf("  %s (%s) > %s", c.Collect.Func, srcpos.Line(c.Collect.Decl), hangSteps(c.Reaches[0].Steps)))
		}
		if n := len(c.Unresolved); n > 0 {
			u := c.Unresolved[0]
			calls := "calls"
			if n == 1 {
				calls = "call"
			}
			lines = append(lines, fmt.Sprintf("  %d %s not followed, first %s (%s): %s", n, calls, u.Step.Func, srcpos.Line(&u.Step.Pos), u.Why))
		}
	}
	for _, p := range h.StatsProviders {
		s := fmt.Sprintf("stats provider %s (%s)", p.Constructor, srcpos.Line(&p.Pos))
		if p.When != "" {
			s += fmt.Sprintf(" when %s (%s)", p.When, srcpos.Line(p.WhenPos))
			if p.WhenSet != "" {
				s += fmt.Sprintf(", set to %s (%s)", p.WhenSet, srcpos.Line(p.WhenSetPos))
			}
		}
		if len(p.Gates) > 0 {
			s += ", its arguments testing " + strings.Join(p.Gates, ", ")
		}
		lines = append(lines, s)
	}
	if d := h.Deadline; d != nil {
		s := fmt.Sprintf("each CRI call waits at most %s, given to %s (%s)", d.Expr, d.Call, srcpos.Line(&d.Pos))
		if d.Value.Resolved() {
			s += ": " + hangValue(d.Value)
		} else if d.Setting != "" {
			s += fmt.Sprintf(": the setting %s, default %s", d.Setting, hangValue(d.Default))
		}
		lines = append(lines, s)
		lines = append(lines, perCallLines(d)...)
	}
	if l := h.StatusLoop; l != nil {
		s := fmt.Sprintf("%s (%s) asks %s (%s)", l.Func, srcpos.Line(l.Decl), l.Status.Func, srcpos.Line(&l.Status.Pos))
		if l.Started != nil {
			period := hangValue(l.Period)
			if l.Period.Resolved() && l.Period.Const == "" {
				period = l.Period.Value // a literal, written where it is started
			}
			s += fmt.Sprintf(" every %s, started at %s", period, srcpos.Line(l.Started))
		}
		lines = append(lines, s)
	}
	if d := h.RuntimeDown; d != nil {
		lines = append(lines, "the runtime is declared down once its status has not been refreshed for "+hangValue(d))
	}
	if n := h.NodeStatus; n != nil {
		s := fmt.Sprintf("the node status update (%s) asks %s through %s (%s)", n.Func, n.Method, n.Setter, srcpos.Line(&n.Pos))
		if n.Call != nil {
			s += fmt.Sprintf(", called at %s", srcpos.Line(n.Call))
		}
		lines = append(lines, s)
	}
	if l := relistLine(h); l != "" {
		lines = append(lines, l)
	}
	row(label, lines...)
	if h.Consequence != "" {
		row("On hang", h.Consequence)
	}
}

// reachWords are the CRI methods reached, each once, and the providers
// they are reached through.
func reachWords(rs []answer.Reach) (methods, providers string) {
	var ms, ps []string
	for _, r := range rs {
		if !contains(ms, r.Method) {
			ms = append(ms, r.Method)
		}
		if r.Provider != "" && !contains(ps, r.Provider) {
			ps = append(ps, r.Provider)
		}
	}
	return strings.Join(ms, ", "), strings.Join(ps, ", ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// HangConsequence is what a runtime that stops answering means for a
// node, in one sentence, from the report's health rule: when /metrics
// goes dark, when the node turns NotReady and why, when the PLEG is
// declared unhealthy. "" when the hang was not read.
func HangConsequence(r *answer.Report) string {
	h := r.Health
	if h == nil || h.RuntimeHang == nil {
		return ""
	}
	g := h.RuntimeHang
	var parts []string
	unfollowed := 0
	for _, c := range g.Collectors {
		unfollowed += len(c.Unresolved)
	}
	parts = append(parts, darkWords(g, unfollowed))
	parts = append(parts, notReadyWords(h)...)
	if c := h.RelistCheck(); c != nil && c.Threshold != nil && c.Threshold.GateOff.Resolved() {
		parts = append(parts, fmt.Sprintf("the PLEG is unhealthy at %s", c.Threshold.GateOff.Value))
	}
	return "A runtime that stops answering: " + strings.Join(parts, "; ") + "."
}

// darkWords say whether and when /metrics waits on a hung runtime.
func darkWords(g *answer.RuntimeHang, unfollowed int) string {
	never := 0
	for _, c := range g.Collectors {
		if c.Never && len(c.Reaches) > 0 {
			never++
		}
	}
	switch {
	case g.DarkOnHang():
		s := "/metrics goes dark from the first scrape, its collectors waiting on the runtime"
		if when := g.DarkWhen(); len(when) > 0 {
			s = fmt.Sprintf("/metrics goes dark from the first scrape when %s holds (the only registrations of collectors that call the runtime run under it)", strings.Join(when, " or "))
		}
		var unbounded []string
		if d := g.Deadline; d != nil {
			for _, c := range d.PerCall {
				if c.Timeout == "" {
					unbounded = append(unbounded, c.Method)
				}
			}
		}
		if len(unbounded) > 0 {
			s += fmt.Sprintf(" (the CRI client puts no timeout on %s: a scrape reaching it waits as long as the runtime hangs)", strings.Join(unbounded, ", "))
		}
		return s
	case len(g.BoundedBelow()) > 0:
		return "/metrics does not wait on a hung runtime past a scrape's timeout: " + strings.Join(g.BoundedBelow(), "; ")
	case never > 0:
		return fmt.Sprintf("/metrics does not wait on the runtime: the %d collector(s) that call it are registered under a condition that is always false", never)
	case unfollowed > 0:
		calls := fmt.Sprintf("%d calls were", unfollowed)
		if unfollowed == 1 {
			calls = "1 call was"
		}
		return fmt.Sprintf("plegvet could not tell whether /metrics waits on the runtime: no collector's calls reached a CRI call, and %s not followed", calls)
	}
	return "plegvet found no collector of /metrics that calls the runtime"
}

// notReadyWords say when a hung runtime turns the node NotReady: from the
// ladder's window (what the Ready setter reads, and when the node status
// update lets it read), or why that is not known.
func notReadyWords(h *answer.Health) []string {
	g := h.RuntimeHang
	deadline, ok := g.DeadlineDuration()
	lo, hi, read := h.Ladder.HangNotReady()
	switch {
	case !g.RuntimeDown.Resolved():
		return []string{"plegvet read no runtime-down threshold the Ready condition holds the runtime's status to: when the runtime's errors turn the node NotReady is not known, only the PLEG's threshold below"}
	case !read || !ok:
		return []string{fmt.Sprintf("the runtime is declared down after %s; when the node status update reads it is not known (%s)", g.RuntimeDown.Value, ladderWhy(h))}
	case g.NodeStatus == nil:
		return []string{fmt.Sprintf("the node turns NotReady %s to %s after the hang began: the runtime is declared down %s (the runtime-down threshold) after its status was last refreshed, and the node status update, which waits on no runtime call plegvet found, reads it every %s", lo, hi, g.RuntimeDown.Value, h.Ladder.Inputs.NodeStatusFrequency)}
	case deadline < lo:
		return []string{fmt.Sprintf("the node turns NotReady %s to %s after the hang began: the runtime is declared down %s (the runtime-down threshold) after its status was last refreshed, and the node status update, which waits up to %s (%s) on %s, reads it", lo, hi, g.RuntimeDown.Value, deadline, deadlineName(g), g.NodeStatus.Method)}
	}
	return []string{fmt.Sprintf("the node turns NotReady %s to %s after the hang began: the node status update waits %s (the CRI deadline, %s) on %s before its Ready condition reads the runtime's errors, declared after %s", lo, hi, deadline, deadlineName(g), g.NodeStatus.Method, g.RuntimeDown.Value)}
}

// ladderWhy says which of the hang window's values were not read.
func ladderWhy(h *answer.Health) string {
	if h.Ladder == nil {
		return "no ladder was computed"
	}
	in := h.Ladder.Inputs
	var missing []string
	if in.Deadline <= 0 {
		missing = append(missing, "the CRI deadline")
	}
	if in.NodeStatusFrequency <= 0 {
		missing = append(missing, "the node status frequency")
	}
	if in.StatusPeriod <= 0 {
		missing = append(missing, "the status loop's period")
	}
	if len(missing) == 0 {
		return "its inputs were not read"
	}
	return strings.Join(missing, ", ") + " not read"
}

func deadlineName(g *answer.RuntimeHang) string {
	if d := g.Deadline; d != nil && d.Setting != "" {
		return d.Setting
	}
	return "its timeout"
}

// perCallLines say, per timeout, which CRI methods the client bounds by
// it (the first's line), and which it does not bound.
func perCallLines(d *answer.Deadline) []string {
	if d.PerCallUnknown != "" {
		return []string{"  per call: unknown: " + d.PerCallUnknown}
	}
	var order []string
	by := map[string][]answer.PerCall{}
	for _, c := range d.PerCall {
		if _, ok := by[c.Timeout]; !ok {
			order = append(order, c.Timeout)
		}
		by[c.Timeout] = append(by[c.Timeout], c)
	}
	var out []string
	for _, t := range order {
		cs := by[t]
		var ms []string
		for _, c := range cs {
			ms = append(ms, c.Method)
		}
		if t == "" {
			out = append(out, fmt.Sprintf("  the client sets no timeout of its own on %s (%s)", strings.Join(ms, ", "), srcpos.Line(cs[0].Decl)))
			continue
		}
		out = append(out, fmt.Sprintf("  the client bounds %s by %s (%s)", strings.Join(ms, ", "), t, srcpos.Line(cs[0].Pos)))
	}
	return out
}
