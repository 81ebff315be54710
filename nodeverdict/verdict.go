package nodeverdict

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The verdicts: what runs on the node, as the source predicts it from the
// gate and what became of the event stream, or Inconsistent when some of
// the evidence contradicts that prediction. Generic and Evented are also
// the modes the gate configures, and the PLEGs a reason's evidence points
// to.
const (
	// Generic: the generic PLEG relists alone, at its gate-off period; the
	// gate is off, or the kubelet's source builds no evented PLEG.
	Generic = "generic"
	// Evented: an evented PLEG that is an event source runs, the generic
	// relist beside it at the safety-net period.
	Evented = "evented"
	// GenericWithEventHints: the gate is on, but the release's evented
	// PLEG only asks the generic PLEG to relist; the generic PLEG alone
	// emits lifecycle events.
	GenericWithEventHints = "generic-with-event-hints"
	// FellBack: the gate is on, but the event stream failed as often as
	// the source allows (or the runtime's own source cannot stream, so it
	// will): the evented PLEG gave the stream up, and the generic PLEG
	// relists alone at what the source restores, or keeps, after that.
	FellBack = "fell-back"
	// Inconsistent: a reason's evidence contradicts the verdict the
	// source predicts (Decision.Expected).
	Inconsistent = "inconsistent"
)

// The evented PLEG's roles and what it does after the last stream
// failure, as the root package extracts them from the kubelet's source.
const (
	RoleEventSource      = "event-source"
	RoleRelistTrigger    = "relist-trigger"
	RestoreGenericRelist = "restore-generic-relist"
	StopWatching         = "stop-watching"
)

// Tolerance is how far, as a factor either way, the observed mean relist
// interval may lie from a period and still match it. It is loose because
// the mean covers the kubelet's whole life (start-up, a slow runtime), and
// tight enough to tell 1s from 5m.
const Tolerance = 2.0

// GateState is what the configz and the source say about the gate.
type GateState struct {
	Name string
	// KubeletVersion is the version the default is taken at: the
	// kubelet's, or, when VersionUnknown is set, the source's own.
	KubeletVersion string
	// VersionUnknown, when not empty, says why the kubelet's release is
	// not known (no kubernetes_build_info, or a git_version that is not a
	// release, as a kubelet built without version ldflags reports), and
	// which source's version KubeletVersion is instead.
	VersionUnknown string
	// Explicit says configz sets the gate, to Value.
	Explicit bool
	Value    bool
	// Default is the source's default at KubeletVersion; nil when the
	// source has no spec of the gate at that version.
	Default *bool
	// Spec describes the spec in force, or its absence, for evidence.
	Spec string
	// Built says the kubelet's source builds an evented PLEG when the
	// gate is on; without one, the generic PLEG runs whatever the gate.
	Built bool
	// Test says where the kubelet tests the gate, or that it builds no
	// evented PLEG, for evidence.
	Test string
}

// On is the gate's effective value.
func (g GateState) On() bool {
	if g.Explicit {
		return g.Value
	}
	return g.Default != nil && *g.Default
}

// Period is a relist period from the source.
type Period struct {
	Duration time.Duration
	// Known is false when the source has no such period, or it is not a
	// constant.
	Known bool
	// Evidence says where it comes from: "1s = genericPlegRelistPeriod
	// (pkg/kubelet/kubelet.go:215)", or why it is unknown.
	Evidence string
}

// Periods are the relist facts of the kubelet's source.
type Periods struct {
	// GateOff is the generic PLEG's period with the gate off (or always,
	// when the source builds no evented PLEG); GateOn its period beside
	// the evented PLEG.
	GateOff, GateOn Period
	// Fallback is the period the evented PLEG restores after the stream
	// fails for good; not Known when it restores none.
	Fallback Period
	// MaxStreamRetries is how many stream errors the evented PLEG
	// tolerates before it gives up the stream.
	MaxStreamRetries      int64
	RetriesKnown          bool
	MaxStreamRetriesCause string
	// Role is the evented PLEG's role in the source (RoleEventSource,
	// RoleRelistTrigger, "unknown"; "" when none is built), and
	// OnStreamFailure what it does after the last failure
	// (RestoreGenericRelist, StopWatching, "unknown").
	Role, RoleWhy   string
	OnStreamFailure string
	// ForcedRelists says the evented PLEG relists the generic PLEG
	// itself, outside the generic PLEG's timer: once after each failed
	// stream, and, when it restores the generic relist
	// (RestoreGenericRelist), once more as the restarted generic PLEG
	// relists at once. Every relist observes the time since the one
	// before in kubelet_pleg_relist_interval_seconds, so a forced relist
	// splits an interval in two: one observation more, no time more.
	// ForcedRelistsWhy is what this rests on, for evidence.
	ForcedRelists    bool
	ForcedRelistsWhy string
}

