package plegvet

import "github.com/plegvet/plegvet/answer"

// SchemaVersion is the version of the JSON form of every result
// (answer.SchemaVersion).
const SchemaVersion = answer.SchemaVersion

// Where a node verdict's source answer came from (Source.From).
const (
	FromIndex  = answer.FromIndex
	FromSource = answer.FromSource
)

// The answers are package answer's: plain data, documented there.
type (
	Pos    = answer.Pos
	Source = answer.Source
	Load   = answer.Load

	Diagnostic = answer.Diagnostic
	Fix        = answer.Fix
	Edit       = answer.Edit
	Related    = answer.Related

	Report         = answer.Report
	FeatureGate    = answer.FeatureGate
	GateDependency = answer.GateDependency
	Missing        = answer.Missing
	SyncLoop       = answer.SyncLoop
	Tick           = answer.Tick
	EventedPLEG    = answer.EventedPLEG
	ForcedRelist   = answer.ForcedRelist
	RelistRequest  = answer.RelistRequest
	HealthCheck    = answer.HealthCheck
	StreamFailure  = answer.StreamFailure

	GatesReport  = answer.GatesReport
	Gate         = answer.Gate
	Registration = answer.Registration
	Spec         = answer.Spec
	ListEntry    = answer.ListEntry

	GateHistoryReport = answer.GateHistoryReport
	ReleaseRead       = answer.ReleaseRead
	GateTimeline      = answer.GateTimeline
	GateAtRelease     = answer.GateAtRelease
	GateState         = answer.GateState
	GateChange        = answer.GateChange

	NodeReport  = answer.NodeReport
	NodeGate    = answer.NodeGate
	NodeInputs  = answer.NodeInputs
	NodeEvented = answer.NodeEvented

	PeriodsReport  = answer.PeriodsReport
	Relist         = answer.Relist
	RelistGate     = answer.RelistGate
	UnresolvedGate = answer.UnresolvedGate
	Mode           = answer.Mode
	GateOnMode     = answer.GateOnMode
	Value          = answer.Value
	RetryCount     = answer.RetryCount

	RPCReport  = answer.RPCReport
	RPC        = answer.RPC
	ProtoField = answer.ProtoField
	EventType  = answer.EventType
	GoClient   = answer.GoClient

	RuntimeReport = answer.RuntimeReport
	RuntimeServer = answer.RuntimeServer
	RuntimeStep   = answer.RuntimeStep
)
