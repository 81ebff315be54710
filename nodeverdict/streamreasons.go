// The reasons about what the kubelet does with the event stream: streams
// opened and failed, events received and discarded, and whether the
// runtime's own source can stream.

package nodeverdict

import (
	"fmt"
	"strings"
)

// successCounts says what the success counter counts, for evidence:
// cri-client's GetContainerEvents calls the kubelet's callback (which
// increments it) once the gRPC call has returned a stream client, before
// the first receive; a runtime that answers Unimplemented fails only then.
var successCounts = fmt.Sprintf("%s counts the stream clients the kubelet obtained, before any event is received (a runtime that cannot stream counts a success, then an error, for each attempt), not streams that delivered events", MetricStreamSuccesses)

func (d *decider) streams() {
	m := d.in.Metrics
	if m.StreamSuccesses == nil && m.StreamErrors == nil {
		if d.in.Gate.Built {
			d.note("the metrics have no evented-PLEG connection counters, so they cannot show whether an event stream ran",
				fmt.Sprintf("no %s or %s (kubelets before v1.27 do not export them)", MetricStreamSuccesses, MetricStreamErrors))
		}
		return
	}
	s, e := value(m.StreamSuccesses), value(m.StreamErrors)
	counts := fmt.Sprintf("%s %s, %s %s", MetricStreamSuccesses, number(s), MetricStreamErrors, number(e))
	if s > 0 {
		counts += "; " + successCounts
	}
	p := d.in.Periods
	switch {
	case d.configured == Generic && s == 0 && e == 0:
		d.agreeState(Generic, "no event stream to the runtime was opened or tried", counts)
	case d.configured == Generic:
		d.agreeState(Evented, "the kubelet opened or tried event streams to the runtime, which only the evented PLEG does", counts)
	case d.gaveUp:
		after := p.afterGivingUp("the evented PLEG stops watching the stream, and the generic PLEG relists at its own period", "the kubelet relists every ")
		// What the source does after its last allowed failure: no
		// contradiction of the gate, but a verdict of its own.
		d.agreeState(Generic, "the evented PLEG gave up its event stream after the retries the source allows",
			fmt.Sprintf("%s; %s errors reach the %s stream retries, after which %s", counts, number(e), p.MaxStreamRetriesCause, after))
	case s == 0 && e == 0 && m.RelistDuration != nil && m.RelistDuration.Count == 0:
		// The PLEGs start together: no relist yet, so no stream tried yet.
		d.note("no event stream was opened or tried yet, and the generic PLEG has not finished its first relist: the kubelet is still starting its PLEGs",
			fmt.Sprintf("%s; %s_count 0", counts, MetricRelistDuration))
	case s > e:
		claim := "an event stream to the runtime is open"
		if s-e > 1 {
			claim = fmt.Sprintf("%s event streams to the runtime are open", number(s-e))
		}
		d.agreeState(Evented, claim+": the kubelet obtained more stream clients than it counted stream errors", counts+retriesBelow(p, e))
	case e > 0 && s == 0:
		d.agreeState(Generic, "the event stream never connected: every attempt failed", counts+retriesBelow(p, e))
	case e > 0:
		d.agreeState(Generic, "no event stream is open: every stream client the kubelet obtained ended in an error", counts+retriesBelow(p, e))
	default:
		d.agreeState(Generic, "no event stream to the runtime was opened or tried: the evented PLEG receives nothing", counts)
	}
}

// retriesBelow explains why errors below the retry limit did not end the stream.
func retriesBelow(p Periods, errs float64) string {
	if !p.RetriesKnown || errs == 0 {
		return ""
	}
	return fmt.Sprintf("; fewer errors than the %s stream retries", p.MaxStreamRetriesCause)
}

