package plegvet

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/plegperiods"
)

// NodeSource is a kubelet's source read once for the node verdict: the
// gate's specs, the relist periods, and what the evented PLEG does. It
// holds what was read, not the loaded tree, and decides for any number of
// nodes; its methods are safe for concurrent use.
//
// It is JSON-ready: plegvet's index of releases (NodeIndexReleases) holds
// one per release, encoded, and a NodeSource decoded decides as the one
// encoded.
type NodeSource struct {
	// Source is the tree read, as NodeReport.Source says it; its From
	// says whether the answer came from plegvet's index or the source.
	Source Source `json:"source"`
	// Gate is the gate the kubelet tests to build the evented PLEG (the
	// relist answer's gate, EventedPLEG when it tests none), with its spec
	// history; nil when the tree declares no such gate.
	Gate *Gate `json:"gate"`
	// Relist is the relist answer, as Inspect's.
	Relist Relist `json:"relist"`
	// Evented is the evented PLEG's design; nil when the tree builds none
	// or its role could not be read.
	Evented *NodeEvented `json:"evented,omitempty"`
}

// LoadNodeSource reads the source of the kubelet of a release (v1.36.1,
// as nodeverdict.Release gives it): the tree opts names, or, when opts
// names none (Dir and Kubernetes empty), the release: its answer in
// plegvet's index (NodeIndexReleases) unless opts.SkipIndex, or else its
// source fetched with the go command. A release the index lacks, with no
// go command on PATH, is an error wrapping ErrNoGoCommand.
func LoadNodeSource(ctx context.Context, opts Options, release string) (*NodeSource, error) {
	if opts.Dir == "" && opts.Kubernetes == "" {
		if release == "" {
			return nil, errors.New("no source: want a release, or Options naming a tree")
		}
		if !opts.SkipIndex && opts.Proto == "" {
			s, err := indexedNodeSource(release)
			if s != nil || err != nil {
				return s, err
			}
		}
		if _, err := exec.LookPath("go"); err != nil {
			return nil, notIndexed(release)
		}
		opts.Kubernetes = release
	}
	// One load of the tree answers both: the gate's spec and the periods.
	t, source, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, source, suite.FromSource, FeaturesPackage, PlegPackage, KubeletPackage)
	if err != nil {
		return nil, err
	}
	gates, err := analysedGates(a)
	if err != nil {
		return nil, err
	}
	periods, err := analysedPeriods(a)
	if err != nil {
		return nil, err
	}
	s := &NodeSource{Source: periods.Source, Relist: periods.Relist}
	s.Source.From = FromSource
	s.Gate = gates.Gate(s.gateName())
	// What the gate being on means is the release's design, read from its
	// code: an event source, a relist trigger, or unknown.
	if out, err := a.outcome(pleg.Analyzer, KubeletPackage); err == nil {
		if e := out.Result.(*pleg.Result).Evented; e != nil && e.Role != "" {
			s.Evented = &NodeEvented{Role: string(e.Role), Why: e.Why, OnStreamFailure: e.OnStreamFailure.Action}
			s.Evented.ForcedRelists, s.Evented.ForcedRelistsWhy = forcedRelists(e)
		}
	}
	return s, nil
}

// gateName is the gate the kubelet tests: a fork may call it otherwise.
func (s *NodeSource) gateName() string {
	if s.built() {
		return s.Relist.Gate.Name
	}
	return EventedPLEGGate
}

// built says that the tree builds an evented PLEG under a gate.
func (s *NodeSource) built() bool {
	return s.Relist.Gate != nil && s.Relist.GateOn != nil
}

// forcedRelists says whether the evented PLEG relists the generic PLEG
// itself when a stream call returns an error, as the pleg analyzer reads
// its event loop (releases v1.26 to v1.36: e.Relist() after
// EventedPLEGConnErr.Inc(); v1.37's relist trigger has none), and on what
// evidence. Restoring the generic relist restarts the generic PLEG in
// those releases (Stop, Update, Start), and a generic PLEG relists as it
// starts (wait.Until, then a timer of 0): one forced relist more, which
// nodeverdict counts with the restore.
func forcedRelists(e *EventedPLEG) (bool, string) {
	f := e.RelistOnStreamError
	if f == nil {
		return false, ""
	}
	why := fmt.Sprintf("it runs %s (%s:%d) at %s:%d when the stream call at %s:%d returns an error", f.Relist, f.RelistDecl.File, f.RelistDecl.Line, f.Pos.File, f.Pos.Line, f.Stream.File, f.Stream.Line)
	if e.OnStreamFailure.Action == plegperiods.RestoreGenericRelist && e.OnStreamFailure.Pos != nil {
		why += fmt.Sprintf(", and restores the relist duration (%s:%d) to a restarted generic PLEG, which relists as it starts", e.OnStreamFailure.Pos.File, e.OnStreamFailure.Pos.Line)
	}
	return true, why
}

// NodeCapture is what one node reports, parsed: its configz and metrics
// (both required) and its runtime (nil when unknown).
type NodeCapture struct {
	Config  *nodeverdict.Config
	Metrics *nodeverdict.Metrics
	Runtime *nodeverdict.Runtime
	// KubeletVersion is the kubelet's version as reported
	// (v1.36.1-eks-4f4795d): the gate is read at its release. "" takes
	// the metrics' kubernetes_build_info. A version that names no release
	// (none at all, or v0.0.0-master+$Format:%H$ from a build without
	// version ldflags) reads the gate at the source's own version.
	KubeletVersion string
}

