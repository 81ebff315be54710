// Package nodesource decides which PLEG a live node runs, from what the
// node reports and its kubelet's source as read once (NodeSource): the
// gate's specs, the relist periods, and what the evented PLEG does.
package nodesource

import (
	"errors"
	"fmt"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/nodeverdict"
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
	Source answer.Source `json:"source"`
	// Gate is the gate the kubelet tests to build the evented PLEG (the
	// relist answer's gate, EventedPLEG when it tests none), with its spec
	// history; nil when the tree declares no such gate.
	Gate *answer.Gate `json:"gate"`
	// Relist is the relist answer, as Inspect's.
	Relist answer.Relist `json:"relist"`
	// Evented is the evented PLEG's design; nil when the tree builds none
	// or its role could not be read.
	Evented *answer.NodeEvented `json:"evented,omitempty"`
}

// GateName is the gate the kubelet tests: a fork may call it otherwise.
func (s *NodeSource) GateName() string {
	if s.built() {
		return s.Relist.Gate.Name
	}
	return answer.EventedPLEGGate
}

// built says that the tree builds an evented PLEG under a gate.
func (s *NodeSource) built() bool {
	return s.Relist.Gate != nil && s.Relist.GateOn != nil
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
func (s *NodeSource) Decide(c NodeCapture) (*answer.NodeReport, error) {
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
	ng := answer.NodeGate{Name: s.GateName(), KubeletVersion: kubelet, Built: s.built()}
	if ng.Built {
		test := r.Gate.Test
		ng.Test = &test
	}
	ng.Value, ng.Explicit = c.Config.Gate(ng.Name)
	gate := s.Gate
	var spec answer.Spec
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
			Built: ng.Built, Spec: render.GateSpec(s.Source.Dir, gate, ng.Name, spec, found), Test: render.GateTest(r),
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
	return &answer.NodeReport{
		SchemaVersion: answer.SchemaVersion,
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

// relistPeriods turns the source's relist answer into the decision's facts.
func relistPeriods(r answer.Relist) nodeverdict.Periods {
	var p nodeverdict.Periods
	if r.GateOff != nil {
		p.GateOff = period(r.GateOff.Period)
	}
	if r.GateOn == nil {
		return p
	}
	p.GateOn, p.Fallback = period(r.GateOn.Period), period(r.GateOn.Fallback)
	if rc := r.GateOn.MaxStreamRetries; rc != nil && rc.Value != nil {
		p.MaxStreamRetries, p.RetriesKnown = *rc.Value, true
		p.MaxStreamRetriesCause = render.Evidence(fmt.Sprint(*rc.Value), rc.Const, rc.Decl)
	}
	return p
}

func period(v *answer.Value) nodeverdict.Period {
	switch {
	case v == nil:
		return nodeverdict.Period{Evidence: "none"}
	case v.Unresolved != "":
		return nodeverdict.Period{Evidence: render.Value(v, render.Cited)}
	}
	d, ok := v.Duration()
	return nodeverdict.Period{Duration: d, Known: ok, Evidence: render.Value(v, render.Cited)}
}
