// The PLEG's health and the runtime's state when the kubelet's /metrics
// does not answer. Dark is not dead: a runtime that answers slowly
// darkens /metrics (a scrape makes several CRI calls, one after another)
// long before it harms the PLEG, and a hung one darkens it too. While it
// is dark the relist cannot be seen, so the PLEG's health is the
// kubelet's own word, its Node's Ready condition (which carries the
// PLEG's and the runtime's errors), and hung is told from slow by what
// the source says must follow a hang: Ready False within
// ladder.HangNotReady of it.

package nodeverdict

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// darkTimes is what the last scrape that answered says, once its times
// are held to the capture's: when it was taken (lastGood: the dark began
// after it) and when the PLEG was last seen active then (since); each nil
// when not known or not to be trusted, the evidence saying why.
type darkTimes struct {
	lastGood, since *time.Time
	// refused: the captures' times cannot all be true (health refuses
	// the same): the health is unknown unless the kubelet's own word
	// makes it unhealthy.
	refused bool
}

// darkHealth decides from a metrics request that got no answer.
func (d *decider) darkHealth() Health {
	h := Health{State: HealthUnknown, Evidence: []string{}, Runtime: RuntimeUnknown}
	th, _, mode := d.inForce()
	if th.Known {
		c := th.Cited
		h.Threshold = &c
	}
	byRuntime := d.darkFailure(&h)
	t := d.darkTimes(&h)
	if t.refused {
		t.lastGood, t.since = nil, nil // no time of captures that cannot all be true is counted from
	}
	d.lastRelist(&h, t, th, mode)
	d.readReady(&h, th)
	d.darkRuntime(&h, byRuntime, t)
	if t.refused && h.State != Unhealthy {
		// As health refuses such captures: the kubelet's own word stands
		// when it says unhealthy, nothing else is decided.
		h.Evidence = append(h.Evidence, "the health is not decided from captures whose times cannot all be true")
	} else {
		d.darkState(&h)
	}
	d.chainEvidence(&h)
	d.darkCause(&h)
	return h
}

// darkFailure says what the failed request shows, and whether it is the
// runtime's doing: a timeout that reached the kubelet's handler while
// the kubelet answered its configz.
func (d *decider) darkFailure(h *Health) bool {
	f, in := d.in.Failure, d.in
	failed := "the metrics request"
	if f.At != nil {
		failed += " made at " + f.At.Format(time.RFC3339)
	}
	if f.Waited != "" {
		failed += " waited " + f.Waited + " and"
	}
	failed += " got no answer (" + f.Kind + "): " + f.Error
	reach, why := f.Reach()
	switch {
	case f.Kind == FailureTimeout && reach == ReachedHandler && in.ConfigzAnswered:
		h.Runtime = RuntimeUnanswered
		h.Evidence = append(h.Evidence, failed+"; "+why+"; the kubelet answered its configz meanwhile: it is alive, and its /metrics waits on collectors that call the runtime, so the runtime answers late or not at all (slow or hung)")
		return true
	case f.Kind == FailureTimeout && reach == ReachedHandler:
		h.Evidence = append(h.Evidence, failed+"; "+why+"; with no configz answered, a runtime that does not answer cannot be told from a kubelet that does not")
	case f.Kind == FailureTimeout:
		h.Evidence = append(h.Evidence, failed+"; "+why)
	case in.ConfigzAnswered:
		h.Evidence = append(h.Evidence, failed+"; the kubelet answered its configz: not a runtime that makes /metrics wait, which would time out")
	default:
		h.Evidence = append(h.Evidence, failed+": no kubelet answered")
	}
	return false
}

