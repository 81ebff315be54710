// Package nodesource decides which PLEG a live node runs, from what the
// node reports and its kubelet's source as read once (NodeSource): the
// gate's specs, the relist periods, and what the evented PLEG does.
package nodesource

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/ladder"
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
	// Health is the kubelet's PLEG health rule as read from the source
	// (the report's health): the thresholds its checks compare with, the
	// kubelet's words for a failed check, and what each check records on
	// every poll. nil when the source read does not give it (the health is
	// decided all the same, its message saying so).
	Health *answer.Health `json:"health,omitempty"`
	// Ladder is the latency ladder's inputs as the source gives them (the
	// report's health.ladder); the index carries them. nil where the
	// release's report could not be read (its CRI API module not served).
	Ladder *ladder.Inputs `json:"ladder,omitempty"`
	// LadderWhy says why the source read gives no ladder; "" when it
	// gives one, or comes from the index.
	LadderWhy string `json:"-"`
	// Hang is what a hung runtime holds, as the same report reads it
	// (health.runtimeHang's summary): the chain from a collector on
	// /metrics to a CRI call, and the calls' deadline with its default;
	// the index carries it. nil as Ladder is, HangWhy saying why.
	Hang    *answer.HangSummary `json:"hang,omitempty"`
	HangWhy string              `json:"-"`
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

// NodeCapture is what one node reports, parsed: its configz (required),
// its metrics (required unless MetricsFailure says why there are none)
// and its runtime (nil when unknown).
type NodeCapture struct {
	Config  *nodeverdict.Config
	Metrics *nodeverdict.Metrics
	Runtime *nodeverdict.Runtime
	// MetricsFailure is the metrics request that got no answer, when
	// Metrics is nil; LastMetrics the last scrape that answered before it
	// (nil: none), which the verdict and the last relist are read from.
	MetricsFailure *nodeverdict.MetricsFailure
	LastMetrics    *nodeverdict.Metrics
	// Node is the Node object (nil: not given): its Ready condition, and
	// the kubelet's version when no scrape says it.
	Node *nodeverdict.NodeStatus
	// KubeletVersion is the kubelet's version as reported
	// (v1.36.1-eks-4f4795d): the gate is read at its release. "" takes
	// the metrics' kubernetes_build_info. A version that names no release
	// (none at all, or v0.0.0-master+$Format:%H$ from a build without
	// version ldflags) reads the gate at the source's own version.
	KubeletVersion string
	// At is when the metrics were scraped (-at); nil takes the
	// metrics' own "# scraped at" line, and without one the health is
	// decided only as far as it can be without a time. AtFrom says where
	// At comes from, for evidence ("" is "-at").
	At     *time.Time
	AtFrom string
	// CaptureNode is the node the captures name (kubectl pleg --save's
	// NODE.configz.json), CaptureNodeFrom how; "" when none does.
	CaptureNode, CaptureNodeFrom string
}

