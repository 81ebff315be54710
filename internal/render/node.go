package render

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/plegvet/plegvet/answer"
)

// Node prints the verdict first, then each reason over its
// evidence, labelled by whether it agrees with the verdict the source
// predicts (the report's Expected).
func Node(w io.Writer, rep *answer.NodeReport) error {
	var b strings.Builder // one write at the end, whose error is returned
	releaseHeader(&b, rep.Source)
	// Values wrap under their label (13 columns), evidence after its
	// "- " (2 more).
	valueWidth := FitTo(w, 2*cellWidth, 15)
	line := func(label, text string) {
		fmt.Fprintf(&b, "%-13s%s\n", label, text)
	}
	g := rep.Gate
	state := "off"
	if g.Value {
		state = "on"
	}
	because := fmt.Sprintf("%s is %s", g.Name, state)
	if !g.Built {
		because = "this kubelet's source builds no evented PLEG"
	}
	switch rep.Verdict {
	case answer.Inconsistent:
		line("verdict", fmt.Sprintf("inconsistent: %s, %s; yet %d of %d reasons disagree", because, predicted(rep), rep.Disagreeing(), len(rep.Reasons)))
	case answer.FellBack:
		line("verdict", "fell-back: "+because+", but "+gaveUp(rep))
	case answer.GenericWithEventHints:
		line("verdict", fmt.Sprintf("generic-with-event-hints: %s, but this release's evented PLEG only asks the generic PLEG to relist; the generic PLEG alone emits pod lifecycle events", because))
	default:
		line("verdict", fmt.Sprintf("%s: %s, and no reason disagrees", rep.Verdict, because))
	}
	kubelet := cmp.Or(g.KubeletVersion, "unknown")
	switch {
	case rep.Source.Dir != "" && rep.Source.From == answer.FromIndex:
		kubelet += " (source " + rep.Source.Dir + ", from plegvet's index)"
	case rep.Source.Dir != "":
		kubelet += " (source " + rep.Source.Dir + ")"
	}
	line("kubelet", kubelet)
	if rt := rep.Runtime; rt != nil {
		line("runtime", strings.TrimSpace(fmt.Sprintf("%s %s, CRI %s", rt.Name, rt.Version, rt.APIVersion)))
	}
	if f := rep.MetricsFailure; f != nil {
		got := "no answer (" + f.Kind
		if f.Waited != "" {
			got += " after " + f.Waited
		}
		got += "): " + f.Error
		if rep.LastMetrics {
			got += "; read from the last scrape that answered"
		}
		for i, l := range wrapCell(got, valueWidth) {
			line(map[bool]string{true: "metrics"}[i == 0], l)
		}
	}
	if n := rep.Node; n != nil && n.Ready != nil {
		ready := "Ready=" + n.Ready.Status
		if n.Ready.Reason != "" {
			ready += " " + n.Ready.Reason
		}
		if n.Ready.Message != "" {
			ready += ": " + n.Ready.Message
		}
		for i, l := range wrapCell(ready, valueWidth) {
			line(map[bool]string{true: "node"}[i == 0], l)
		}
	}
	h := rep.Health
	healthState := h.State
	switch h.Runtime {
	case answer.RuntimeStateDown, answer.RuntimeStateHung, answer.RuntimeStateSlow, answer.RuntimeStateUnanswered:
		healthState += " (runtime " + h.Runtime + ")"
	}
	if h.Elapsed != "" && h.Threshold != nil {
		line("health", fmt.Sprintf("%s: last seen active %s ago; threshold is %s (%s)", healthState, h.Elapsed, h.Threshold.Value, cmp.Or(h.Threshold.Const, "a literal")))
	} else {
		line("health", healthState)
	}
	if l := h.Latency; l != nil {
		for i, t := range wrapCell(nodeLatency(l), valueWidth) {
			line(map[bool]string{true: "latency"}[i == 0], t)
		}
	}
	if h.Message != "" {
		// Wrapped here: its label leaves one space, no value column.
		for i, l := range wrapCell(h.Message, valueWidth) {
			line(map[bool]string{true: "kubelet says"}[i == 0], l)
		}
	}
	for _, e := range h.Evidence {
		for i, l := range wrapCell(e, valueWidth) {
			if i == 0 {
				l = "- " + l
			} else {
				l = "  " + l
			}
			line("", l)
		}
	}
	if h.Cause != "" {
		for i, l := range wrapCell("likely "+h.Cause, valueWidth) {
			label := ""
			if i == 0 {
				label = "cause"
			}
			line(label, l)
		}
	}
	b.WriteString("\n")
	for _, r := range rep.Reasons {
		label := "note"
		switch {
		case r.Agrees == nil:
		case *r.Agrees:
			label = "agrees"
		default:
			label = "DISAGREES"
		}
		line(label, r.Claim)
		if r.Evidence != "" {
			for _, l := range wrapCell(r.Evidence, valueWidth) {
				line("", l)
			}
		}
	}
	b.WriteString("\n")
	for _, l := range wrapCell(nodeLevelTriggered(rep), FitTo(w, 2*cellWidth+13, 0)) {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nodeLatency says a slow runtime's latency per CRI call and where it
// stands on the ladder.
func nodeLatency(l *answer.NodeLatency) string {
	secs := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) + "s" }
	var s string
	switch {
	case l.MinSeconds > 0 && l.MaxSeconds > 0:
		s = secs(l.MinSeconds) + " to " + secs(l.MaxSeconds) + " per CRI call"
	case l.MinSeconds > 0:
		s = "at least " + secs(l.MinSeconds) + " per CRI call"
	case l.MaxSeconds > 0:
		s = "at most " + secs(l.MaxSeconds) + " per CRI call"
	default:
		s = "not known per CRI call"
	}
	switch {
	case l.Rung != nil:
		s += "; on the ladder's " + l.Rung.Name + " rung (from " + l.Rung.Latency + ")"
	case l.Next != nil:
		s += "; below every rung of the ladder"
	default:
		s += "; the ladder is not known"
	}
	if l.Next != nil {
		s += ", next " + l.Next.Name + " from " + l.Next.Latency
	}
	return s
}

