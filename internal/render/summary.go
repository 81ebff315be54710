package render

import (
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// Summary states why relist stays, from the facts found: worded by what
// the tree does, never by what a document says it should.
func Summary(r *answer.Report) string {
	if r.Relist == nil {
		return "plegvet found no PLEG construction in this tree, so it cannot say how the kubelet notices container changes (see missing)."
	}
	offPeriod := Value(r.Relist.GateOff.Period, Prose)
	var rc *answer.Reconcile
	if r.Health != nil {
		rc = r.Health.Reconcile
	}
	if u := r.Relist.GateUnresolved; r.Relist.Gate == nil && u != nil {
		return fmt.Sprintf("This tree builds an evented PLEG under %s (%s:%d), a test plegvet could not follow to a feature gate (%s), so plegvet cannot say which PLEG a kubelet runs. When that test is %t, the generic PLEG relists %s. %s", u.Expr, u.Test.File, u.Test.Line, u.Unresolved, !u.Holds, Every(r.Relist.GateOff.Period), LevelTriggered(rc, r.Relist.GateOff.Period, false))
	}
	if r.Relist.Gate == nil {
		return fmt.Sprintf("This tree builds no evented PLEG: the generic PLEG relists %s and is the only way the kubelet notices container changes. %s", Every(r.Relist.GateOff.Period), LevelTriggered(rc, r.Relist.GateOff.Period, false))
	}
	g := r.Relist.Gate.Name
	on := r.Relist.GateOn
	stage := ""
	if s, ok := r.FeatureGate.InForce(); ok {
		stage = fmt.Sprintf(" (%s, default %t)", s.PreRelease, s.Default)
	}
	if on.Evented == nil {
		return fmt.Sprintf("With %s%s on, the generic PLEG relists %s instead of %s, but plegvet found no evented PLEG construction in this tree (see the files that were not read), so it cannot say what, if anything, hears of container changes in between. %s", g, stage, Every(on.Period), offPeriod, LevelTriggered(rc, on.Period, false))
	}
	var b strings.Builder
	say := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if e := r.EventedPLEG; e != nil && e.Role != "event-source" {
		summarizeNonSource(say, r, g, stage, offPeriod)
		say(" %s", LevelTriggered(rc, on.Period, true))
		return strings.TrimSpace(b.String())
	}
	e := r.EventedPLEG
	var forced *answer.ForcedRelist
	if e != nil {
		forced = e.RelistOnStreamError
	}
	say("With %s%s on, the evented PLEG reads the runtime's GetContainerEvents stream", g, stage)
	switch {
	case e != nil && e.UpdatesPodCache != nil && e.EmitsLifecycleEvents != nil:
		say(", writes the pod cache (%s) and sends pod lifecycle events (%s)", srcpos.Line(e.UpdatesPodCache), srcpos.Line(e.EmitsLifecycleEvents))
	case e != nil && e.EmitsLifecycleEvents != nil:
		say(" and sends pod lifecycle events (%s)", srcpos.Line(e.EmitsLifecycleEvents))
	}
	say(". ")
	ratio := r.Relist.Ratio
	switch {
	case on.Period == nil && forced != nil:
		say("With the gate on, this tree runs no periodic generic relist. ")
	case on.Period == nil:
		say("But with the gate on, this tree runs no generic relist at all, and plegvet finds none forced when the stream fails: nothing it finds relists the runtime. ")
	case ratio != nil && *ratio == 1:
		say("The generic PLEG keeps relisting beside it, %s whether or not the gate is on (ratio 1). ", Every(r.Relist.GateOff.Period))
	case ratio != nil:
		say("The generic PLEG keeps relisting beside it, %s instead of %s (x%s). ", Every(on.Period), offPeriod, Ratio(*ratio))
	default:
		say("The generic PLEG keeps relisting beside it, %s (the gate-off period is %s). ", Every(on.Period), offPeriod)
	}
	if f := forced; f != nil {
		say("Each time its stream call (%s) returns an error, the evented PLEG runs %s at once (%s); that relist writes the pod cache (%s)", srcpos.Line(&f.Stream), f.Relist, srcpos.Line(&f.Pos), srcpos.Line(&f.UpdatesPodCache))
		if f.EmitsLifecycleEvents != nil {
			say(" and sends pod lifecycle events (%s)", srcpos.Line(f.EmitsLifecycleEvents))
		}
		say(". ")
	} else if on.Period != nil && e != nil && e.RelistOnStreamErrorUnfollowed != "" {
		say("Whether the evented PLEG relists at once when its stream call returns an error plegvet could not read: %s. ", e.RelistOnStreamErrorUnfollowed)
	} else if on.Period != nil && e != nil {
		say("plegvet finds no relist that the evented PLEG forces when its stream call returns an error. ")
	}
	if on.Period == nil && forced == nil {
		say("%s", LevelTriggered(rc, on.Period, true))
		return strings.TrimSpace(b.String())
	}
	retries := "several"
	if on.MaxStreamRetries != nil && on.MaxStreamRetries.Value != nil {
		retries = fmt.Sprint(*on.MaxStreamRetries.Value)
	}
	switch {
	case r.EventedPLEG != nil && r.EventedPLEG.OnStreamFailure.Action == "unknown" && on.Fallback != nil && on.Fallback.Unresolved != "":
		say("If the stream fails %s times the evented PLEG gives up, and plegvet could not follow what it does then (%s). ", retries, on.Fallback.Unresolved)
	case on.Fallback != nil && on.Fallback.Unresolved == "":
		say("If the stream fails %s times the evented PLEG gives up and restores a %s relist. ", retries, Value(on.Fallback, Prose))
	case on.Fallback != nil:
		say("If the stream fails %s times the evented PLEG gives up and restores a relist whose period plegvet could not resolve (%s). ", retries, on.Fallback.Unresolved)
	case on.Period == nil:
		say("If the stream fails %s times the evented PLEG gives up and restores nothing: no generic relist runs after that. ", retries)
	case ratio != nil && *ratio > 1:
		say("If the stream fails %s times the evented PLEG gives up and restores nothing: the kubelet is left relisting %s. ", retries, Every(on.Period))
	default:
		say("If the stream fails %s times the evented PLEG stops watching and restores nothing, since the relist never slowed down. ", retries)
	}
	if sl := r.SyncLoop; sl != nil {
		say("%s (%s:%d) receives the pod lifecycle events (line %d). ", sl.Func, sl.Pos.File, sl.Pos.Line, sl.PLEGCase.Line)
	}
	say("%s", LevelTriggered(rc, on.Period, true))
	return strings.TrimSpace(b.String())
}

// summarizeNonSource words the argument for an evented PLEG that emits no
// pod lifecycle events: a relist trigger, or a design plegvet does not
// know. There the relist is no safety net beside the stream.
func summarizeNonSource(say func(string, ...any), r *answer.Report, g, stage, offPeriod string) {
	e, on := r.EventedPLEG, r.Relist.GateOn
	if e.Role != "relist-trigger" || e.RequestsRelist == nil {
		say("With %s%s on, this tree builds an evented PLEG whose code matches no design plegvet knows (%s), so plegvet does not say how it relates to the relist. ", g, stage, e.Why)
		say("The generic PLEG relists %s with the gate on (%s with it off).", Every(on.Period), offPeriod)
		return
	}
	req := e.RequestsRelist
	types := "every container event"
	if len(req.EventTypes) > 0 && req.EventTypes[0] != "all" {
		types = strings.Join(req.EventTypes, ", ") + " only"
	}
	say("With %s%s on, this tree's evented PLEG does not report container changes itself: it watches the runtime's GetContainerEvents stream and, for %s, asks the generic PLEG to relist (%s)", g, stage, types, srcpos.Line(&req.Pos))
	if req.Gate != nil {
		say(", a request the generic PLEG honours only with %s on", *req.Gate)
	}
	say(". ")
	say("The generic PLEG is the only source of pod lifecycle events, so the relist is not a safety net beside the stream: it is how the kubelet notices every change, and the stream only makes it come sooner for terminations. ")
	if ratio := r.Relist.Ratio; ratio != nil && *ratio == 1 {
		say("It relists %s whether or not the gate is on. ", Every(r.Relist.GateOff.Period))
	} else {
		say("It relists %s with the gate on (%s with it off). ", Every(on.Period), offPeriod)
	}
	if f := e.RelistOnStreamError; f != nil {
		say("Each time its stream call (%s) returns an error, it runs %s at once (%s), which writes the pod cache (%s). ", srcpos.Line(&f.Stream), f.Relist, srcpos.Line(&f.Pos), srcpos.Line(&f.UpdatesPodCache))
	}
	switch f := e.OnStreamFailure; {
	case f.Action == "stop-watching" && f.After != nil && f.After.Value != nil:
		say("If the stream fails %d times the watcher stops, and nothing else changes.", *f.After.Value)
	case f.Action == "stop-watching":
		say("If the stream fails for good the watcher stops, and nothing else changes.")
	}
}
