// The runtime's state from a scrape that answered, and the kubelet's
// own word on its PLEG and runtime: its Node's Ready condition.

package nodeverdict

import (
	"fmt"
	"time"
)

// The runtime's states (Health.Runtime).
const (
	// RuntimeAnswering: the runtime answers: a relist succeeded within
	// the threshold.
	RuntimeAnswering = "answering"
	// RuntimeDown: its calls fail at once: the kubelet answers its
	// metrics, and says the runtime is down, or its relist stalled with
	// the runtime's calls failing.
	RuntimeDown = "down"
	// RuntimeSlow: its calls answer, late: seconds, below their deadline,
	// as measured by the kubelet (kubelet_runtime_operations_duration_seconds),
	// or shown by a node still Ready past the time a hang turns it
	// NotReady while its /metrics waits.
	RuntimeSlow = "slow"
	// RuntimeHung: its calls wait their whole deadline: measured so, or
	// the node turned NotReady for the runtime within the time the
	// source gives a hang, while its /metrics waits.
	RuntimeHung = "hung"
	// RuntimeUnanswered: the kubelet's /metrics waits on it (the request
	// reached the kubelet's handler and timed out while its configz
	// answered): slow or hung, not yet told apart; the evidence says
	// when they will be.
	RuntimeUnanswered = "unanswered"
	// RuntimeUnknown: the captures cannot tell; the evidence says why.
	RuntimeUnknown = "unknown"
)

// deadlineFraction of runtimeRequestTimeout is a call's whole deadline,
// as the duration histogram's buckets can show it.
const deadlineFraction = 0.9

// decideHealth is the PLEG's health and the runtime's state.
func (d *decider) decideHealth() Health {
	var h Health
	if d.in.Failure != nil {
		h = d.darkHealth()
	} else {
		h = d.health()
		th, _, _ := d.inForce()
		d.readReady(&h, th)
		d.runtimeAnswered(&h)
	}
	d.contradictions(&h)
	return h
}

// runtimeAnswered decides the runtime's state from a scrape that
// answered.
func (d *decider) runtimeAnswered(h *Health) {
	h.Runtime = RuntimeUnknown
	m := d.in.Metrics
	if t, from := d.requestTimeout(); t > 0 && h.State != Healthy {
		// A call that took its whole deadline waited on a runtime that
		// did not answer: a hang, past or present (the histogram counts
		// since the kubelet started).
		for _, op := range []string{OpListPodSandbox, OpListContainers, OpPodSandboxStatus, OpContainerStatus, OpStatus} {
			o := m.RuntimeOperations[op]
			if n, over, ok := o.Duration.above(deadlineFraction * t.Seconds()); ok && n > 0 {
				h.Runtime = RuntimeHung
				h.Evidence = append(h.Evidence, fmt.Sprintf("the runtime is taken for hung: %d %s calls took more than %s, near their whole deadline (runtimeRequestTimeout %s, %s), since the kubelet started (%s)", n, op, bound(over), t, from, MetricRuntimeOperationsDuration))
				return
			}
		}
	}
	if n := d.in.Node; n != nil && n.Ready != nil && n.Ready.Status == "False" && ReadReady(n.Ready.Message, d.in.Health.Words).RuntimeDown {
		h.Runtime = RuntimeDown
		h.Evidence = append(h.Evidence, "the runtime is down, its calls failing at once: the kubelet answered its metrics while its Ready condition says \""+d.in.Health.Words.RuntimeDown+"\"")
		return
	}
	if l, why := d.measuredSlow(); l != nil {
		h.Runtime, h.Latency = RuntimeSlow, l
		h.Evidence = append(h.Evidence, why)
		return
	}
	switch h.State {
	case Healthy:
		h.Runtime = RuntimeAnswering
	case Unhealthy, AtRisk:
		for _, op := range []string{OpListPodSandbox, OpListContainers, OpStatus} {
			if o := m.RuntimeOperations[op]; o.Errors != nil && *o.Errors > 0 {
				h.Runtime = RuntimeDown
				h.Evidence = append(h.Evidence, fmt.Sprintf("the runtime is taken for down: the kubelet answered its metrics (no call of theirs waited) while the relist stalled, and %s calls failed (%s, since the kubelet started)", op, MetricRuntimeOperationsErrors))
				return
			}
		}
		h.Evidence = append(h.Evidence, "the runtime's state is not known: the kubelet answered its metrics, and no call the relist or the runtime-up check makes has failed")
	}
}