func (d *decider) events() {
	h := d.in.Metrics.EventLatency
	if h == nil {
		return
	}
	ev := fmt.Sprintf("%s_count %d", MetricEventLatency, h.Count)
	switch {
	case h.Count > 0 && d.cannotStream:
		rt := d.in.Runtime
		d.disagree(fmt.Sprintf("the kubelet received %d container events over an event stream, but %s %s cannot stream container events: one of the two is not this node's", h.Count, rt.Name, rt.Version),
			fmt.Sprintf("%s; %s GetContainerEvents at %s: %s", ev, rt.Module, rt.Pos, strings.TrimSuffix(rt.StreamsWhy, ".")))
	case h.Count > 0 && d.gaveUp:
		d.note(fmt.Sprintf("the kubelet received %d container events over an event stream before it gave the stream up", h.Count), ev)
	case h.Count > 0:
		d.agreeState(Evented, fmt.Sprintf("the kubelet received %d container events over an event stream", h.Count), ev)
	case d.gaveUp:
		d.agreeState(Generic, "no container event arrived over an event stream before the stream was given up", ev)
	case d.cannotStream:
		d.agreeState(Generic, "no container event arrived over an event stream, as none can from this runtime", ev)
	case d.atWork == Evented:
		d.note("no container event arrived over the stream yet (a node whose containers do not change sends none)", ev)
	default:
		d.agreeState(Generic, "no container event arrived over an event stream", ev)
	}
}

func (d *decider) discards() {
	n := d.in.Metrics.DiscardEvents
	if n == nil || *n == 0 {
		return
	}
	d.note(fmt.Sprintf("%s PLEG events were dropped because the event channel was full: their pods waited for a later relist", number(*n)),
		fmt.Sprintf("%s %s", MetricDiscardEvents, number(*n)))
}

func (d *decider) runtime() {
	rt := d.in.Runtime
	if rt == nil {
		return
	}
	evidence := fmt.Sprintf("crictl version: runtimeName %q, runtimeVersion %q, runtimeApiVersion %q", rt.Name, rt.Version, rt.APIVersion)
	if rt.ReportedBy == ReportedByNodeInfo {
		api := "runtimeApiVersion not reported"
		if rt.APIVersion != "" {
			api = fmt.Sprintf("CRI %s, as every kubelet of its version speaks", rt.APIVersion)
		}
		evidence = fmt.Sprintf("status.nodeInfo.containerRuntimeVersion %q (%s)", rt.Name+"://"+rt.Version, api)
	}
	if rt.Known {
		d.note(fmt.Sprintf("the container runtime is %s %s (CRI %s)", rt.Name, rt.Version, rt.APIVersion), evidence)
	} else {
		d.note(fmt.Sprintf("the container runtime %q is not one plegvet recognises (%s): whether it serves GetContainerEvents is not judged", rt.Name, strings.Join(KnownRuntimes(), ", ")), evidence)
	}
	if rt.APIVersion != "" && rt.APIVersion != "v1" && d.configured == Evented {
		// GetContainerEvents exists only in CRI v1; v1alpha2 never had it.
		d.disagree(fmt.Sprintf("the runtime speaks CRI %s, which has no GetContainerEvents for the evented PLEG to stream", rt.APIVersion), evidence)
		return
	}
	if !d.cannotStream {
		return
	}
	// The gate is on, and the runtime's own source cannot stream: the
	// evented PLEG spends its retries and the kubelet ends up where the
	// source puts it after the last failure.
	p := d.in.Periods
	after := p.afterGivingUp("the kubelet ends up relisting as the source has it after the last failure", "the kubelet ends up relisting every ")
	retries := "its"
	if p.RetriesKnown {
		retries = "the " + p.MaxStreamRetriesCause
	}
	d.agreeState(Generic,
		fmt.Sprintf("the gate is on, but %s %s cannot stream container events: the evented PLEG spends %s stream retries; then %s", rt.Name, rt.Version, retries, after),
		fmt.Sprintf("%s; %s GetContainerEvents at %s: %s; the kubelet tests the gate: %s", evidence, rt.Module, rt.Pos, strings.TrimSuffix(rt.StreamsWhy, "."), d.in.Gate.TestWords))
}
