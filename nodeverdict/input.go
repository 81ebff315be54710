// What the decision reads: the gate's state, the source's relist facts,
// the metrics and the runtime.

package nodeverdict

import (
	"time"
)

// Input is everything the decision reads. Metrics is required; Runtime is
// nil when no crictl output was given.
type Input struct {
	Gate    GateState
	Periods Periods
	Metrics Metrics
	Runtime *Runtime
	// Health is the kubelet's PLEG health rule, from its source; At the
	// capture's time (nil: unknown), AtFrom where that time comes from,
	// for evidence ("-at", the capture's "# scraped at" line).
	Health HealthRule
	At     *time.Time
	AtFrom string
}

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
	// SourceVersion, when not empty, is the release read, another patch
	// of the kubelet's minor: the same design, noted.
	SourceVersion string
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
	case p.OnStreamFailure == StopWatching && p.GateOn.Known:
		return "the watcher stops, and the generic PLEG keeps relisting every " + p.GateOn.Evidence
	case p.OnStreamFailure == StopWatching:
		return "the watcher stops, and the generic PLEG keeps its period"
	case p.Fallback.Known:
		return fallbackVerb + p.Fallback.Evidence
	}
	return otherwise
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

// The evented PLEG's roles and what it does after the last stream
// failure, as the root package extracts them from the kubelet's source.
const (
	RoleEventSource      = "event-source"
	RoleRelistTrigger    = "relist-trigger"
	RestoreGenericRelist = "restore-generic-relist"
	StopWatching         = "stop-watching"
)
