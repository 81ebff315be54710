// The relist check: the observed relist interval against the source's
// periods, by its mean, else the bucket holding its median.

package nodeverdict

import (
	"fmt"
	"math"
	"strconv"
)

// Tolerance is how far, as a factor either way, the observed mean relist
// interval may lie from a period and still match it. It is loose because
// the mean covers the kubelet's whole life (start-up, a slow runtime), and
// tight enough to tell 1s from 5m.
const Tolerance = 2.0

// RelistCheck compares the observed relist interval with the source's periods.
type RelistCheck struct {
	// Expected is the period the generic PLEG relists at in the verdict
	// the source predicts (Decision.Expected): the gate-off period, the
	// gate-on one beside an evented PLEG, or what the source restores or
	// keeps once the stream is given up; "" when unknown. GateOff, GateOn
	// and Fallback are the source's periods ("" when none or not a
	// constant).
	Expected string `json:"expected"`
	GateOff  string `json:"gateOff"`
	GateOn   string `json:"gateOn"`
	Fallback string `json:"fallback"`
	// FallbackUnknown says why what the kubelet relists at once the
	// stream is given up is not known (a hand-over plegvet could not
	// follow); Expected is then "" for a node that gave the stream up.
	FallbackUnknown string `json:"fallbackUnknown,omitempty"`
	// Observations is the relist-interval histogram's count, and
	// ForcedRelists how many of those are relists the evented PLEG forced
	// (Periods.ForcedRelists), which split an interval and add no time.
	// MeanIntervalSeconds is the histogram's sum over the observations
	// not forced (null when none remains), and MeanRelistSeconds the mean
	// relist duration, added to each period because the interval runs
	// from one relist's start to the next's.
	Observations        uint64   `json:"observations"`
	ForcedRelists       uint64   `json:"forcedRelists"`
	MeanIntervalSeconds *float64 `json:"meanIntervalSeconds"`
	MeanRelistSeconds   *float64 `json:"meanRelistSeconds"`
	Tolerance           float64  `json:"tolerance"`
	// Matches is which mode's period the mean matches: "generic",
	// "evented", "both" (the periods are too close to tell), "neither",
	// or "" when nothing was compared.
	Matches string `json:"matches"`
	// MedianInterval is the histogram bucket holding the median interval
	// (not counting forced relists), consulted when the mean is far from
	// the expected period: a few long intervals, as while a runtime does
	// not answer, pull a mean up but not a median. Absent when not
	// consulted.
	MedianInterval *IntervalRange `json:"medianInterval,omitempty"`
}

// IntervalRange is a histogram bucket: above AboveSeconds, at most
// AtMostSeconds (null: beyond the last finite bucket).
type IntervalRange struct {
	AboveSeconds  float64  `json:"aboveSeconds"`
	AtMostSeconds *float64 `json:"atMostSeconds"`
}