// Input is everything the decision reads. Metrics is required; Runtime is
// nil when no crictl output was given.
type Input struct {
	Gate    GateState
	Periods Periods
	Metrics Metrics
	Runtime *Runtime
}

// Reason is one piece of evidence and what it shows.
type Reason struct {
	Claim    string `json:"claim"`
	Evidence string `json:"evidence"`
	// Points is the PLEG the evidence points to: for the gate's own
	// reasons (configz, the source's default, kubernetes_feature_enabled)
	// the mode the gate configures; for what the kubelet does (event
	// streams, events, relists) the PLEG at work: "evented" when an
	// evented PLEG is (a stream open, events received, relists at the
	// gate-on period), "generic" when the generic PLEG relists alone. ""
	// when the evidence points to neither.
	Points string `json:"points"`
	// Agrees says whether the evidence agrees with the verdict the source
	// predicts for this node now (Decision.Expected): a gate reason when
	// it points to the mode the gate configures; a reason about what the
	// kubelet does when it points to the PLEG at work in that verdict (an
	// evented PLEG in evented and generic-with-event-hints, the generic
	// PLEG alone in generic and fell-back). Null for a note, which bears
	// on neither.
	Agrees *bool `json:"agrees"`
}

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

// Decision is the verdict and its reasons.
type Decision struct {
	// Verdict is Expected when no reason disagrees, and "inconsistent"
	// otherwise: one of generic, evented, generic-with-event-hints,
	// fell-back and inconsistent.
	Verdict string
	// Expected is the verdict the source predicts for this node now, from
	// the gate, the evented PLEG's design, and what became of the event
	// stream (the errors counted, or a runtime whose source cannot
	// stream): generic, evented, generic-with-event-hints or fell-back.
	Expected string
	// Configured is the mode the gate configures: "generic" or "evented"
	// (the gate on, and an evented PLEG built).
	Configured string
	Reasons    []Reason
	Relist     RelistCheck
}

// Decide applies the rules. It predicts the verdict from the gate, the
// design and the stream's fate first; each rule then adds a reason; the
// verdict is the prediction unless a reason disagrees with it.
func Decide(in Input) Decision {
	d := decider{in: in, configured: Generic}
	if in.Gate.Built && in.Gate.On() {
		d.configured = Evented
	}
	d.predict()
	reported := d.featureMetric()
	d.gate()
	if !reported {
		d.noFeatureMetric()
	}
	d.version()
	d.streams()
	d.events()
	d.relist()
	d.discards()
	d.runtime()
	d.design()
	verdict := d.expected
	if slices.ContainsFunc(d.reasons, func(r Reason) bool { return r.Agrees != nil && !*r.Agrees }) {
		verdict = Inconsistent
	}
	return Decision{Verdict: verdict, Expected: d.expected, Configured: d.configured, Reasons: d.reasons, Relist: d.check}
}

type decider struct {
	in         Input
	configured string
	// expected is the verdict the source predicts, and atWork the PLEG at
	// work in it: Evented (an evented PLEG streams or hints) or Generic.
	expected, atWork string
	// gaveUp: the stream errors reached the retries the source allows.
	// cannotStream: the gate is on, and the runtime's own source cannot
	// stream, so the evented PLEG spends its retries.
	gaveUp, cannotStream bool
	reasons              []Reason
	check                RelistCheck
}

// boolPtr is a new pointer to b: each Reason has its own Agrees, so that
// a caller changing one changes no other.
func boolPtr(b bool) *bool { return &b }

