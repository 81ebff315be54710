// Package plegvet answers, from Kubernetes source and with file:line
// evidence, which PLEG (pod lifecycle event generator) a kubelet runs and
// why its relist loop stays: the EventedPLEG feature gate, the relist
// periods each mode configures, and the CRI event stream behind it.
//
// Each function here is one call that loads a tree (a checkout, or a
// release fetched with the go command), runs plegvet's extractors and
// analyzers over it, and returns typed results whose JSON form is stable
// (every result carries answer.SchemaVersion). The results are package answer's
// types (answer.Report, answer.NodeReport, ...), plain data documented
// there with their fields: this package returns them and aliases none.
// Paths in results are relative to the checkout root, with '/', as a user
// types them.
//
// Trees are loaded from source: the packages the answer needs are parsed
// and type-checked in memory, package time and the feature-gate API from
// built-in models of them, every other import stubbed. The answer never
// waits for the dependency graph to compile, and Source.Load says what was
// modelled and stubbed.
package plegvet

import (
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/assemble/nodesource"
	"github.com/plegvet/plegvet/internal/load/release"
)

// The remaining aliases name types and values that live in packages a
// library user cannot import (internal/): each is that type's only public
// name, and its fields are documented here, through the alias. They are
// the node source a caller reads once and decides many nodes with
// (NodeSource, NodeCapture), the capture files Node reads (NodeFiles),
// the errors a caller tests with errors.Is or errors.As
// (ErrKubeletVersionUnknown, ErrNoCRIAPI, the release errors,
// OptionError, UnknownGateError), and the position forms of
// RelocatePositions (Positions). Every answer type is package answer's,
// with no alias here.
type (
	// NodeSource is a kubelet's source read once for the node verdict
	// (LoadNodeSource); it decides for any number of nodes (Decide).
	NodeSource = nodesource.NodeSource
	// NodeCapture is what one node reports, parsed.
	NodeCapture = nodesource.NodeCapture
	// NodeFiles are the files a live node's captures are in (Node's
	// NodeOptions embed them); one type with the assemble layer's, so
	// that the library does not copy its fields one by one.
	NodeFiles = assemble.NodeFiles
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
	// ErrGoTooOld: the go command refused a release because the release
	// requires a newer Go and GOTOOLCHAIN kept it from switching; also
	// ErrProxyRefused.
	ErrGoTooOld = release.ErrGoTooOld
	// ErrListAndRange: a release list holding a range.
	ErrListAndRange = release.ErrListAndRange
)

// OptionError is an option whose value is not what was expected. Option is
// the field's name in Options or NodeOptions (Kubernetes, KubeletVersion).
type OptionError = assemble.OptionError

// UnknownGateError is a gate name that no release read declares, with
// the declared names it is likely a misspelling of (Where is the tree
// read, or Releases the releases a history read; DidYouMean closest
// first).
type UnknownGateError = assemble.UnknownGateError