func (d *decider) relist() {
	p, m := d.in.Periods, d.in.Metrics
	c := &d.check
	c.Tolerance = Tolerance
	c.GateOff, c.GateOn, c.Fallback = periodText(p.GateOff), periodText(p.GateOn), periodText(p.Fallback)
	expected := p.GateOff
	c.FallbackUnknown = p.fallbackUnknown()
	switch {
	case d.expected == FellBack && c.FallbackUnknown != "":
		expected = Period{}
	case d.expected == FellBack && p.OnStreamFailure != StopWatching && p.Fallback.Known:
		expected = p.Fallback
	case d.configured == Evented:
		expected = p.GateOn
	}
	c.Expected = periodText(expected)
	if h := m.RelistDuration; h != nil {
		c.MeanRelistSeconds = h.Mean
	}
	h := m.RelistInterval
	switch {
	case h == nil:
		d.note("the metrics have no relist-interval histogram: the relist period is not compared", "no "+MetricRelistInterval)
		return
	case h.Count == 0 || h.Mean == nil:
		d.note("no relist interval was observed yet: the kubelet relisted at most once", MetricRelistInterval+"_count 0")
		return
	}
	c.Observations, c.ForcedRelists = h.Count, d.forced()
	observed := fmt.Sprintf("%s_sum %s / _count %d", MetricRelistInterval, number(h.Sum), h.Count)
	forcedWhy := ""
	if c.ForcedRelists > 0 {
		why := fmt.Sprintf("one after each of the %s stream errors", number(value(m.StreamErrors)))
		if value(m.StreamErrors) == 1 {
			why = "one after the stream error"
		}
		if d.gaveUp && p.OnStreamFailure == RestoreGenericRelist {
			why += ", one as the generic PLEG restarted when the stream was given up"
		}
		observed = fmt.Sprintf("%s_sum %s / (_count %d - %d forced relists: %s)", MetricRelistInterval, number(h.Sum), h.Count, c.ForcedRelists, why)
		forcedWhy = "; the evented PLEG forces relists: " + p.ForcedRelistsWhy
		if c.ForcedRelists >= h.Count {
			d.note(fmt.Sprintf("too few relist intervals to compare: the %d observed are all relists the evented PLEG forced, which split an interval without adding time", h.Count), observed+forcedWhy)
			return
		}
	}
	mean := h.Sum / float64(h.Count-c.ForcedRelists)
	c.MeanIntervalSeconds = &mean
	if !expected.Known {
		d.note(fmt.Sprintf("the relist period %s is not a constant in the source: the relist period is not compared", d.periodName()), expected.Evidence)
		return
	}
	relist := value(c.MeanRelistSeconds)
	matchOff := p.GateOff.Known && within(mean, p.GateOff.Duration.Seconds()+relist)
	matchOn := d.in.Gate.Built && p.GateOn.Known && within(mean, p.GateOn.Duration.Seconds()+relist)
	switch {
	case matchOff && matchOn:
		c.Matches = "both"
	case matchOff:
		c.Matches = Generic
	case matchOn:
		c.Matches = Evented
	default:
		c.Matches = "neither"
	}
	observed += " = " + seconds(mean)
	if relist > 0 {
		observed += fmt.Sprintf("; mean relist %s (%s)", seconds(relist), MetricRelistDuration)
	}
	periods := fmt.Sprintf("gate off %s", p.GateOff.Evidence)
	if d.in.Gate.Built {
		periods += fmt.Sprintf(", gate on %s", p.GateOn.Evidence)
	}
	evidence := fmt.Sprintf("%s; %s; within a factor of %s%s", observed, periods, strconv.FormatFloat(Tolerance, 'g', -1, 64), forcedWhy)
	if d.expected == FellBack {
		after := fmt.Sprintf("the %s the kubelet relists at once the stream is given up", c.Expected)
		switch {
		case within(mean, expected.Duration.Seconds()+relist):
			d.agreeState(Generic, fmt.Sprintf("the mean relist interval %s matches %s", seconds(mean), after), evidence)
		case d.medianHolds(h, expected, relist):
			d.agreeState(Generic, d.medianClaim(mean, after), d.medianEvidence(h, evidence))
		case d.gaveUp && p.GateOn.Known && between(mean, expected.Duration.Seconds()+relist, p.GateOn.Duration.Seconds()+relist):
			// The mean covers the kubelet's life: the time at the gate-on
			// period while the stream lasted, then the restored period.
			d.note(fmt.Sprintf("the mean relist interval %s lies between %s and the %s it relisted at while the stream lasted: a mean over the kubelet's life cannot tell how long that was", seconds(mean), after, c.GateOn), evidence)
		case d.heldUp(h, expected, mean, relist):
			d.note(heldUpClaim(mean), d.medianEvidence(h, evidence))
		default:
			d.disagree(fmt.Sprintf("the mean relist interval %s is far from %s", seconds(mean), after), evidence)
		}
		return
	}
	mine := fmt.Sprintf("the %s PLEG's %s period", d.configured, c.Expected)
	switch c.Matches {
	case "both":
		d.add("", true, fmt.Sprintf("the mean relist interval %s matches %s, which both modes share: it cannot tell them apart", seconds(mean), c.Expected), evidence)
	case d.configured:
		d.agreeState(d.configured, fmt.Sprintf("the mean relist interval %s matches %s", seconds(mean), mine), evidence)
	case Generic:
		d.agreeState(Generic, fmt.Sprintf("the mean relist interval %s is far from %s, and matches the gate-off %s: the kubelet relists as the generic PLEG does", seconds(mean), mine, c.GateOff), evidence)
	case Evented:
		d.agreeState(Evented, fmt.Sprintf("the mean relist interval %s is far from %s, and matches the %s the generic PLEG keeps beside the evented PLEG", seconds(mean), mine, c.GateOn), evidence)
	case "neither":
		if d.medianHolds(h, expected, relist) {
			d.agreeState(d.configured, d.medianClaim(mean, mine), d.medianEvidence(h, evidence))
			return
		}
		if d.heldUp(h, expected, mean, relist) {
			d.note(heldUpClaim(mean), d.medianEvidence(h, evidence))
			return
		}
		fallthrough
	default:
		d.disagree(fmt.Sprintf("the mean relist interval %s is far from %s, and from every period in the source", seconds(mean), mine), evidence)
	}
}