// predict decides, before any reason is given, what the source predicts
// for this node: the mode the gate configures, unless the stream was
// given up (or cannot but be), and with the release's design.
func (d *decider) predict() {
	d.expected, d.atWork = d.configured, d.configured
	if d.configured != Evented {
		return
	}
	p, m := d.in.Periods, d.in.Metrics
	d.gaveUp = m.StreamErrors != nil && p.RetriesKnown && *m.StreamErrors >= float64(p.MaxStreamRetries)
	rt := d.in.Runtime
	d.cannotStream = rt != nil && rt.APIVersion == "v1" && rt.StreamsEvents != nil && !*rt.StreamsEvents
	switch {
	case d.gaveUp || d.cannotStream:
		d.expected, d.atWork = FellBack, Generic
	case p.Role == RoleRelistTrigger:
		d.expected = GenericWithEventHints
	}
}

// agreeConfig adds a reason about the gate itself: it agrees when it
// points to the mode the gate configures.
func (d *decider) agreeConfig(points, claim, evidence string) {
	d.add(points, points == d.configured, claim, evidence)
}

// agreeState adds a reason about what the kubelet does: it agrees when it
// points to the PLEG at work in the predicted verdict.
func (d *decider) agreeState(points, claim, evidence string) {
	d.add(points, points == d.atWork, claim, evidence)
}

func (d *decider) add(points string, agrees bool, claim, evidence string) {
	d.reasons = append(d.reasons, Reason{Claim: claim, Evidence: evidence, Points: points, Agrees: boolPtr(agrees)})
}

// disagree adds a reason that points to no mode yet contradicts the prediction.
func (d *decider) disagree(claim, evidence string) {
	d.add("", false, claim, evidence)
}

// note adds a reason that bears on neither mode.
func (d *decider) note(claim, evidence string) {
	d.reasons = append(d.reasons, Reason{Claim: claim, Evidence: evidence})
}

func (d *decider) gate() {
	g := d.in.Gate
	set := fmt.Sprintf("kubeletconfig.featureGates.%s = %t", g.Name, g.Value)
	if g.Explicit && g.Default == nil {
		// A kubelet refuses to start with a gate it does not know.
		d.disagree(fmt.Sprintf("configz sets %s, which the source has no spec of at %s: a kubelet refuses gates it does not know, so this source is not the node's kubelet", g.Name, g.KubeletVersion),
			set+"; "+g.Spec)
	}
	if !g.Built {
		d.agreeConfig(Generic, fmt.Sprintf("the kubelet's source at %s builds no evented PLEG: the generic PLEG runs whatever %s says", g.KubeletVersion, g.Name), g.Test)
		if g.Explicit && g.Value && g.Default != nil {
			d.note(fmt.Sprintf("configz turns %s on, which this kubelet's source does not act on", g.Name), set)
		}
		return
	}
	state := "off"
	if g.On() {
		state = "on"
	}
	claim := fmt.Sprintf("%s is off: configz leaves it unset, and the source has no spec of it at %s", g.Name, g.KubeletVersion)
	evidence := fmt.Sprintf("no %s in kubeletconfig.featureGates; %s", g.Name, g.Spec)
	switch {
	case g.Explicit:
		claim = fmt.Sprintf("%s is %s: configz sets it", g.Name, state)
		evidence = fmt.Sprintf("%s; the source's default at %s: %s", set, g.KubeletVersion, g.Spec)
	case g.Default != nil:
		claim = fmt.Sprintf("%s is %s: configz leaves it unset, and its default at %s is %t", g.Name, state, g.KubeletVersion, *g.Default)
	}
	if g.Test != "" {
		evidence += "; " + g.Test
	}
	d.agreeConfig(d.configured, claim, evidence)
}

// featureMetric reads the kubelet's own word on the gate first:
// kubernetes_feature_enabled carries its effective value, the default
// applied, so it settles what configz leaves unsaid. Where it disagrees
// with configz and the source's default, one of them is not this node's.
// It reports whether the metrics had the gate.
func (d *decider) featureMetric() bool {
	g, m := d.in.Gate, d.in.Metrics
	st, ok := m.FeatureEnabled[g.Name]
	if !ok {
		return false
	}
	sample := fmt.Sprintf("%s{name=%q,stage=%q} %d", MetricFeatureEnabled, g.Name, st.Stage, btoi(st.Enabled))
	state := map[bool]string{true: "on", false: "off"}
	if st.Enabled != g.On() {
		from := "configz leaves it unset"
		if g.Explicit {
			from = fmt.Sprintf("configz sets it to %t", g.Value)
		} else if g.Default != nil {
			from += fmt.Sprintf(" and the source's default at %s is %t", g.KubeletVersion, *g.Default)
		}
		d.disagree(fmt.Sprintf("the kubelet reports %s %s, but %s", g.Name, state[st.Enabled], from), sample)
		return true
	}
	points := Generic
	if st.Enabled && g.Built {
		points = Evented
	}
	d.agreeConfig(points, fmt.Sprintf("the kubelet reports %s %s", g.Name, state[st.Enabled]), sample)
	return true
}