// contradictions names, one evidence line each, inputs that cannot all
// be of one kubelet at one time: the Node object's kubelet version
// against the scrape's and the one given, its name against the node the
// captures name, and its times against each other and the capture's.
func (d *decider) contradictions(h *Health) {
	in, n := d.in, d.in.Node
	if n == nil {
		return
	}
	say := func(format string, args ...any) {
		h.Evidence = append(h.Evidence, "contradicting inputs: "+fmt.Sprintf(format, args...))
	}
	scrape := "the scrape's"
	if in.Failure != nil {
		scrape = "the last scrape that answered's"
	}
	if v, w := n.KubeletVersion, in.Metrics.KubeletVersion; v != "" && w != "" && v != w {
		say("the Node object %s says kubelet %s (status.nodeInfo.kubeletVersion), %s %s says %s: not one kubelet, or it changed between them", n.Name, v, scrape, MetricBuildInfo, w)
	}
	if v, g := n.KubeletVersion, in.Gate.KubeletVersion; v != "" && g != "" && g != v && g != in.Metrics.KubeletVersion {
		say("the kubelet version decided at is %s, the Node object %s says %s (status.nodeInfo.kubeletVersion)", g, n.Name, v)
	}
	if c := in.CaptureNode; c != "" && n.Name != "" && c != n.Name {
		say("the captures are of node %s (%s), the Node object is %s", c, in.CaptureNodeFrom, n.Name)
	}
	rc := n.Ready
	if rc == nil {
		return
	}
	if hb, tr := rc.LastHeartbeatTime, rc.LastTransitionTime; hb != nil && tr != nil && tr.After(hb.Add(gaugeResolution)) {
		say("the Ready condition's lastTransitionTime %s is after its lastHeartbeatTime %s: the kubelet posts a transition with its heartbeat", tr.Format(time.RFC3339), hb.Format(time.RFC3339))
	}
	if hb, at := rc.LastHeartbeatTime, in.At; hb != nil && at != nil && hb.After(at.Add(2*gaugeResolution)) {
		say("the Ready condition's lastHeartbeatTime %s is after the capture's time %s (%s): the Node object was read later than the metrics, or the clocks differ", hb.Format(time.RFC3339), at.Format(time.RFC3339Nano), in.AtFrom)
	}
}

// readReady reads the Node object's Ready condition into h: a Ready
// False that says the runtime is down or the PLEG is not healthy makes
// the PLEG unhealthy, with the condition's message as the kubelet's
// words; the kubelet's figures in it are checked against the source's
// threshold. It reports whether the condition made h unhealthy.
func (d *decider) readReady(h *Health, th Threshold) bool {
	n := d.in.Node
	if n == nil {
		return false
	}
	if n.Ready == nil {
		h.Evidence = append(h.Evidence, "the Node object "+n.Name+" has no Ready condition")
		return false
	}
	rc := n.Ready
	words := d.in.Health.Words
	r := ReadReady(rc.Message, words)
	cond := fmt.Sprintf("the Node object's Ready condition is %s", rc.Status)
	if rc.Reason != "" {
		cond += " (" + rc.Reason + ")"
	}
	if rc.LastTransitionTime != nil {
		cond += " since " + rc.LastTransitionTime.Format(time.RFC3339)
	}
	if rc.Message != "" {
		cond += fmt.Sprintf(": %q", rc.Message)
	}
	if r.Threshold != "" && th.Known {
		if got, err := time.ParseDuration(r.Threshold); err != nil || got != th.Duration {
			h.Evidence = append(h.Evidence, fmt.Sprintf("the kubelet's message gives the threshold %s; the source read gives %s: they disagree (another release, or a kubelet built otherwise)", r.Threshold, th.Evidence))
		}
	}
	if rc.Status != "False" || (!r.RuntimeDown && !r.PLEGUnhealthy) {
		if rc.Status == "False" && words.RuntimeDown == "" && words.NotHealthy() == "" {
			cond += "; the kubelet's words for a runtime down or a PLEG not healthy are not known from this source, so the message is not read"
		}
		h.Evidence = append(h.Evidence, cond)
		return false
	}
	switch {
	case r.PLEGUnhealthy:
		cond += ": the kubelet declared its PLEG unhealthy"
		if r.Elapsed != "" {
			cond += ", last seen active " + r.Elapsed + " ago"
		}
	default:
		within := "its threshold"
		if words.RuntimeDownAfter != "" {
			within = words.RuntimeDownAfter
		}
		cond += ": the kubelet declared its runtime down (its runtime-up check has not succeeded within " + within + "), and skips pod synchronization"
	}
	h.Evidence = append(h.Evidence, cond)
	if h.State != Unhealthy {
		h.State = Unhealthy
		h.Message = rc.Message
	}
	return true
}