// forced is how many relist-interval observations are relists the
// evented PLEG forced: one per stream error, and one as it restarts the
// generic PLEG on giving the stream up.
func (d *decider) forced() uint64 {
	p := d.in.Periods
	if !p.ForcedRelists || d.configured != Evented {
		return 0
	}
	e := value(d.in.Metrics.StreamErrors)
	if e >= maxCount {
		return maxCount
	}
	n := uint64(e)
	if d.gaveUp && p.OnStreamFailure == RestoreGenericRelist {
		n++
	}
	return n
}

// medianHolds says whether the bucket holding the median interval (the
// forced relists, the shortest, left out) holds the expected period and
// no other period of the source; it records the bucket in the check.
func (d *decider) medianHolds(h *Histogram, expected Period, relist float64) bool {
	c := &d.check
	n := c.Observations - c.ForcedRelists
	above, atMost, ok := h.Quantile(c.ForcedRelists + (n+1)/2)
	if !ok || !expected.Known {
		return false
	}
	r := &IntervalRange{AboveSeconds: above}
	if !math.IsInf(atMost, 1) {
		r.AtMostSeconds = &atMost
	}
	c.MedianInterval = r
	holds := func(p Period) bool {
		want := p.Duration.Seconds() + relist
		return above < want*Tolerance && atMost >= want/Tolerance
	}
	if !holds(expected) {
		return false
	}
	p := d.in.Periods
	for _, other := range []Period{p.GateOff, p.GateOn, p.Fallback} {
		if other.Known && other.Duration != expected.Duration && holds(other) {
			return false // the bucket cannot tell them apart
		}
	}
	return true
}

// heldUp says whether the intervals are what failed relists leave: the
// kubelet observes an interval at every relist, measured from the last
// one that succeeded, so while the runtime does not answer each attempt
// observes one period more (P, 2P, 3P, ...). Then the shortest intervals
// (after the forced relists) still hold the expected period, while the
// mean and the median are slower than every period of the source, which
// no mode relists at. A kubelet that relists at another period has no
// intervals at the expected one; one that relists faster than predicted,
// or between two periods, still disagrees.
func (d *decider) heldUp(h *Histogram, expected Period, mean, relist float64) bool {
	p := d.in.Periods
	slowest, known := 0.0, false
	for _, q := range []Period{p.GateOff, p.GateOn, p.Fallback} {
		if q.Known {
			slowest, known = max(slowest, q.Duration.Seconds()+relist), true
		}
	}
	r := d.check.MedianInterval
	if !known || !expected.Known || mean <= slowest*Tolerance || r == nil || r.AboveSeconds < slowest*Tolerance {
		return false
	}
	above, atMost, ok := h.Quantile(d.check.ForcedRelists + 1)
	want := expected.Duration.Seconds() + relist
	return ok && above < want*Tolerance && atMost >= want/Tolerance
}

func heldUpClaim(mean float64) string {
	return fmt.Sprintf("the shortest relist intervals match the predicted period, but the mean (%s) and the median are slower than every period in the source: relists failed for a while (the kubelet measures each interval from the last relist that succeeded, as while the runtime does not answer); that says nothing of which PLEG runs", seconds(mean))
}

func (d *decider) medianClaim(mean float64, period string) string {
	return fmt.Sprintf("the median relist interval matches %s, though the mean, %s, is far from it: a few long intervals pull the mean up (a relist waits while the runtime does not answer)", period, seconds(mean))
}

func (d *decider) medianEvidence(h *Histogram, evidence string) string {
	c := d.check
	n := c.Observations - c.ForcedRelists
	r := c.MedianInterval
	at := "beyond the last bucket"
	if r.AtMostSeconds != nil {
		at = "at most " + seconds(*r.AtMostSeconds)
	}
	forced := ""
	if c.ForcedRelists > 0 {
		forced = fmt.Sprintf(", after the %d forced", c.ForcedRelists)
	}
	return fmt.Sprintf("%s_bucket: interval %d of %d%s is above %s and %s; %s", MetricRelistInterval, (n+1)/2, n, forced, seconds(r.AboveSeconds), at, evidence)
}

// periodName names the period the prediction relists at, for a note.
func (d *decider) periodName() string {
	switch {
	case d.expected == FellBack:
		return "the kubelet relists at once the stream is given up"
	case d.configured == Evented:
		return "of the generic PLEG beside the evented PLEG"
	}
	return "of the generic PLEG"
}

// within says whether observed lies within Tolerance of expected.
func within(observed, expected float64) bool {
	if expected <= 0 {
		return observed == 0
	}
	ratio := observed / expected
	return ratio >= 1/Tolerance && ratio <= Tolerance
}

// between says whether observed lies between two periods, each widened
// by Tolerance.
func between(observed, a, b float64) bool {
	lo, hi := min(a, b), max(a, b)
	return observed >= lo/Tolerance && observed <= hi*Tolerance
}
