package plegvet

import (
	"context"
	"errors"
	"fmt"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/nodeverdict"
)

// NodeSource is a kubelet's source read once for the node verdict: the
// gate's specs, the relist periods, and what the evented PLEG does. It
// holds what was read, not the loaded tree, and decides for any number of
// nodes; its methods are safe for concurrent use.
type NodeSource struct {
	// Source is the tree read, as NodeReport.Source says it.
	Source Source
	gates  *GatesReport
	relist Relist
	// role, roleWhy and onStreamFailure are the evented PLEG's design
	// ("" when the tree builds none, or its role could not be read).
	role, roleWhy, onStreamFailure string
}

// LoadNodeSource reads the source of the kubelet of a release (v1.36.1,
// as nodeverdict.Release gives it): the tree opts names, or, when opts
// names none (Dir and Kubernetes empty), the release itself, fetched with
// the go command.
func LoadNodeSource(ctx context.Context, opts Options, release string) (*NodeSource, error) {
	if opts.Dir == "" && opts.Kubernetes == "" {
		if release == "" {
			return nil, errors.New("no source: want a release, or Options naming a tree")
		}
		opts.Kubernetes = release
	}
	// One load of the tree answers both: the gate's spec and the periods.
	t, source, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, source, isFeaturePackage, FeaturesPackage, PlegPackage, KubeletPackage)
	if err != nil {
		return nil, err
	}
	gates, err := a.gates()
	if err != nil {
		return nil, err
	}
	periods, err := a.periods()
	if err != nil {
		return nil, err
	}
	s := &NodeSource{Source: periods.Source, gates: gates, relist: periods.Relist}
	// What the gate being on means is the release's design, read from its
	// code: an event source, a relist trigger, or unknown.
	if out, err := a.outcome(pleg.Analyzer, KubeletPackage); err == nil {
		if e := a.pos.eventedPLEG(out.Result.(*pleg.Result).Evented); e != nil {
			s.role, s.roleWhy, s.onStreamFailure = e.Role, e.Why, e.OnStreamFailure.Action
		}
	}
	return s, nil
}

// NodeCapture is what one node reports, parsed: its configz and metrics
// (both required) and its runtime (nil when unknown).
type NodeCapture struct {
	Config  *nodeverdict.Config
	Metrics *nodeverdict.Metrics
	Runtime *nodeverdict.Runtime
	// KubeletVersion is the kubelet's version as reported
	// (v1.36.1-eks-4f4795d): the gate is read at its release. "" takes
	// the metrics' kubernetes_build_info.
	KubeletVersion string
}

// Decide says which PLEG a node runs, from its captures and this source.
// The report's Inputs are left for the caller to fill. Its only errors
// are captures missing, and a kubelet version that is absent or not one.
func (s *NodeSource) Decide(c NodeCapture) (*NodeReport, error) {
	if c.Config == nil || c.Metrics == nil {
		return nil, errors.New("want both the configz and the metrics")
	}
	kubelet := c.KubeletVersion
	if kubelet == "" {
		kubelet = c.Metrics.KubeletVersion
	}
	if kubelet == "" {
		return nil, fmt.Errorf("no kubelet version given, and no %s sample with a git_version label, so %w", nodeverdict.MetricBuildInfo, ErrKubeletVersionUnknown)
	}
	release, err := nodeverdict.Release(kubelet)
	if err != nil {
		return nil, fmt.Errorf("kubelet version %v: %w", err, ErrKubeletVersionUnknown)
	}
	r := s.relist
	ng := NodeGate{Name: EventedPLEGGate, KubeletVersion: kubelet, Built: r.Gate != nil && r.GateOn != nil}
	if ng.Built {
		ng.Name = r.Gate.Name // a fork may call it otherwise
		test := r.Gate.Test
		ng.Test = &test
	}
	ng.Value, ng.Explicit = c.Config.Gate(ng.Name)
	gate := s.gates.Gate(ng.Name)
	in := nodeverdict.Input{
		Gate: nodeverdict.GateState{
			Name: ng.Name, KubeletVersion: kubelet, Explicit: ng.Explicit, Value: ng.Value,
			Built: ng.Built, Spec: specText(s.gates, gate, ng.Name, release), Test: testText(r),
		},
		Periods: relistPeriods(r),
		Metrics: *c.Metrics,
		Runtime: c.Runtime,
	}
	if s.role != "" {
		in.Periods.Role, in.Periods.RoleWhy, in.Periods.OnStreamFailure = s.role, s.roleWhy, s.onStreamFailure
	}
	if gate != nil {
		if spec, ok := gate.At(release); ok {
			def := spec.Default
			ng.Spec, ng.Default, in.Gate.Default = &spec, &def, &def
		}
	}
	ng.Value = in.Gate.On()
	dec := nodeverdict.Decide(in)
	return &NodeReport{
		SchemaVersion: SchemaVersion,
		Source:        s.Source,
		Verdict:       dec.Verdict,
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
// StreamsWhy, not an error.
func JudgeRuntime(ctx context.Context, rt *nodeverdict.Runtime) {
	if rt == nil || !rt.Known {
		return
	}
	rep, err := RuntimeStreams(ctx, rt.Name, rt.Version)
	if err != nil {
		rt.StreamsWhy = err.Error()
		return
	}
	rt.StreamsEvents, rt.StreamsWhy = rep.StreamsEvents, rep.Why
	if rep.Module != "" {
		rt.Module = rep.Module + "@" + rep.ModuleVersion
	}
	if rep.Pos != nil {
		rt.Pos = fmt.Sprintf("%s:%d", rep.Pos.File, rep.Pos.Line)
	}
}
