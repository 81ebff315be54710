// The runtime's state, and the PLEG's health when the kubelet's /metrics
// does not answer: a runtime that hangs makes every CRI call wait its
// whole deadline, and the kubelet's /metrics waits with it (collectors
// registered on it call the runtime while a scrape is served), while
// /configz answers. What is left to decide from is the failure itself,
// the last scrape that answered, configz and the Node object.

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
	// RuntimeHung: its calls wait their whole deadline: the kubelet's
	// /metrics timed out while its configz answered.
	RuntimeHung = "hung"
	// RuntimeUnknown: the captures cannot tell; the evidence says why.
	RuntimeUnknown = "unknown"
)

// deadlineFraction of runtimeRequestTimeout is a call's whole deadline,
// as the duration histogram's buckets can show it.
const deadlineFraction = 0.9

// decideHealth is the PLEG's health and the runtime's state.
func (d *decider) decideHealth() Health {
	if d.in.Failure != nil {
		return d.darkHealth()
	}
	h := d.health()
	th, _, _ := d.inForce()
	d.readReady(&h, th)
	d.runtimeAnswered(&h)
	return h
}

// runtimeAnswered decides the runtime's state from a scrape that
// answered.
func (d *decider) runtimeAnswered(h *Health) {
	h.Runtime = RuntimeUnknown
	m := d.in.Metrics
	if t := d.in.RequestTimeout; t > 0 && h.State != Healthy {
		// A call that took its whole deadline waited on a runtime that
		// did not answer: a hang, past or present (the histogram counts
		// since the kubelet started).
		for _, op := range []string{OpListPodSandbox, OpListContainers, OpPodSandboxStatus, OpContainerStatus, OpStatus} {
			o := m.RuntimeOperations[op]
			if n, over, ok := o.Duration.above(deadlineFraction * t.Seconds()); ok && n > 0 {
				h.Runtime = RuntimeHung
				h.Evidence = append(h.Evidence, fmt.Sprintf("the runtime is taken for hung: %d %s calls took more than %s, near their whole deadline (runtimeRequestTimeout %s, from configz), since the kubelet started (%s)", n, op, bound(over), t, MetricRuntimeOperationsDuration))
				return
			}
		}
	}
	if n := d.in.Node; n != nil && n.Ready != nil && n.Ready.Status == "False" && ReadReady(n.Ready.Message, d.in.Health.Words).RuntimeDown {
		h.Runtime = RuntimeDown
		h.Evidence = append(h.Evidence, "the runtime is down, its calls failing at once: the kubelet answered its metrics while its Ready condition says \""+d.in.Health.Words.RuntimeDown+"\"")
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

// darkHealth decides from a metrics request that got no answer.
func (d *decider) darkHealth() Health {
	f, in := d.in.Failure, d.in
	h := Health{State: HealthUnknown, Evidence: []string{}, Runtime: RuntimeUnknown}
	th, _, mode := d.inForce()
	if th.Known {
		c := th.Cited
		h.Threshold = &c
	}
	failed := "the metrics request"
	if f.At != nil {
		failed += " made at " + f.At.Format(time.RFC3339)
	}
	if f.Waited != "" {
		failed += " waited " + f.Waited + " and"
	}
	failed += " got no answer (" + f.Kind + "): " + f.Error
	switch {
	case f.Kind == FailureTimeout && in.ConfigzAnswered:
		h.Runtime = RuntimeHung
		h.Evidence = append(h.Evidence, failed+"; the kubelet answered its configz meanwhile: it is alive, and its /metrics waits on collectors that call the runtime, so the runtime does not answer its calls")
	case f.Kind == FailureTimeout:
		h.Evidence = append(h.Evidence, failed+"; with no configz answered, a hung runtime cannot be told from a kubelet or a node that does not answer")
	case in.ConfigzAnswered:
		h.Evidence = append(h.Evidence, failed+"; the kubelet answered its configz: not a hung runtime, whose metrics would wait until a deadline")
	default:
		h.Evidence = append(h.Evidence, failed+": no kubelet answered")
	}
	if !in.LastScrape || in.Metrics.LastSeen == nil {
		h.Evidence = append(h.Evidence, "no scrape that answered gives "+MetricLastSeen+": when the PLEG last relisted is not known")
	}
	if d.readReady(&h, th) {
		d.darkCause(&h)
		return h
	}
	if in.LastScrape && in.Metrics.LastSeen != nil && *in.Metrics.LastSeen > 0 && in.At != nil && h.Runtime == RuntimeHung {
		since := time.Unix(int64(*in.Metrics.LastSeen), 0).UTC()
		h.Since = &since
		elapsed := max(in.At.Sub(since), 0)
		h.Elapsed = elapsed.String()
		scraped := "the last scrape that answered"
		if t := in.Metrics.ScrapedAt; t != nil {
			scraped += " (" + t.Format(time.RFC3339) + ")"
		}
		seen := fmt.Sprintf("%s saw the PLEG last active at %s, %s before %s (%s); with the runtime hung since, no relist succeeded after that scrape", scraped, since.Format(time.RFC3339), h.Elapsed, in.At.Format(time.RFC3339), in.AtFrom)
		if t := in.Metrics.ScrapedAt; t != nil && in.At.After(*t) {
			// The kubelet's own last relist is between the two: its time
			// since is at most Elapsed, at least the time since the scrape.
			seen += fmt.Sprintf(": the kubelet's own time since its last relist is between %s and %s", in.At.Sub(*t).Round(time.Millisecond), h.Elapsed)
		}
		if th.Known {
			seen += "; threshold " + th.Evidence + ", " + mode
			if elapsed > th.Duration+gaugeResolution {
				h.State = Unhealthy
				h.Message = d.message(in.Health.Words.StaleFormat, []any{elapsed, th.Duration})
				h.Evidence = append(h.Evidence, seen+": past the threshold")
				d.darkCause(&h)
				return h
			}
		}
		h.Evidence = append(h.Evidence, seen)
	}
	if h.Runtime == RuntimeHung {
		h.State = AtRisk
		h.Evidence = append(h.Evidence, "at risk: no relist can succeed while the runtime does not answer, and the kubelet turns its node NotReady once its runtime-up check or its PLEG's threshold runs out")
	}
	d.darkCause(&h)
	return h
}

// darkCause names a hung runtime as the cause.
func (d *decider) darkCause(h *Health) {
	if h.Runtime != RuntimeHung {
		return
	}
	deadline := "each of its calls waits its whole deadline"
	if t := d.in.RequestTimeout; t > 0 {
		deadline += fmt.Sprintf(" (runtimeRequestTimeout %s, from configz)", t)
	}
	h.Cause = "the container runtime does not answer: " + deadline + ", and the kubelet's /metrics waits with the collectors that call it"
	if r, err := Release(d.in.Gate.KubeletVersion); err == nil {
		// The index a node is decided from holds no chain: the report
		// reads it from the release's code.
		h.Cause += " (plegvet report -k8s " + r + " names them, and each call down to the runtime)"
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
