// Package nodesource decides which PLEG a live node runs, from what the
// node reports and its kubelet's source as read once (NodeSource): the
// gate's specs, the relist periods, and what the evented PLEG does.
package nodesource

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/ladder"
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

// nodeLadder is the ladder's inputs for this node: the source's, with
// configz's runtimeRequestTimeout and nodeStatusUpdateFrequency over the
// source's defaults, and a timed-out metrics request's wait as the
// scrape timeout (what the scrape was given); from says so. nil when the
// source read gives none, why saying so.
func (s *NodeSource) nodeLadder(c NodeCapture) (in *ladder.Inputs, from, why string) {
	if s.Ladder == nil {
		if s.Source.From == answer.FromIndex {
			return nil, "", "plegvet's index holds no latency ladder for " + s.Source.Dir
		}
		return nil, "", "the source read (" + s.Source.Dir + ") gives no latency ladder: " + cmp.Or(s.LadderWhy, "it was not read")
	}
	l := *s.Ladder
	var over []string
	if t := c.Config.RequestTimeout(); t > 0 {
		l.Deadline = t
		over = append(over, "runtimeRequestTimeout "+t.String())
	}
	if f := c.Config.StatusFrequency(); f > 0 {
		l.NodeStatusFrequency = f
		over = append(over, "nodeStatusUpdateFrequency "+f.String())
	}
	from = "the ladder read from " + s.Source.Dir
	if len(over) > 0 {
		from += ", with configz's " + strings.Join(over, " and ")
	}
	// The ladder's own map stays the source's: the node's is a copy.
	l.From = maps.Clone(l.From)
	if l.From == nil {
		l.From = map[string]string{}
	}
	for key, v := range map[string]string{"deadline": "runtimeRequestTimeout", "nodeStatusFrequency": "nodeStatusUpdateFrequency"} {
		if !strings.Contains(strings.Join(over, " "), v) {
			continue
		}
		l.From[key] = v + " from configz"
	}
	if f := c.MetricsFailure; f != nil && f.Kind == nodeverdict.FailureTimeout && f.WaitedFor() > 0 {
		l.ScrapeTimeout = f.WaitedFor()
		l.From["scrapeTimeout"] = "the failed metrics request's wait"
		from += ", and the failed request's wait (" + f.Waited + ") as the scrape timeout"
	} else {
		if l.ScrapeTimeout == 0 {
			l.ScrapeTimeout = ladder.DefaultScrapeTimeout
		}
		from += ", and a scrape timeout of " + l.ScrapeTimeout.String() + " (Prometheus' default)"
	}
	return &l, from, ""
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

// HealthRule is the kubelet's PLEG health rule from this source: the
// generic PLEG's thresholds in each mode, and its words.
func (s *NodeSource) HealthRule() nodeverdict.HealthRule {
	r := s.Relist
	var h nodeverdict.HealthRule
	check := s.Health.RelistCheck()
	if check != nil {
		h.Words = words(s.Health, check)
	}
	h.GateOff = threshold(nil, "the source builds no generic PLEG")
	if r.GateOff != nil {
		h.GateOff = threshold(r.GateOff.Threshold, "the generic PLEG's construction passes no threshold plegvet reads")
	}
	h.GateOn, h.Fallback = h.GateOff, threshold(nil, "the source restores no threshold with the fallback period")
	if on := r.GateOn; on != nil {
		h.GateOn = threshold(on.Threshold, "the gate-on construction passes no threshold plegvet reads")
		if on.Fallback != nil {
			h.Fallback = threshold(nil, "the source's health rule does not say which threshold the evented PLEG restores with the fallback period")
			if check != nil && check.Threshold != nil && check.Threshold.Fallback != nil {
				h.Fallback = threshold(check.Threshold.Fallback, "")
			}
		}
	}
	if why := unknownRule(s.Health, check); why != "" {
		// No threshold holds the node to a rule plegvet does not know.
		h.GateOff, h.GateOn, h.Fallback = threshold(nil, why), threshold(nil, why), threshold(nil, why)
	}
	h.ReadyWiring = readyWiring(s.Health)
	switch {
	case s.Health != nil:
		h.LastSeenRefreshed = render.LastSeenRefreshed(s.Health, check)
		if later := s.Health.LastSeenHider(); later != nil && h.LastSeenRefreshed != "" {
			h.LastSeenRefreshedGateOff = later.Gate == nil || !later.Gate.On
		}
	case s.Evented != nil && s.Evented.Role == nodeverdict.RoleEventSource:
		// No health rule was read (an older index entry): the design
		// says what every release read so far does.
		h.LastSeenRefreshed = "this source's evented PLEG is an event source (" + s.Evented.Why + "), and such an evented PLEG registers a health check of its own that sets the gauge to the time of the check in every release read so far (v1.26 to v1.36); which health checks this source registers was not read"
	}
	return h
}

// readyWiring says where the kubelet words its failed checks and hands
// them to the node's Ready condition, with positions; "" when the source
// read does not show the hand-over.
func readyWiring(h *answer.Health) string {
	if h == nil || h.ReadyCondition == nil {
		return ""
	}
	w := h.ReadyCondition
	s := ""
	if e := h.RuntimeErrors; e != nil {
		s = fmt.Sprintf("the kubelet words a failed check %q (%s:%d), and ", e.Format, e.Pos.File, e.Pos.Line)
	}
	if d := h.RuntimeDown; d != nil && !strings.Contains(d.Format, "%") {
		s += fmt.Sprintf("says %q (%s:%d) when its runtime-up check fails; ", d.Format, d.Pos.File, d.Pos.Line)
	}
	return s + fmt.Sprintf("hands its runtime errors to the node's Ready condition at %s:%d (%s)", w.Pos.File, w.Pos.Line, w.Func)
}

// unknownRule says why the source's PLEG health rule is unknown: it
// registers no check, or none of relist-elapsed, and one plegvet does not
// recognise exactly; "" when the relist check is known, or no health rule
// was read.
func unknownRule(h *answer.Health, check *answer.HealthRule) string {
	switch {
	case h == nil || check != nil:
		return ""
	case h.Unknown != "":
		return "the source's PLEG health rule is unknown: " + h.Unknown
	}
	for _, c := range h.Checks {
		if c.Rule == plegperiods.HealthUnknown && c.Why != "" {
			return fmt.Sprintf("the source's PLEG health check %q is unknown: %s", c.Name, c.Why)
		}
	}
	return "the source registers no PLEG health check comparing the time since the last relist with a threshold"
}

// reconcile is the source's relist as level-triggered reconciliation;
// nil when not read.
func (s *NodeSource) reconcile() *answer.Reconcile {
	if s.Health == nil {
		return nil
	}
	return s.Health.Reconcile
}

// words are the kubelet's words for check failing, as the source has them.
func words(h *answer.Health, check *answer.HealthRule) nodeverdict.HealthWords {
	w := nodeverdict.HealthWords{CheckName: check.Name}
	for _, m := range check.Messages {
		switch m.When {
		case plegperiods.WhenThresholdExceeded:
			w.StaleFormat = m.Format
		case plegperiods.WhenNeverRelisted:
			w.NeverFormat = m.Format
		}
	}
	if h.RuntimeErrors != nil {
		w.ErrorsFormat = h.RuntimeErrors.Format
	}
	if d := h.RuntimeDown; d != nil && !strings.Contains(d.Format, "%") {
		w.RuntimeDown = d.Format
		if d.Threshold != nil {
			w.RuntimeDownAfter = render.Value(d.Threshold, render.Cited)
		}
	}
	return w
}

// threshold turns a threshold from the source into the decision's; why
// says why it is unknown when v is nil.
func threshold(v *answer.Value, why string) nodeverdict.Threshold {
	switch {
	case v == nil:
		return nodeverdict.Threshold{Why: why}
	case v.Unresolved != "":
		return nodeverdict.Threshold{Why: render.Value(v, render.Cited)}
	}
	d, ok := v.Duration()
	return nodeverdict.Threshold{Duration: d, Known: ok, Why: "not a duration: " + v.Value,
		Cited: nodeverdict.Cited{Value: v.Value, Const: v.Const, Decl: v.Decl}, Evidence: render.Value(v, render.Cited)}
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
		return nodeverdict.Period{Evidence: render.Value(v, render.Cited), Unresolved: v.Unresolved}
	}
	d, ok := v.Duration()
	return nodeverdict.Period{Duration: d, Known: ok, Evidence: render.Value(v, render.Cited)}
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