// Decide says which PLEG a node runs, from its captures and this source.
// The report's Inputs are left for the caller to fill. Its only error is
// a capture missing. A kubelet that does not say its release (no
// kubernetes_build_info, or a git_version that is not a release, as a
// build without version ldflags reports) is decided with the gate read at
// the source's own version (a checkout's newest spec), and a note says so.
func (s *NodeSource) Decide(c NodeCapture) (*NodeReport, error) {
	if c.Config == nil || c.Metrics == nil {
		return nil, errors.New("want both the configz and the metrics")
	}
	kubelet, where := c.KubeletVersion, "the kubelet version given"
	if kubelet == "" {
		kubelet, where = c.Metrics.KubeletVersion, nodeverdict.MetricBuildInfo+"'s git_version"
	}
	// The version the gate's default is read at: the kubelet's release;
	// or, when the kubelet does not say it, the source's own version (a
	// release read), or a checkout's newest spec.
	unknown := ""
	release, err := nodeverdict.Release(kubelet)
	if err != nil {
		unknown = nodeverdict.VersionUnknown(where, kubelet)
		if s.Source.KubernetesVersion != "" {
			release = s.Source.KubernetesVersion
			unknown += "; the source read is " + s.Source.Dir
		} else {
			unknown += "; the source read is the checkout " + s.Source.Dir + ", whose newest spec of the gate is read"
		}
	}
	r := s.Relist
	ng := NodeGate{Name: s.gateName(), KubeletVersion: kubelet, Built: s.built()}
	if ng.Built {
		test := r.Gate.Test
		ng.Test = &test
	}
	ng.Value, ng.Explicit = c.Config.Gate(ng.Name)
	gate := s.Gate
	var spec Spec
	found := false
	switch {
	case gate == nil:
	case release != "":
		spec, found = gate.At(release)
	default:
		spec, found = gate.Newest()
	}
	readAt := kubelet
	switch {
	case unknown != "" && release != "":
		readAt = release
	case unknown != "" && found:
		readAt = fmt.Sprintf("the checkout's newest spec (%s)", spec.Version)
	case unknown != "":
		readAt = "the checkout"
	}
	in := nodeverdict.Input{
		Gate: nodeverdict.GateState{
			Name: ng.Name, KubeletVersion: readAt, VersionUnknown: unknown, Explicit: ng.Explicit, Value: ng.Value,
			Built: ng.Built, Spec: render.GateSpec(FeaturesPackage+" of "+s.Source.Dir, gate, ng.Name, spec, found), Test: render.GateTest(r, KubeletPackage),
		},
		Periods: relistPeriods(r),
		Metrics: *c.Metrics,
		Runtime: c.Runtime,
	}
	if e := s.Evented; e != nil {
		in.Periods.Role, in.Periods.RoleWhy, in.Periods.OnStreamFailure = e.Role, e.Why, e.OnStreamFailure
		in.Periods.ForcedRelists, in.Periods.ForcedRelistsWhy = e.ForcedRelists, e.ForcedRelistsWhy
	}
	if found {
		def := spec.Default
		ng.Spec, ng.Default, in.Gate.Default = &spec, &def, &def
	}
	ng.Value = in.Gate.On()
	dec := nodeverdict.Decide(in)
	return &NodeReport{
		SchemaVersion: SchemaVersion,
		Source:        s.Source,
		Verdict:       dec.Verdict,
		Expected:      dec.Expected,
		Configured:    dec.Configured,
		Gate:          ng,
		Reasons:       dec.Reasons,
		Runtime:       c.Runtime,
		Metrics:       *c.Metrics,
		Relist:        dec.Relist,
	}, nil
}

// JudgeRuntime reads, from the runtime's own source at the version it
// reports (fetched with the go command), whether it can stream container
// events, into rt's StreamsEvents, Module, Pos and StreamsWhy. A runtime
// plegvet does not know, or whose source cannot be read, is said in
// StreamsWhy, not an error. The go command runs as FetchOptions{} says
// (DefaultFetchTimeout); Node runs it as its Options.Fetch says.
func JudgeRuntime(ctx context.Context, rt *nodeverdict.Runtime) {
	if err := judgeRuntime(ctx, rt, FetchOptions{}); err != nil {
		rt.StreamsWhy = err.Error()
	}
}

// judgeRuntime is JudgeRuntime, fetching as fetch says. Its error is a
// fetch that failed for want of the proxy (ErrProxyRefused: GOPROXY=off,
// no network, a refusal): a part of the answer not read, which Node
// returns, as plegvet runtime does; every other cause is said in
// StreamsWhy.
func judgeRuntime(ctx context.Context, rt *nodeverdict.Runtime, fetch FetchOptions) error {
	if rt == nil || !rt.Known {
		return nil
	}
	rep, err := RuntimeStreams(ctx, rt.Name, rt.Version, fetch)
	if errors.Is(err, ErrProxyRefused) || ctx.Err() != nil {
		return fmt.Errorf("reading the runtime's source (-skip-runtime-source leaves it out): %w", err)
	}
	if err != nil {
		rt.StreamsWhy = err.Error()
		return nil
	}
	rt.StreamsEvents, rt.StreamsWhy = rep.StreamsEvents, rep.Why
	if rep.Module != "" {
		rt.Module = rep.Module + "@" + rep.ModuleVersion
	}
	if rep.Pos != nil {
		rt.Pos = fmt.Sprintf("%s:%d", rep.Pos.File, rep.Pos.Line)
	}
	return nil
}
