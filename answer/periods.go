package answer

import (
	"github.com/plegvet/plegvet/plegperiods"
)

// PeriodsReport is the relist periods a tree's kubelet runs with.
type PeriodsReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	Relist        Relist `json:"relist"`
	// Diagnostics are the pleg analyzer's findings.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// The relist answer's parts are the pleg analyzer's own.
type (
	// Relist is the two modes of the kubelet's PLEG.
	Relist = plegperiods.Relist
	// RelistGate names the gate and where it is tested.
	RelistGate = plegperiods.RelistGate
	// UnresolvedGate is the test deciding the evented PLEG that could not
	// be followed to a feature gate.
	UnresolvedGate = plegperiods.UnfollowedTest
	// Mode is what runs with the gate off: the generic relist.
	Mode = plegperiods.Mode
	// GateOnMode is what runs with the gate on.
	GateOnMode = plegperiods.GateOnMode
	// Value is a duration resolved to its constant, or why it could not be.
	Value = plegperiods.Value
	// RetryCount is the evented PLEG's stream retries.
	RetryCount = plegperiods.RetryCount
)

// Files visits the report's file names (Located).
func (r *PeriodsReport) Files(visit FileVisitor) {
	v := files(visit)
	r.Relist.Files(FileVisitor(v))
	v.diagnostics(r.Diagnostics)
}
