// Package plegvet answers, from Kubernetes source and with file:line
// evidence, which PLEG (pod lifecycle event generator) a kubelet runs and
// why its relist loop stays: the EventedPLEG feature gate, the relist
// periods each mode configures, and the CRI event stream behind it.
//
// Each function here is one call that loads a tree (a checkout, or a
// release fetched with the go command), runs plegvet's extractors and
// analyzers over it, and returns typed results whose JSON form is stable
// (every result carries SchemaVersion). Paths in results are relative to
// the checkout root, with '/', as a user types them.
//
// Trees are loaded from source: the packages the answer needs are parsed
// and type-checked in memory, package time and the feature-gate API from
// built-in models of them, every other import stubbed. The answer never
// waits for the dependency graph to compile, and Source.Load says what was
// modelled and stubbed.
package plegvet

import (
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/nodesource"
	"github.com/plegvet/plegvet/internal/release"
)

// SchemaVersion is the version of the JSON form of every result
// (answer.SchemaVersion).
const SchemaVersion = answer.SchemaVersion

// Where a node verdict's source answer came from (Source.From).
const (
	FromIndex  = answer.FromIndex
	FromSource = answer.FromSource
)

// EventedPLEGGate is the feature gate behind the evented PLEG (KEP-3386),
// unless the tree's kubelet tests a gate of another name.
const EventedPLEGGate = answer.EventedPLEGGate

// The packages the answers read, relative to the tree's module.
const (
	FeaturesPackage = answer.FeaturesPackage
	KubeletPackage  = answer.KubeletPackage
	PlegPackage     = answer.PlegPackage
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
	GateChange        = answer.GateChange

	NodeReport  = answer.NodeReport
	NodeGate    = answer.NodeGate
	NodeInputs  = answer.NodeInputs
	NodeEvented = answer.NodeEvented

	// NodeSource is a kubelet's source read once for the node verdict
	// (LoadNodeSource); it decides for any number of nodes (Decide).
	NodeSource = nodesource.NodeSource
	// NodeCapture is what one node reports, parsed.
	NodeCapture = nodesource.NodeCapture

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

	// RuntimeHang is what a runtime that stops answering does to the node
	// (Report.Health.RuntimeHang): the collectors /metrics waits on and
	// the CRI calls they make, the CRI deadline, the Status loop, the
	// runtime-down threshold, the node status update's runtime call.
	RuntimeHang    = answer.RuntimeHang
	HangStep       = answer.HangStep
	HangValue      = answer.HangValue
	HangCollector  = answer.HangCollector
	Reach          = answer.Reach
	Deadline       = answer.Deadline
	NodeStatusCall = answer.NodeStatusCall
	HangSummary    = answer.HangSummary
)

// Errors a library caller can test with errors.Is; the command line adds
// the flag that mends each.
var (
	// ErrKubeletVersionUnknown: the metrics do not say the kubelet's
	// version (no kubernetes_build_info, or a git_version that is not a
	// release, as an unstamped build's v0.0.0-master), NodeOptions.KubeletVersion
	// is not set, and no source (-k8s or -C) says which release to read.
	// With a source, the report says the build's version is unknown and
	// goes on.
	ErrKubeletVersionUnknown = assemble.ErrKubeletVersionUnknown
	// ErrNoCRIAPI: the tree holds no k8s.io/cri-api, and Options.Proto
	// names no api.proto.
	ErrNoCRIAPI = assemble.ErrNoCRIAPI
)

// The release errors, for errors.Is: a version that is not a Kubernetes
// release (nor a minor), a version the module proxy does not serve, and
// among those a release after the newest it serves (v1.99.0), whose error
// names that newest.
var (
	ErrNotARelease   = release.ErrNotARelease
	ErrProxyRefused  = release.ErrProxyRefused
	ErrNoSuchRelease = release.ErrNoSuchRelease
)

// OptionError is an option whose value is not what was expected. Option is
// the field's name in Options or NodeOptions (Kubernetes, KubeletVersion).
type OptionError = assemble.OptionError

// UnknownGateError is a gate name that no release read declares, with
// the declared names it is likely a misspelling of (Where is the tree
// read, or Releases the releases a history read; DidYouMean closest
// first).
type UnknownGateError = assemble.UnknownGateError
