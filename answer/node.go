package answer

import (
	"github.com/plegvet/plegvet/nodeverdict"
)

// NodeReport is which PLEG a live node runs, and why.
type NodeReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	// Verdict, Expected and Configured are nodeverdict.Decision's. The
	// verdicts: "generic" (the generic PLEG relists alone), "evented" (an
	// evented PLEG that emits events runs, the relist slowed to the
	// safety-net period), "generic-with-event-hints" (the release's evented
	// PLEG only asks the generic PLEG to relist), "fell-back" (the event
	// stream was given up after the retries the source allows, or cannot
	// but be) and "inconsistent" (a reason disagrees with Expected). A
	// fell-back node is configured evented.
	Verdict    string   `json:"verdict"`
	Expected   string   `json:"expected"`
	Configured string   `json:"configured"`
	Gate       NodeGate `json:"gate"`
	// Reasons are every piece of evidence, in the order the rules ran;
	// each says which PLEG it points to and whether it agrees with
	// Expected (see nodeverdict.Reason).
	Reasons []nodeverdict.Reason `json:"reasons"`
	// Runtime is null without a crictl file.
	Runtime *nodeverdict.Runtime `json:"runtime"`
	// Metrics is the scrape read: the capture's, or, when the metrics
	// request failed (MetricsFailure), the last scrape that answered
	// (LastMetrics true), or empty.
	Metrics        nodeverdict.Metrics         `json:"metrics"`
	LastMetrics    bool                        `json:"lastMetrics,omitempty"`
	MetricsFailure *nodeverdict.MetricsFailure `json:"metricsFailure,omitempty"`
	// Node is what the Node object says (its Ready condition); null
	// without one.
	Node   *nodeverdict.NodeStatus `json:"node,omitempty"`
	Relist nodeverdict.RelistCheck `json:"relist"`
	// Health is the PLEG's health at the capture's time: the time since
	// its last successful relist against the threshold in force for
	// Expected (see nodeverdict.Health).
	Health NodeHealth `json:"health"`
	// Reconcile is how the source's generic PLEG relists: it lists every
	// pod and compares with the previous listing (level-triggered
	// reconciliation); null when the source read does not say.
	Reconcile *Reconcile `json:"reconcile"`
	// Inputs are the files read, as given.
	Inputs NodeInputs `json:"inputs"`
}

// NodeGate is the gate that decides the PLEG, as the node sets it and the
// source defaults it: nodeverdict.Gate, which the decision reads.
type NodeGate = nodeverdict.Gate

// NodeInputs are the captures read.
type NodeInputs struct {
	Configz string `json:"configz"`
	// Metrics is "" when the metrics request failed (MetricsError names
	// where its error came from: "-metrics-error", or a file).
	Metrics      string `json:"metrics"`
	Crictl       string `json:"crictl,omitempty"`
	MetricsError string `json:"metricsError,omitempty"`
	LastMetrics  string `json:"lastMetrics,omitempty"`
	Node         string `json:"node,omitempty"`
}

// NodeEvented is what the evented PLEG does, read from its code.
type NodeEvented struct {
	// Role is its design (an event source, a relist trigger, unknown),
	// Why on what evidence.
	Role string `json:"role"`
	Why  string `json:"why"`
	// OnStreamFailure is what it does after giving the stream up.
	OnStreamFailure string `json:"onStreamFailure,omitempty"`
	// ForcedRelists says that it relists the generic PLEG itself when a
	// stream call fails, ForcedRelistsWhy on what evidence.
	ForcedRelists    bool   `json:"forcedRelists,omitempty"`
	ForcedRelistsWhy string `json:"forcedRelistsWhy,omitempty"`
}

// Disagreeing counts the reasons that disagree with Expected.
func (r *NodeReport) Disagreeing() int {
	n := 0
	for _, reason := range r.Reasons {
		if reason.Agrees != nil && !*reason.Agrees {
			n++
		}
	}
	return n
}

// NodeHealth is the PLEG's health at the capture's time.
type NodeHealth = nodeverdict.Health

// NodeLatency is a slow runtime's latency per CRI call, placed on the
// latency ladder (NodeHealth.Latency).
type NodeLatency = nodeverdict.Latency

// The health states of a NodeHealth.
const (
	Healthy       = nodeverdict.Healthy
	Unhealthy     = nodeverdict.Unhealthy
	AtRisk        = nodeverdict.AtRisk
	HealthUnknown = nodeverdict.HealthUnknown
)

// The runtime's states of a NodeHealth.
const (
	RuntimeStateAnswering  = nodeverdict.RuntimeAnswering
	RuntimeStateDown       = nodeverdict.RuntimeDown
	RuntimeStateHung       = nodeverdict.RuntimeHung
	RuntimeStateSlow       = nodeverdict.RuntimeSlow
	RuntimeStateUnanswered = nodeverdict.RuntimeUnanswered
	RuntimeStateUnknown    = nodeverdict.RuntimeUnknown
)

// The verdicts of a NodeReport, as nodeverdict decides them.
const (
	Generic               = nodeverdict.Generic
	Evented               = nodeverdict.Evented
	GenericWithEventHints = nodeverdict.GenericWithEventHints
	FellBack              = nodeverdict.FellBack
	Inconsistent          = nodeverdict.Inconsistent
)

// Files visits the report's file names (Located).
func (r *NodeReport) Files(visit FileVisitor) {
	v := files(visit)
	v.spec(r.Gate.Spec)
	v.pos(r.Gate.Test)
	if t := r.Health.Threshold; t != nil {
		v.pos(t.Decl)
	}
	if rc := r.Reconcile; rc != nil {
		v.codeStep(rc.List)
		v.codeStep(rc.Compare)
	}
}

// EventedPLEGGate is the feature gate behind the evented PLEG (KEP-3386),
// unless the tree's kubelet tests a gate of another name.
const EventedPLEGGate = nodeverdict.EventedPLEGGate

// The packages the answers read, relative to the tree's module.
const (
	FeaturesPackage = "pkg/features"
	KubeletPackage  = "pkg/kubelet"
	PlegPackage     = "pkg/kubelet/pleg"
)
