// The verdict: what the source predicts for the node, and the reasons
// that agree with that prediction or contradict it.

package nodeverdict

import (
	"slices"
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
	// Health is the PLEG's health at the capture's time, held to the
	// threshold in force in Expected.
	Health Health
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
	return Decision{Verdict: verdict, Expected: d.expected, Configured: d.configured, Reasons: d.reasons, Relist: d.check, Health: d.saneHealth(d.decideHealth())}
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
