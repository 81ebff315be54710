// The health of the node's PLEG now: the time since its last successful
// relist against the threshold the kubelet holds it to, in the kubelet's
// own words, with what the same scrape says stalls it.

package nodeverdict

import (
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/srcpos"
)

// The health states.
const (
	// Healthy: the last successful relist is recent, well within the
	// threshold.
	Healthy = "healthy"
	// Unhealthy: the kubelet declares its PLEG unhealthy (the message is
	// its own), so the sync loop skips pods and the node turns NotReady.
	Unhealthy = "unhealthy"
	// AtRisk: still within the threshold, but past AtRiskFraction of it,
	// or AtRiskPeriods relist periods behind, or a relist took more than
	// AtRiskFraction of the threshold.
	AtRisk = "at-risk"
	// HealthUnknown: the capture cannot tell; the evidence says what is
	// missing.
	HealthUnknown = "unknown"
)

// The at-risk rule: a fraction of the threshold, and a number of relist
// periods, past which a PLEG still healthy is at risk.
const (
	AtRiskFraction = 0.5
	AtRiskPeriods  = 5
)

// gaugeResolution is the last-seen gauge's: the kubelet sets it to a Unix
// time in whole seconds, so the elapsed time computed from it is up to
// this much longer than the kubelet's own.
const gaugeResolution = time.Second

// HealthRule is the kubelet's health rule for its generic PLEG, as its
// source has it: the thresholds of each mode, and the words it uses.
type HealthRule struct {
	// GateOff, GateOn and Fallback are the generic PLEG's relist
	// thresholds: with the gate off (or always, without an evented PLEG),
	// beside the evented PLEG, and what the evented PLEG restores with
	// the fallback period once it gives the stream up.
	GateOff, GateOn, Fallback Threshold
	// Words are the kubelet's; zero when the source read does not give
	// them: the state is decided all the same.
	Words HealthWords
	// LastSeenRefreshed, when not "", says why kubelet_pleg_last_seen_seconds
	// proves nothing about the relist while the gate is on: another
	// health check sets it to the time of the check.
	LastSeenRefreshed string
	// LastSeenRefreshedGateOff says it holds with the gate off too (the
	// overwriting check is registered whatever the gate says).
	LastSeenRefreshedGateOff bool
	// ReadyWiring says, with positions, where the kubelet words its
	// failed health checks (the runtime's and the PLEG's) and hands them
	// to its node's Ready condition; "" when the source read does not
	// show it.
	ReadyWiring string
}

// HealthWords are the kubelet's words for its generic PLEG's failed
// health check, as its source has them.
type HealthWords struct {
	// CheckName is the name the kubelet registers the check under
	// ("PLEG"). StaleFormat is the check's message when the relist is
	// older than the threshold (two %v: the elapsed time, the threshold),
	// NeverFormat when no relist has succeeded, ErrorsFormat how the
	// kubelet's runtime errors word a failed check (%s the check's name,
	// %v its error).
	CheckName    string `json:"checkName"`
	StaleFormat  string `json:"staleFormat"`
	NeverFormat  string `json:"neverFormat"`
	ErrorsFormat string `json:"errorsFormat"`
	// RuntimeDown is how the kubelet's runtime errors say its runtime-up
	// check has not succeeded within RuntimeDownAfter (the threshold
	// cited: "30s = maxWaitForContainerRuntime (...)"); "" when not read.
	RuntimeDown      string `json:"runtimeDown,omitempty"`
	RuntimeDownAfter string `json:"runtimeDownAfter,omitempty"`
}

// NotHealthy is how the kubelet's runtime errors begin when this check
// fails ("PLEG is not healthy: "), as the node's Ready condition quotes
// them; "" when the words are not known.
func (w HealthWords) NotHealthy() string {
	head, _, ok := strings.Cut(w.ErrorsFormat, "%v")
	if !ok || w.CheckName == "" || strings.Count(head, "%") != 1 || !strings.Contains(head, "%s") {
		return ""
	}
	return fmt.Sprintf(head, w.CheckName)
}

// Threshold is a relist threshold from the source.
type Threshold struct {
	Duration time.Duration
	// Known is false when the source has none or it is not a constant;
	// Why then says why.
	Known bool
	Why   string
	// Cited is the value with its constant, for the answer; Evidence
	// the same in words ("3m0s = genericPlegRelistThreshold (...)").
	Cited    Cited
	Evidence string
}

// Cited is a value from the source with the constant it came from and
// where that is declared.
type Cited struct {
	Value string      `json:"value"`
	Const string      `json:"const"`
	Decl  *srcpos.Pos `json:"decl"`
}