// nodeLevelTriggered closes the answer as the report's closing paragraph
// does: the relist, at the period the verdict predicts, is level-triggered
// reconciliation. An event stream runs beside it unless the evented PLEG
// gave it up or none runs.
func nodeLevelTriggered(rep *answer.NodeReport) string {
	var period *answer.Value
	if p := rep.Relist.Expected; p != "" {
		period = &answer.Value{Value: p}
	}
	stream := rep.Expected == answer.Evented || rep.Expected == answer.GenericWithEventHints
	return LevelTriggered(rep.Reconcile, period, stream)
}

// predicted says what the verdict the source predicts has the kubelet do,
// for an inconsistent headline.
func predicted(rep *answer.NodeReport) string {
	switch rep.Expected {
	case answer.Evented:
		return "so the evented PLEG should run, the generic PLEG relisting beside it" + every(rep.Relist.Expected)
	case answer.GenericWithEventHints:
		return "so the generic PLEG should relist" + every(rep.Relist.Expected) + ", with the evented PLEG's relist requests"
	case answer.FellBack:
		if why := rep.Relist.FallbackUnknown; why != "" {
			return "but the event stream fails as often as the source allows, and what the kubelet should relist at then is unknown: " + why
		}
		if rep.Relist.Fallback == "" {
			return "but the event stream fails as often as the source allows, so the evented PLEG should stop watching it, and the generic PLEG keep relisting" + every(rep.Relist.Expected)
		}
		return "but the event stream fails as often as the source allows, so the kubelet should relist" + every(rep.Relist.Expected) + ", as the source restores"
	}
	return "so the generic PLEG should relist alone" + every(rep.Relist.Expected)
}

// gaveUp says what the kubelet does once it gives the event stream up.
func gaveUp(rep *answer.NodeReport) string {
	if why := rep.Relist.FallbackUnknown; why != "" {
		return "the event stream fails as often as the source allows; what the kubelet relists at then is unknown: " + why
	}
	if rep.Relist.Fallback == "" {
		// No period restored: the watcher stops, the relist keeps its own.
		return "the event stream fails as often as the source allows: the evented PLEG stops watching it, and the generic PLEG keeps relisting" + every(rep.Relist.Expected)
	}
	return "the event stream fails as often as the source allows, and the kubelet relists" + every(rep.Relist.Expected) + ", as the source restores"
}

func every(period string) string {
	if period == "" {
		return ""
	}
	return " every " + period
}

// GateSpec describes, for the node verdict, the gate's spec in force (s,
// when ok), or why there is none: dir is the tree read, name the gate, g
// its declaration (nil: none).
func GateSpec(dir string, g *answer.Gate, name string, s answer.Spec, ok bool) string {
	if g == nil {
		return fmt.Sprintf("%s of %s declares no %s", answer.FeaturesPackage, dir, name)
	}
	if !ok {
		first := "none"
		if len(g.Specs) > 0 {
			first = g.Specs[0].Version
		}
		return fmt.Sprintf("%s's specs begin at %s (%s:%d)", name, first, g.Entry.File, g.Entry.Line)
	}
	since := ""
	if s.Version != "" {
		since = " since " + s.Version
	}
	return fmt.Sprintf("%s, default %t%s (%s:%d)", s.PreRelease, s.Default, since, s.Pos.File, s.Pos.Line)
}

// GateTest says, for the node verdict, where the kubelet tests the gate,
// or that it builds the generic PLEG only.
func GateTest(r answer.Relist) string {
	if r.Gate == nil || r.GateOn == nil {
		at := ""
		if r.GateOff != nil && r.GateOff.Call != nil {
			at = fmt.Sprintf(" (%s:%d)", r.GateOff.Call.File, r.GateOff.Call.Line)
		}
		return fmt.Sprintf("%s builds one generic PLEG, under no gate%s", answer.KubeletPackage, at)
	}
	return fmt.Sprintf("the kubelet tests it at %s:%d", r.Gate.Test.File, r.Gate.Test.Line)
}