// darkTimes holds the last scrape that answered to the capture's time as
// health holds a scrape: a capture's time before that scrape, or before
// its kubelet's process started, a gauge the evented PLEG overwrites, or
// times no duration spans are refused, each said.
func (d *decider) darkTimes(h *Health) darkTimes {
	in, m := d.in, d.in.Metrics
	if !in.LastScrape {
		h.Evidence = append(h.Evidence, "no scrape that answered is given (-last-metrics): when /metrics went dark, and when the PLEG last relisted before, are not known")
		return darkTimes{}
	}
	at := in.At
	if at == nil {
		h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time is not known (no -at, no %q line in the failure): the last scrape that answered cannot be placed before it", strings.TrimSpace(ScrapedAtComment)))
		return darkTimes{}
	}
	if m.ProcessStart != nil {
		start := time.Unix(int64(*m.ProcessStart), 0).UTC()
		switch {
		case at.Before(start.Add(-2 * gaugeResolution)):
			h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time %s (%s) is %v before the last scrape's kubelet process started (%s %s, %s): the clocks differ, or the time is not the request's", at.Format(time.RFC3339Nano), in.AtFrom, start.Sub(*at), MetricProcessStart, number(*m.ProcessStart), start.Format(time.RFC3339)))
			return darkTimes{refused: true}
		case m.ScrapedAt != nil && m.ScrapedAt.Before(start.Add(-2*gaugeResolution)):
			h.Evidence = append(h.Evidence, fmt.Sprintf("the last scrape that answered says it was taken at %s, %v before its own kubelet process started (%s %s, %s): its time is not the scrape's", m.ScrapedAt.Format(time.RFC3339Nano), start.Sub(*m.ScrapedAt), MetricProcessStart, number(*m.ProcessStart), start.Format(time.RFC3339)))
			return darkTimes{refused: true}
		}
	}
	var t darkTimes
	switch s := m.ScrapedAt; {
	case s == nil:
		h.Evidence = append(h.Evidence, "the last scrape that answered has no \"# scraped at\" line: when /metrics went dark is not known")
	case !durationHolds(*s, *at):
		h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time %s (%s) and the last scrape that answered (%s) are more than %v (about 292 years) apart, beyond what a duration holds: not one kubelet's captures, or not their times", at.Format(time.RFC3339Nano), in.AtFrom, s.Format(time.RFC3339Nano), time.Duration(math.MaxInt64).Truncate(time.Hour)))
		return darkTimes{refused: true}
	case at.Before(s.Add(-2 * gaugeResolution)):
		h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time %s (%s) is %v before the last scrape that answered (%s): a request that failed after it was taken before it; the clocks differ, or the files are not of one outage", at.Format(time.RFC3339Nano), in.AtFrom, s.Sub(*at), s.Format(time.RFC3339Nano)))
		return darkTimes{refused: true}
	default:
		t.lastGood = s
	}
	rule := in.Health
	switch {
	case m.LastSeen == nil:
		h.Evidence = append(h.Evidence, "the last scrape that answered has no "+MetricLastSeen+": when the PLEG last relisted before the dark is not known")
	case d.configured == Evented && rule.LastSeenRefreshed != "":
		h.Evidence = append(h.Evidence, MetricLastSeen+" proves nothing about the relist with "+in.Gate.Name+" on: "+rule.LastSeenRefreshed)
	case rule.LastSeenRefreshedGateOff && rule.LastSeenRefreshed != "":
		h.Evidence = append(h.Evidence, MetricLastSeen+" proves nothing about the relist, whether or not "+in.Gate.Name+" is on: "+rule.LastSeenRefreshed)
	case *m.LastSeen == 0:
		h.Evidence = append(h.Evidence, "the last scrape that answered reads "+MetricLastSeen+" 0: no relist had succeeded by then")
	default:
		since := time.Unix(int64(*m.LastSeen), 0).UTC()
		switch {
		case !durationHolds(since, *at):
			h.Evidence = append(h.Evidence, d.tooFarApart(since))
			t.refused = true
		case at.Before(since.Add(-2 * gaugeResolution)):
			h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time %s (%s) is %v before the last scrape's PLEG was last seen active (%s): the clocks differ, or the time is not the request's", at.Format(time.RFC3339Nano), in.AtFrom, since.Sub(*at), since.Format(time.RFC3339)))
			t.refused = true
		default:
			t.since = &since
		}
	}
	return t
}

// lastRelist says what the last scrape that answered saw of the relist:
// evidence only, never a state. While /metrics is dark the gauge stops
// at that scrape whether or not the kubelet relists since (a slow
// runtime's relists go on unseen, a hung one's do not), so its age is
// how long the relist has not been seen, not how long it has not run.
func (d *decider) lastRelist(h *Health, t darkTimes, th Threshold, mode string) {
	if t.since == nil {
		return
	}
	since, at := *t.since, *d.in.At
	h.Since = &since
	scraped := "the last scrape that answered"
	if t.lastGood != nil {
		scraped += " (" + t.lastGood.Format(time.RFC3339) + ")"
	}
	seen := fmt.Sprintf("%s saw the PLEG last active at %s, %s before %s (%s); no scrape since shows whether the kubelet relisted after that", scraped, since.Format(time.RFC3339), max(at.Sub(since), 0), at.Format(time.RFC3339), d.in.AtFrom)
	if th.Known && at.Sub(since) > th.Duration+gaugeResolution {
		seen += fmt.Sprintf(": past the threshold (%s, %s) only if no relist succeeded since, which the kubelet's Ready condition says, not the age of a scrape", th.Evidence, mode)
	}
	h.Evidence = append(h.Evidence, seen)
}