// Health is the PLEG's health at the capture's time.
type Health struct {
	// State is healthy, unhealthy, at-risk or unknown.
	State string `json:"state"`
	// Since is when the PLEG was last seen active (the start of its last
	// successful relist, to the second); null when unknown or never.
	Since *time.Time `json:"since"`
	// Elapsed is the capture's time minus Since, as Go prints a
	// duration; "" when either is unknown.
	Elapsed string `json:"elapsed"`
	// Threshold is the threshold in force for the verdict; null when
	// unknown.
	Threshold *Cited `json:"threshold"`
	// Message is the kubelet's own, for unhealthy: "PLEG is not healthy:
	// pleg was last seen active 3m2s ago; threshold is 3m0s".
	Message string `json:"message"`
	// Evidence is what the state and the cause rest on, in order.
	Evidence []string `json:"evidence"`
	// Cause is what the same scrape names as the likely cause of a PLEG
	// not healthy; "" when it names none or the PLEG is healthy.
	Cause string `json:"cause"`
	// Runtime is the container runtime's state as the captures show it:
	// answering, down (its calls fail at once), slow (they answer, late),
	// hung (they wait their whole deadline), unanswered (the kubelet's
	// /metrics waits on it: slow or hung, not yet told apart) or unknown.
	Runtime string `json:"runtime"`
	// Latency is how long one CRI call takes, for a slow runtime: as
	// measured, or bounded, with the ladder's rung it stands on; null
	// otherwise.
	Latency *Latency `json:"latency,omitempty"`
}

// Latency is a slow runtime's latency per CRI call, and where it stands
// on the latency ladder the source gives.
type Latency struct {
	// MinSeconds and MaxSeconds bound it: more than Min (or at least, as
	// From says), at most Max; Max 0 when no bound is known.
	MinSeconds float64 `json:"minSeconds"`
	MaxSeconds float64 `json:"maxSeconds"`
	// From says what measured or bounded it.
	From string `json:"from"`
	// Rung is the highest rung of the ladder broken at MinSeconds per
	// call (null: none), Next the one above it (null: none); both null
	// when the ladder is not known.
	Rung *ladder.Rung `json:"rung"`
	Next *ladder.Rung `json:"next"`
}

