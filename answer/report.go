package answer

import "github.com/plegvet/plegvet/plegperiods"

// Report is plegvet's answer for one tree: which PLEG a kubelet runs, on
// what evidence, and why the relist stays.
type Report struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	// FeatureGate is the gate as plegvet gates -json prints it, plus the
	// spec in force at Source.KubernetesVersion; null when the tree
	// declares no such gate.
	FeatureGate *Gate `json:"featureGate"`
	// EventedPLEG is what the tree's evented PLEG does, read from its
	// code; null when the tree builds none.
	EventedPLEG *EventedPLEG `json:"eventedPLEG"`
	// GateDependencies are the gates the feature gate depends on in the
	// tree's dependency map, each with its spec in force.
	GateDependencies []GateDependency `json:"gateDependencies"`
	// DefaultPLEG is what a node that does not set the gate runs:
	// "generic" or "evented" (the evented PLEG, with the generic relist
	// beside it as a safety net); "unknown" when the test deciding the
	// evented PLEG could not be followed (relist.gateUnresolved says why)
	// or the gate's spec could not be read (featureGate.unresolved).
	DefaultPLEG string `json:"defaultPLEG"`
	// Relist is the object plegvet periods -json prints; null when
	// pkg/kubelet builds no PLEG.
	Relist *Relist `json:"relist"`
	// RPC is the object plegvet rpc -json prints; null when missing.
	RPC *RPC `json:"rpc"`
	// SyncLoop is the kubelet loop that consumes PLEG events.
	SyncLoop *SyncLoop `json:"syncLoop"`
	// Summary states the safety-net argument from the facts found.
	Summary string `json:"summary"`
	// Missing lists the parts of the answer the tree does not have, and why.
	Missing     []Missing    `json:"missing"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Conflicts are as GatesReport's, for the features package.
	Conflicts []RegistrationConflict `json:"-"`
	// Error is set, and nothing else but Source, on a timeline row whose
	// release could not be fetched or read.
	Error string `json:"error,omitempty"`
	// Health is the kubelet's PLEG health rule, read from its code; null
	// when pkg/kubelet builds no PLEG.
	Health *Health `json:"health"`
}

// GateDependency is a gate the feature gate depends on.
type GateDependency struct {
	Name string `json:"name"`
	// Decl is the gate constant's declaration; null when the tree declares
	// no such gate (or in a package that was not loaded).
	Decl *Pos `json:"decl"`
	// Effective is its spec in force at the tree's version (its newest
	// without one); null when none is known.
	Effective *Spec `json:"effective"`
}

// Missing is a part of the answer the tree does not have.
type Missing struct {
	Part string `json:"part"`
	Why  string `json:"why"`
}

// The sync loop's answer is the pleg analyzer's own.
type (
	// SyncLoop is the select that consumes PLEG events beside periodic ticks.
	SyncLoop = plegperiods.SyncLoop
	// Tick is a periodic case of the sync loop.
	Tick = plegperiods.Tick
)

// Inspect answers for one tree: it loads pkg/features, pkg/kubelet/pleg
// and pkg/kubelet once, runs every analyzer, reads the CRI api.proto, and

// The evented PLEG answer's parts are the pleg analyzer's own.
type (
	// EventedPLEG is what the tree's evented PLEG does, read from its
	// code: its role is an extracted fact, not a release number's
	// assumption.
	EventedPLEG = plegperiods.EventedRole
	// ForcedRelist is the evented PLEG's call, in the branch run when its
	// stream call returns an error, that runs the generic PLEG's relist.
	ForcedRelist = plegperiods.ForcedRelist
	// RelistRequest is the evented PLEG's call of a relist request.
	RelistRequest = plegperiods.RelistRequest
	// HealthCheck is a health check registered on a PLEG.
	HealthCheck = plegperiods.HealthCheck
	// StreamFailure is what the evented PLEG does after its last allowed
	// stream failure.
	StreamFailure = plegperiods.StreamFailure
)

// Files visits the report's file names (Located).
func (r *Report) Files(visit FileVisitor) {
	v := files(visit)
	v.gate(r.FeatureGate)
	r.EventedPLEG.Files(FileVisitor(v))
	for i := range r.GateDependencies {
		d := &r.GateDependencies[i]
		v.pos(d.Decl)
		v.spec(d.Effective)
	}
	r.Relist.Files(FileVisitor(v))
	v.rpc(r.RPC)
	r.SyncLoop.Files(FileVisitor(v))
	v.health(r.Health)
	v.diagnostics(r.Diagnostics)
	v.conflicts(r.Conflicts)
}
