// What the decision reads: the gate's state, the source's relist facts,
// the metrics and the runtime.

package nodeverdict

import (
	"cmp"
	"time"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/srcpos"
)

// Input is everything the decision reads. Metrics is required; Runtime is
// nil when no crictl output was given.
type Input struct {
	Gate    Gate
	Periods Periods
	Metrics Metrics
	Runtime *Runtime
	// Health is the kubelet's PLEG health rule, from its source; At the
	// capture's time (nil: unknown), AtFrom where that time comes from,
	// for evidence ("-at", the capture's "# scraped at" line).
	Health HealthRule
	At     *time.Time
	AtFrom string
	// Failure, when not nil, is the metrics request made at At that got
	// no answer: Metrics is then the last scrape that answered
	// (LastScrape), or empty. ConfigzAnswered says the kubelet answered
	// its configz meanwhile: it is alive, and only what calls the runtime
	// waits.
	Failure         *MetricsFailure
	LastScrape      bool
	ConfigzAnswered bool
	// Node is the Node object; nil when not given. RequestTimeout is the
	// kubelet's runtimeRequestTimeout from configz (0: not known), Cited
	// when it comes from the source's default instead.
	Node           *NodeStatus
	RequestTimeout time.Duration
	// Ladder is the latency ladder's inputs for this node: the source's,
	// with configz's runtimeRequestTimeout and nodeStatusUpdateFrequency
	// over its defaults, and the failed metrics request's wait as the
	// scrape timeout; LadderFrom says so, for evidence. nil when the
	// source read gives none: LadderWhy says why (plegvet's index holds
	// none), and what is known is RequestTimeout, StatusFrequency
	// (configz's nodeStatusUpdateFrequency, 0: not known) and the
	// runtime-down threshold's words (Health.Words).
	Ladder                *ladder.Inputs
	LadderFrom, LadderWhy string
	StatusFrequency       time.Duration
	// CaptureNode is the node the captures name ("" when none does),
	// CaptureNodeFrom how (kubectl pleg --save's NODE.configz.json): a
	// Node object of another name is named as a contradiction.
	CaptureNode, CaptureNodeFrom string
	// Hang is what the source says a scrape of /metrics waits on when
	// the runtime hangs, in words; zero when not read, Hang.Why saying why.
	Hang HangChain
}

// Gate is the gate that decides the PLEG, as the node sets it and the
// source defaults it: the decision's input, and the answer's
// (answer.NodeGate).
type Gate struct {
	Name string `json:"name"`
	// Explicit says configz's kubeletconfig.featureGates sets the gate.
	Explicit bool `json:"explicit"`
	// Value is the gate's effective value: configz's, or the default.
	Value bool `json:"value"`
	// Default is the source's default at KubeletVersion; null when the
	// source has no spec of the gate there.
	Default *bool `json:"default"`
	// KubeletVersion is the kubelet's version, as the metrics (or the
	// caller) report it: "" when unreported. A version that names no
	// release (v0.0.0-master+$Format:%H$) is kept as reported; Default is
	// then the source's own version's, and a reason says so.
	KubeletVersion string `json:"kubeletVersion"`
	// Spec is the spec in force at KubeletVersion; null when none.
	Spec *featuregates.Spec `json:"spec"`
	// SetInCode is the value the kubelet's own code writes to the gate
	// (Set in an init of pkg/features or pkg/kubelet, the last write),
	// which a configz leaving the gate unset does not override; null when
	// the code writes none. SetInCodeAt says where.
	SetInCode   *bool  `json:"setInCode,omitempty"`
	SetInCodeAt string `json:"setInCodeAt,omitempty"`
	// Built says the kubelet's source builds an evented PLEG under the
	// gate; Test is where it tests the gate (null when it does not).
	Built bool        `json:"built"`
	Test  *srcpos.Pos `json:"test"`

	// The gate's evidence in words, which the decision's reasons say: set
	// on the decision's input, never in an answer (as the syntax of
	// featuregates.Gate). DefaultAt is the version Default is taken at,
	// "" for KubeletVersion: where the kubelet's release is not known
	// (VersionUnknown says why), the source's own.
	// SourceVersion, when not empty, is the release read, another patch
	// of the kubelet's minor: the same design, noted. SpecWords describes
	// the spec in force, or its absence; TestWords where the kubelet
	// tests the gate, or that it builds no evented PLEG.
	DefaultAt      string `json:"-"`
	VersionUnknown string `json:"-"`
	SourceVersion  string `json:"-"`
	SpecWords      string `json:"-"`
	TestWords      string `json:"-"`
}

// defaultAt is the version the gate's Default is taken at.
func (g Gate) defaultAt() string {
	return cmp.Or(g.DefaultAt, g.KubeletVersion)
}

// On is the gate's effective value: configz's when it sets the gate,
// else what the kubelet's code writes, else the source's default.
func (g Gate) On() bool {
	switch {
	case g.Explicit:
		return g.Value
	case g.SetInCode != nil:
		return *g.SetInCode
	}
	return g.Default != nil && *g.Default
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

// afterGivingUp says what the kubelet does once the stream is given up:
// what the source's design does, else the fallback period after
// fallbackVerb, else otherwise.
func (p Periods) afterGivingUp(otherwise, fallbackVerb string) string {
	switch {
	case p.Fallback.Unresolved != "":
		return "plegvet could not read what the kubelet relists at then: " + p.Fallback.Unresolved
	case p.OnStreamFailure == StopWatching && p.GateOn.Known:
		return "the watcher stops, and the generic PLEG keeps relisting every " + p.GateOn.Evidence
	case p.OnStreamFailure == StopWatching:
		return "the watcher stops, and the generic PLEG keeps its period"
	case p.Fallback.Known:
		return fallbackVerb + p.Fallback.Evidence
	case p.OnStreamFailure == FailureUnknown:
		return "plegvet could not read what the evented PLEG does then"
	}
	return otherwise
}

// fallbackUnknown says why what the kubelet relists at once the stream
// is given up is not known; "" when it is.
func (p Periods) fallbackUnknown() string {
	switch {
	case p.Fallback.Unresolved != "":
		return p.Fallback.Unresolved
	case p.OnStreamFailure == FailureUnknown && p.Role == RoleEventSource && !p.Fallback.Known:
		return "what the evented PLEG does once its stream has failed for good could not be read"
	}
	return ""
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
	// Unresolved says why a period the source has is not known: a value
	// that is not a constant, or a hand-over plegvet could not follow;
	// "" when it is known or the source has none.
	Unresolved string
}

// The evented PLEG's roles and what it does after the last stream
// failure, as the root package extracts them from the kubelet's source.
const (
	RoleEventSource      = "event-source"
	RoleRelistTrigger    = "relist-trigger"
	RestoreGenericRelist = "restore-generic-relist"
	StopWatching         = "stop-watching"
	FailureUnknown       = "unknown"
)