// health decides the PLEG's health from the gauge, the capture's time
// and the threshold in force for the verdict predicted.
func (d *decider) health() (h Health) {
	h = Health{State: HealthUnknown, Evidence: []string{}}
	rule, m := d.in.Health, d.in.Metrics
	th, period, mode := d.inForce()
	if th.Known {
		c := th.Cited
		h.Threshold = &c
	}
	defer func() { d.causes(&h, th) }()
	switch {
	case m.LastSeen == nil:
		h.Evidence = append(h.Evidence, "the capture has no "+MetricLastSeen+": when the PLEG last relisted is not known")
		return h
	case d.configured == Evented && rule.LastSeenRefreshed != "":
		h.Evidence = append(h.Evidence, MetricLastSeen+" proves nothing about the relist with "+d.in.Gate.Name+" on: "+rule.LastSeenRefreshed)
		return h
	case rule.LastSeenRefreshedGateOff && rule.LastSeenRefreshed != "":
		h.Evidence = append(h.Evidence, MetricLastSeen+" proves nothing about the relist, whether or not "+d.in.Gate.Name+" is on: "+rule.LastSeenRefreshed)
		return h
	case d.in.At != nil && m.ProcessStart != nil && d.in.At.Before(time.Unix(int64(*m.ProcessStart), 0).Add(-2*gaugeResolution)):
		start := time.Unix(int64(*m.ProcessStart), 0).UTC()
		h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time %s (%s) is %v before the kubelet's process started (%s %s, %s): no scrape of it was taken then; the clocks differ, or the time is not the scrape's", d.in.At.Format(time.RFC3339Nano), d.in.AtFrom, start.Sub(*d.in.At), MetricProcessStart, number(*m.ProcessStart), start.Format(time.RFC3339)))
		return h
	case *m.LastSeen == 0:
		h.State = Unhealthy
		h.Message = d.message(rule.Words.NeverFormat, nil)
		h.Evidence = append(h.Evidence, MetricLastSeen+" is 0: no health check has seen a relist succeed yet (so reads a kubelet in its first seconds, or one whose runtime never answered a relist)")
		return h
	}
	since := time.Unix(int64(*m.LastSeen), 0).UTC()
	h.Since = &since
	at := d.in.At
	switch {
	case at == nil:
		h.Evidence = append(h.Evidence, fmt.Sprintf("the PLEG was last seen active at %s, but the capture's time is not known (no -at, no %q line): the time since cannot be computed", since.Format(time.RFC3339), strings.TrimSpace(ScrapedAtComment)))
		return h
	case !th.Known:
		h.Evidence = append(h.Evidence, "the threshold in force ("+mode+") is not known: "+th.Why)
	}
	elapsed := at.Sub(since)
	if !durationHolds(since, *at) {
		// Sub saturates: the two times are further apart than a
		// time.Duration holds (about 292 years).
		h.Evidence = append(h.Evidence, d.tooFarApart(since))
		return h
	}
	if elapsed < -2*gaugeResolution {
		h.Evidence = append(h.Evidence, fmt.Sprintf("the capture's time %s (%s) is %v before the PLEG was last seen active (%s): the clocks differ, or the time is not the scrape's", at.Format(time.RFC3339Nano), d.in.AtFrom, -elapsed, since.Format(time.RFC3339)))
		return h
	}
	elapsed = max(elapsed, 0)
	h.Elapsed = elapsed.String()
	seen := fmt.Sprintf("last seen active %s ago (%s %s, at %s; captured at %s, %s)", h.Elapsed, MetricLastSeen, number(*m.LastSeen), since.Format(time.RFC3339), at.Format(time.RFC3339Nano), d.in.AtFrom)
	if !th.Known {
		h.Evidence = append(h.Evidence, seen)
		return h
	}
	seen += "; threshold " + th.Evidence + ", " + mode
	limit := time.Duration(AtRiskFraction * float64(th.Duration))
	behind := time.Duration(0)
	if period.Known && period.Duration > 0 {
		behind = AtRiskPeriods*period.Duration + gaugeResolution
	}
	slow, slowBound, slowOK := m.RelistDuration.above(limit.Seconds())
	switch {
	case elapsed > th.Duration+gaugeResolution:
		h.State = Unhealthy
		h.Message = d.message(rule.Words.StaleFormat, []any{elapsed, th.Duration})
		h.Evidence = append(h.Evidence, seen+": past the threshold")
	case elapsed > th.Duration:
		h.State = AtRisk
		h.Evidence = append(h.Evidence, seen+": at the threshold, within the gauge's second")
	case elapsed > limit:
		h.State = AtRisk
		h.Evidence = append(h.Evidence, fmt.Sprintf("%s: past %v of the threshold (%v)", seen, AtRiskFraction, limit))
	case behind > 0 && elapsed > behind:
		h.State = AtRisk
		h.Evidence = append(h.Evidence, fmt.Sprintf("%s: more than %d relist periods of %s behind", seen, AtRiskPeriods, period.Evidence))
	case slowOK && slow > 0:
		h.State = AtRisk
		h.Evidence = append(h.Evidence, fmt.Sprintf("%s; but %d relists took more than %s (%s), over %v of the threshold", seen, slow, bound(slowBound), MetricRelistDuration, AtRiskFraction))
	default:
		h.State = Healthy
		h.Evidence = append(h.Evidence, seen)
	}
	return h
}

// inForce is the threshold and the relist period in force in the verdict
// the source predicts, and which mode's they are, in words.
func (d *decider) inForce() (Threshold, Period, string) {
	r, p := d.in.Health, d.in.Periods
	switch {
	case d.expected == Generic:
		return r.GateOff, p.GateOff, "the generic PLEG's"
	case d.expected == FellBack && p.OnStreamFailure != StopWatching:
		th := r.Fallback
		if !th.Known && th.Why == "" {
			th.Why = "the source restores no threshold with the fallback period"
		}
		return th, p.Fallback, "what the evented PLEG restores once the stream is given up"
	case d.expected == FellBack:
		return r.GateOn, p.GateOn, "the generic PLEG's, which it keeps once the stream is given up"
	}
	return r.GateOn, p.GateOn, "the generic PLEG's beside the evented PLEG"
}

// message is the kubelet's words for a failed check: the check's error in
// format, with args, worded as its runtime errors word it.
func (d *decider) message(format string, args []any) string {
	w := d.in.Health.Words
	if format == "" || w.ErrorsFormat == "" || w.CheckName == "" {
		return "(the kubelet's words are not known from this source)"
	}
	// The kubelet builds its error with fmt.Errorf(format, args...) and
	// prints it with %v: the same text as Sprintf gives.
	return fmt.Sprintf(w.ErrorsFormat, w.CheckName, fmt.Sprintf(format, args...))
}

// above counts the observations known to exceed limit seconds: those
// above the first bucket bound at or past it, which it returns; ok is
// false without buckets, or when no finite bound reaches the limit.
func (h *Histogram) above(limit float64) (n uint64, bound float64, ok bool) {
	if h == nil || h.Buckets == nil {
		return 0, 0, false
	}
	for _, b := range h.Buckets {
		if b.UpperBound >= limit {
			return h.Count - b.Cumulative, b.UpperBound, true
		}
	}
	return 0, 0, false
}