// Decide says which PLEG a node runs, from its captures and this source.
// The report's Inputs are left for the caller to fill. Its errors are a
// capture missing, and a kubelet of another minor than the release read
// (ErrOtherMinor). A kubelet that does not say its release (no
// kubernetes_build_info, or a git_version that is not a release, as a
// build without version ldflags reports) is decided with the gate read at
// the source's own version (a checkout's newest spec), and a note says so.
func (s *NodeSource) Decide(c NodeCapture) (*answer.NodeReport, error) {
	if c.Config == nil || (c.Metrics == nil && c.MetricsFailure == nil) {
		return nil, errors.New("want the configz, and the metrics or why the metrics request failed")
	}
	met, last := c.Metrics, false
	if met == nil {
		// The metrics did not answer: the last scrape that did stands for
		// them, or none.
		met, last = c.LastMetrics, c.LastMetrics != nil
		if met == nil {
			met = &nodeverdict.Metrics{}
		}
	}
	kubelet, where := c.KubeletVersion, "the kubelet version given"
	if kubelet == "" {
		kubelet, where = met.KubeletVersion, nodeverdict.MetricBuildInfo+"'s git_version"
		if last {
			where = "the last scrape's " + where
		}
	}
	if kubelet == "" && c.Node != nil && c.Node.KubeletVersion != "" {
		kubelet, where = c.Node.KubeletVersion, "the Node object's status.nodeInfo.kubeletVersion"
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
	sourceNote, err := s.sameMinor(release, unknown, where, kubelet)
	if err != nil {
		return nil, err
	}
	r := s.Relist
	ng := answer.NodeGate{Name: s.GateName(), KubeletVersion: kubelet, Built: s.built()}
	if ng.Built {
		test := r.Gate.Test
		ng.Test = &test
	}
	ng.Value, ng.Explicit = c.Config.Gate(ng.Name)
	if on, at, why := codeWrites(r.GateSetInCode, ng.Name); why != "" {
		// Which write is in force depends on the order the code runs
		// them in: a construct not followed, as the report says unknown.
		line := "pkg/kubelet: " + why
		if !slices.Contains(s.Source.Load.Unfollowed, line) {
			s.Source.Load.Unfollowed = append(slices.Clip(s.Source.Load.Unfollowed), line)
		}
	} else if on != nil {
		ng.SetInCode, ng.SetInCodeAt = on, at
	}
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
	if found {
		def := spec.Default
		ng.Spec, ng.Default = &spec, &def
	}
	// The words go to the decision only: the answer's gate is its data.
	decided := ng
	decided.DefaultAt, decided.VersionUnknown, decided.SourceVersion = readAt, unknown, sourceNote
	decided.SpecWords, decided.TestWords = render.GateSpec(s.Source.Dir, gate, ng.Name, spec, found), render.GateTest(r)
	in := nodeverdict.Input{
		Gate:    decided,
		Periods: relistPeriods(r),
		Metrics: *met,
		Runtime: c.Runtime,
		Health:  s.HealthRule(),
		At:      c.At,
		AtFrom:  cmp.Or(c.AtFrom, "-at"),

		Failure:         c.MetricsFailure,
		LastScrape:      last,
		ConfigzAnswered: true, // Config is required: the kubelet answered it
		Node:            c.Node,
		RequestTimeout:  c.Config.RequestTimeout(),
		StatusFrequency: c.Config.StatusFrequency(),
		CaptureNode:     c.CaptureNode,
		CaptureNodeFrom: c.CaptureNodeFrom,
	}
	in.Ladder, in.LadderFrom, in.LadderWhy = s.nodeLadder(c)
	in.Hang = s.hangChain()
	line := fmt.Sprintf("the capture's %q line", strings.TrimSpace(nodeverdict.ScrapedAtComment))
	var scrapedAt *time.Time
	if c.Metrics != nil {
		scrapedAt = c.Metrics.ScrapedAt
	} else {
		// The failed request's own time, never the last scrape's.
		scrapedAt, line = c.MetricsFailure.At, "the failed metrics request's time"
	}
	switch at := scrapedAt; {
	case at == nil:
	case in.At == nil:
		in.At, in.AtFrom = at, line
	case !in.At.Equal(*at):
		in.AtFrom += ", over " + line + " (" + at.Format(time.RFC3339Nano) + ")"
	}
	if e := s.Evented; e != nil {
		in.Periods.Role, in.Periods.RoleWhy, in.Periods.OnStreamFailure = e.Role, e.Why, e.OnStreamFailure
		in.Periods.ForcedRelists, in.Periods.ForcedRelistsWhy = e.ForcedRelists, e.ForcedRelistsWhy
	}
	ng.Value = ng.On() // configz's, or the default
	dec := nodeverdict.Decide(in)
	return &answer.NodeReport{
		SchemaVersion:  answer.SchemaVersion,
		Source:         s.Source,
		Verdict:        dec.Verdict,
		Expected:       dec.Expected,
		Configured:     dec.Configured,
		Gate:           ng,
		Reasons:        dec.Reasons,
		Runtime:        c.Runtime,
		Metrics:        *met,
		LastMetrics:    last,
		MetricsFailure: c.MetricsFailure,
		Node:           c.Node,
		Relist:         dec.Relist,
		Health:         dec.Health,
		Reconcile:      s.reconcile(),
	}, nil
}

// ErrOtherMinor is wrapped by Decide's error for a kubelet whose release
// is of another minor than the release read.
var ErrOtherMinor = errors.New("another minor than the source read")

// sameMinor holds a kubelet's release to the release read: the minor
// decides the PLEG's design (v1.37's evented PLEG only asks for relists,
// v1.36's emits events), so a kubelet of another minor is refused rather
// than decided from a design it does not run; naming the source is a
// choice the caller made, and deciding from another release would fetch
// what it did not ask for. Another patch of the same minor is a note
// (returned): the gate's default is still read at the kubelet's own. A
// checkout, or a kubelet that does not say its release, is not compared.
func (s *NodeSource) sameMinor(release, unknown, where, kubelet string) (string, error) {
	source := s.Source.KubernetesVersion
	switch {
	case unknown != "" || source == "" || release == source:
		return "", nil
	case semver.MajorMinor(release) != semver.MajorMinor(source):
		return "", fmt.Errorf("%s is %s, of %w, %s: the minor decides the PLEG's design; want a source of %s, such as the kubelet's own release (read when no source is named)",
			where, kubelet, ErrOtherMinor, s.Source.Dir, semver.MajorMinor(release))
	}
	return source, nil
}

// codeWrites is the value the kubelet's code writes to the gate named
// name, and where; nil when it writes none. why says why it is not known:
// writes that disagree, or one plegvet could not read.
func codeWrites(ws []featuregates.GateWrite, name string) (on *bool, at, why string) {
	var ats []string
	for _, w := range ws {
		switch {
		case w.Unresolved != "":
			return nil, "", "the kubelet's code writes feature gates plegvet could not read: " + w.String()
		case w.Gate != name || w.On == nil:
			continue
		case on != nil && *on != *w.On:
			return nil, "", fmt.Sprintf("the kubelet's code writes %s both on and off: %s; %s", name, ats[0], w.String())
		}
		v := *w.On
		on = &v
		ats = append(ats, w.String())
	}
	return on, strings.Join(ats, "; "), ""
}