// darkState decides the PLEG's health from the kubelet's word, when
// readReady has not made it unhealthy.
func (d *decider) darkState(h *Health) {
	if h.State == Unhealthy {
		return
	}
	n := d.in.Node
	words := d.in.Health.Words
	switch {
	case n == nil:
		h.Evidence = append(h.Evidence, "no Node object is given (-node): while /metrics is dark the PLEG's health is the kubelet's own word, its Node's Ready condition"+d.wiring()+", and without it the health cannot be known; the last scrape's gauge is not extrapolated")
	case n.Ready == nil:
		h.Evidence = append(h.Evidence, "without a Ready condition, the kubelet's word on its PLEG is not known while /metrics is dark")
	case n.Ready.Status == "Unknown":
		h.Evidence = append(h.Evidence, "the Ready condition is Unknown: the kubelet stopped posting its node's status, so its word on its PLEG is not current")
	case n.Ready.Status == "False" && words.NotHealthy() == "" && words.RuntimeDown == "":
		h.Evidence = append(h.Evidence, "the Ready condition is False, and the kubelet's words for a PLEG not healthy are not known from this source: what it says of the PLEG cannot be read")
	default:
		// Ready True, or False for another cause than the PLEG or the
		// runtime: the kubelet's PLEG check passed when it last computed
		// its status. The relist is not seen; the dark is the risk.
		h.State = AtRisk
		said := "the kubelet posts its node Ready"
		if n.Ready.Status == "False" {
			said = "the kubelet's Ready condition is False for another cause than its PLEG or its runtime"
		}
		h.Evidence = append(h.Evidence, "at risk, not unhealthy: "+said+": its PLEG's health check passed when it last computed its status (a failed check turns Ready False with its error"+d.wiring()+"); but /metrics does not answer, so the relist cannot be seen; "+d.ladderReading())
	}
}

// wiring cites where the kubelet hands its failed checks to the Ready
// condition, as ", " + the words, or "" when not known.
func (d *decider) wiring() string {
	if w := d.in.Health.ReadyWiring; w != "" {
		return ": " + w
	}
	return ""
}

// darkCause names what the dark says of the runtime as the likely cause
// of a PLEG at risk or unhealthy.
func (d *decider) darkCause(h *Health) {
	if h.State != Unhealthy && h.State != AtRisk {
		return // the evidence stands; there is nothing to cause
	}
	switch h.Runtime {
	case RuntimeHung:
		h.Cause = "the container runtime does not answer: each of its calls waits its whole deadline" + d.deadlineWords() + ", and the kubelet's /metrics waits with the collectors that call it" + d.chainCause()
	case RuntimeSlow:
		h.Cause = "the container runtime answers slowly: " + h.Latency.words() + "; the kubelet's /metrics waits on the collectors that call it" + d.chainCause()
	case RuntimeUnanswered:
		h.Cause = "the container runtime answers late or not at all (slow or hung, not yet told apart): the kubelet's /metrics waits on the collectors that call it" + d.chainCause()
	default:
		h.Cause = "the kubelet's /metrics does not answer, and the failed request says nothing of the runtime: what stalls the relist cannot be read"
		and := ";"
		if n := d.in.Node; n != nil && n.Ready != nil && n.Ready.Status == "False" && ReadReady(n.Ready.Message, d.in.Health.Words).RuntimeDown {
			h.Cause += "; the kubelet says its runtime is down (its runtime-up check failed)"
			and = ", and"
		}
		if c := d.in.Hang; c.Chain != "" && d.in.Failure.Kind == FailureTimeout {
			// What the source says a hang holds /metrics on: the likely
			// cause of a timeout, though this one does not prove it.
			h.Cause += and + " a hung runtime holds /metrics on " + c.Chain + ", each call for its deadline" + d.deadlineWords()
		}
	}
}

// requestTimeout is the CRI calls' deadline: configz's, else the
// ladder's (the source's default), and where it comes from; 0 when
// neither is known.
func (d *decider) requestTimeout() (time.Duration, string) {
	if t := d.in.RequestTimeout; t > 0 {
		return t, "from configz"
	}
	if l := d.in.Ladder; l != nil && l.Deadline > 0 {
		return l.Deadline, "the source's default"
	}
	return 0, ""
}