// noFeatureMetric says the kubelet's own word is missing, after the
// configz-and-source reason that then decides.
func (d *decider) noFeatureMetric() {
	g, m := d.in.Gate, d.in.Metrics
	why := fmt.Sprintf("no %s metric (a kubelet before v1.26, or a scrape without it)", MetricFeatureEnabled)
	if m.FeatureEnabled != nil {
		why = fmt.Sprintf("%s has no sample for %s", MetricFeatureEnabled, g.Name)
	}
	d.note(fmt.Sprintf("the kubelet's metrics do not say whether %s is on: configz and the source's default decide", g.Name), why)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// version notes a kubelet that does not say its release, and a kubelet
// version that differs from the metrics' own.
func (d *decider) version() {
	g := d.in.Gate
	if g.VersionUnknown != "" {
		d.note(fmt.Sprintf("the kubelet does not say which release it was built from: the gate's default is read at %s, the source's", g.KubeletVersion), g.VersionUnknown)
		return
	}
	mv := d.in.Metrics.KubeletVersion
	if mv == "" || mv == g.KubeletVersion {
		return
	}
	d.note(fmt.Sprintf("the gate is read at %s, not at the %s the metrics report", g.KubeletVersion, mv),
		fmt.Sprintf("%s{git_version=%q}", MetricBuildInfo, mv))
}

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

func (d *decider) relist() {
	p, m := d.in.Periods, d.in.Metrics
	c := &d.check
	c.Tolerance = Tolerance
	c.GateOff, c.GateOn, c.Fallback = periodText(p.GateOff), periodText(p.GateOn), periodText(p.Fallback)
	expected := p.GateOff
	switch {
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

// afterGivingUp says what the kubelet does once the stream is given up:
// what the source's design does, else the fallback period after
// fallbackVerb, else otherwise.
func (p Periods) afterGivingUp(otherwise, fallbackVerb string) string {
	switch {
	case p.OnStreamFailure == StopWatching && p.GateOn.Known:
		return "the watcher stops, and the generic PLEG keeps relisting every " + p.GateOn.Evidence
	case p.OnStreamFailure == StopWatching:
		return "the watcher stops, and the generic PLEG keeps its period"
	case p.Fallback.Known:
		return fallbackVerb + p.Fallback.Evidence
	}
	return otherwise
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

// design says what the gate being on means in this release's source: an
// event source, a relist trigger, or a design plegvet does not know.
func (d *decider) design() {
	p := d.in.Periods
	if d.configured != Evented {
		return
	}
	why := p.RoleWhy
	if why == "" {
		why = "the evented PLEG's role in the source: " + p.Role
	}
	switch p.Role {
	case RoleRelistTrigger:
		d.note("in this release the evented PLEG only asks the generic PLEG to relist: the generic PLEG alone emits pod lifecycle events", why)
	case RoleEventSource, "":
	default:
		d.note("this release's evented PLEG matches no design plegvet knows: the verdict says only that the gate is on", why)
	}
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
		fmt.Sprintf("%s; %s GetContainerEvents at %s: %s; the kubelet tests the gate: %s", evidence, rt.Module, rt.Pos, strings.TrimSuffix(rt.StreamsWhy, "."), d.in.Gate.Test))
}

func value(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// number prints a count or a sum without a needless exponent or fraction.
func number(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// seconds prints a number of seconds as a duration: 1.02s, 5m0s.
func seconds(s float64) string {
	const maxSeconds = float64(1<<63-1) / float64(time.Second)
	if s >= maxSeconds {
		return number(s) + "s"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

func periodText(p Period) string {
	if !p.Known {
		return ""
	}
	return p.Duration.String()
}
