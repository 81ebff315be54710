package assemble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
	"github.com/plegvet/plegvet/internal/assemble/nodesource"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/release"
	"github.com/plegvet/plegvet/internal/load/runtimeread"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/plegperiods"
	"golang.org/x/mod/semver"
	"maps"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"time"
)

// NodeOptions say which captures of a live node to read, and which source
// to read the gate and the periods from.
type NodeOptions struct {
	// Options name the source. With neither Dir nor Kubernetes set, the
	// release the kubelet reports (KubeletVersion, or the metrics'
	// kubernetes_build_info) is fetched: the node's own source.
	Options
	NodeFiles
}

// NodeFiles are the files a live node's captures are in, and what stands
// in for what they do not say. The library's NodeOptions embed them as
// they are, beside its own Options.
type NodeFiles struct {
	// Configz, Metrics and Crictl are files holding the output of
	// kubectl get --raw /api/v1/nodes/NODE/proxy/configz, of
	// .../proxy/metrics, and of crictl version run on the node (its
	// "Name:  value" lines, or the same fields as JSON or YAML). Crictl
	// is optional.
	Configz, Metrics, Crictl string
	// SkipRuntimeSource leaves the runtime's own source unread: by
	// default, with Crictl, the runtime's module is fetched at the version
	// it reports to say whether it can stream container events.
	SkipRuntimeSource bool
	// KubeletVersion (v1.36.1) overrides the version in the metrics.
	// Without it, a kubelet that does not say its release (no
	// kubernetes_build_info, or a git_version that is not a release, as a
	// build without version ldflags reports) is an error wrapping
	// ErrKubeletVersionUnknown, unless Options name the source: the gate
	// is then read at the source's version, and a note says so.
	KubeletVersion string
	// At is when the metrics were scraped; nil takes the metrics file's
	// "# scraped at" line (never the file's mtime).
	At *time.Time
	// MetricsError, instead of Metrics, is the error the kubelet's
	// metrics request got (made at At, after MetricsWaited): a hung
	// runtime makes /metrics wait until the client gives up, while
	// configz answers. MetricsErrorFile is the same as kubectl pleg
	// --save keeps it (nodeverdict.ReadMetricsFailure). LastMetrics is
	// the last scrape that answered (its "# scraped at" line included),
	// Node the Node object (kubectl get node NAME -o json), whose Ready
	// condition says whether the kubelet declared its runtime down or its
	// PLEG unhealthy; each optional.
	MetricsError, MetricsErrorFile string
	MetricsWaited                  time.Duration
	LastMetrics, Node              string
}

// Node reads a node's configz, metrics and (optionally) crictl version
// output, reads the gate's spec at the kubelet's version and the relist
// periods from source, and decides which PLEG the node runs. An input
// that cannot be read is an error naming the file and what was expected.
func Node(ctx context.Context, opts NodeOptions) (*answer.NodeReport, error) {
	failed := opts.MetricsError != "" || opts.MetricsErrorFile != ""
	switch {
	case opts.Configz == "":
		return nil, errors.New("want a configz file")
	case opts.Metrics == "" && !failed:
		return nil, errors.New("want a metrics file, or the error the metrics request got")
	case opts.Metrics != "" && failed:
		return nil, errors.New("want a metrics file or the error the metrics request got, not both")
	case opts.MetricsError != "" && opts.MetricsErrorFile != "":
		return nil, errors.New("want the metrics request's error as text or as a file, not both")
	}
	cfg, err := readCapture(opts.Configz, nodeverdict.ReadConfigz)
	if err != nil {
		return nil, err
	}
	var met, last, versioned *nodeverdict.Metrics
	var failure *nodeverdict.MetricsFailure
	switch {
	case opts.Metrics != "":
		if met, err = readCapture(opts.Metrics, nodeverdict.ReadMetrics); err != nil {
			return nil, err
		}
		versioned = met
	case opts.MetricsErrorFile != "":
		if failure, err = readCapture(opts.MetricsErrorFile, nodeverdict.ReadMetricsFailure); err != nil {
			return nil, err
		}
	default:
		failure = nodeverdict.NewMetricsFailure(opts.MetricsError, opts.MetricsWaited, opts.At)
	}
	if opts.LastMetrics != "" {
		if met != nil {
			return nil, errors.New("want the last scrape that answered only when the metrics request failed")
		}
		if last, err = readCapture(opts.LastMetrics, nodeverdict.ReadMetrics); err != nil {
			return nil, err
		}
		versioned = last
	}
	var node *nodeverdict.NodeStatus
	if opts.Node != "" {
		if node, err = readCapture(opts.Node, nodeverdict.ReadNode); err != nil {
			return nil, err
		}
	}
	var rt *nodeverdict.Runtime
	if opts.Crictl != "" {
		if rt, err = readCapture(opts.Crictl, nodeverdict.ReadCrictl); err != nil {
			return nil, err
		}
	}
	if !opts.SkipRuntimeSource {
		// Whether the runtime can stream at all, from its own source at
		// the version it reports; a runtime plegvet does not know, or a
		// version the proxy does not have, is said in StreamsWhy; a fetch
		// that failed for want of the proxy is an error.
		if err := judgeRuntime(ctx, rt, opts.Fetch); err != nil {
			return nil, err
		}
	}
	release, err := kubeletRelease(opts, versioned, node)
	if err != nil {
		return nil, err
	}
	src, err := LoadNodeSource(ctx, opts.Options, release)
	if err != nil {
		return nil, err
	}
	// The metrics' version is read as the metrics': Decide names it so.
	capNode, capFrom := captureNode(opts)
	rep, err := src.Decide(nodesource.NodeCapture{Config: cfg, Metrics: met, Runtime: rt, KubeletVersion: opts.KubeletVersion, At: opts.At,
		MetricsFailure: failure, LastMetrics: last, Node: node, CaptureNode: capNode, CaptureNodeFrom: capFrom})
	if errors.Is(err, nodesource.ErrOtherMinor) && opts.KubeletVersion == "" {
		err = fmt.Errorf("%s: %w", versionFrom(opts, versioned), err) // the version is that file's
	}
	if err != nil {
		return nil, err
	}
	rep.Inputs = answer.NodeInputs{Configz: opts.Configz, Metrics: opts.Metrics, Crictl: opts.Crictl, LastMetrics: opts.LastMetrics, Node: opts.Node}
	switch {
	case opts.MetricsErrorFile != "":
		rep.Inputs.MetricsError = opts.MetricsErrorFile
	case opts.MetricsError != "":
		rep.Inputs.MetricsError = "-metrics-error"
	}
	return rep, nil
}

// saveNames are the names kubectl pleg --save gives a node's captures:
// NODE.configz.json and the rest.
var saveNames = regexp.MustCompile(`^(.+)\.(configz\.json|metrics\.txt|metrics-error\.txt)$`)

// captureNode is the node the captures name, as kubectl pleg --save
// names their files, and which file says it; "" when none does.
func captureNode(opts NodeOptions) (node, from string) {
	for _, f := range []string{opts.Configz, opts.Metrics, opts.MetricsErrorFile} {
		if m := saveNames.FindStringSubmatch(filepath.Base(f)); m != nil {
			return m[1], "kubectl pleg --save's file name " + filepath.Base(f)
		}
	}
	return "", ""
}

// readCapture reads a file and hands it to a nodeverdict reader.
func readCapture[T any](file string, read func(name string, data []byte) (*T, error)) (*T, error) {
	data, err := inputfile.Read(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(file), err)
	}
	return read(file, data)
}

// kubeletRelease returns the release whose source the kubelet was built
// from: "" when the kubelet does not say it and opts name the source,
// which then serves.
func kubeletRelease(opts NodeOptions, met *nodeverdict.Metrics, node *nodeverdict.NodeStatus) (string, error) {
	if opts.KubeletVersion != "" {
		release, err := nodeverdict.Release(opts.KubeletVersion)
		if err != nil {
			return "", &OptionError{Option: "KubeletVersion", Err: err}
		}
		return release, nil
	}
	if met == nil || met.KubeletVersion == "" {
		// No scrape says it: the Node object's nodeInfo does.
		if node != nil && node.KubeletVersion != "" {
			release, err := nodeverdict.Release(node.KubeletVersion)
			switch {
			case err == nil:
				return release, nil
			case opts.Kubernetes != "" || opts.Dir != "":
				return "", nil
			}
			return "", fmt.Errorf("%s: status.nodeInfo.kubeletVersion %w: %w", opts.Node, err, ErrKubeletVersionUnknown)
		}
		if met == nil {
			if opts.Kubernetes != "" || opts.Dir != "" {
				return "", nil
			}
			return "", fmt.Errorf("the metrics request failed and no scrape (-last-metrics) or Node object (-node) says the kubelet's version: %w", ErrKubeletVersionUnknown)
		}
	}
	from := versionFrom(opts, met)
	release, err := nodeverdict.Release(met.KubeletVersion)
	switch {
	case err == nil:
		return release, nil
	case opts.Kubernetes != "" || opts.Dir != "":
		return "", nil
	case met.KubeletVersion == "":
		return "", fmt.Errorf("%s: no %s sample with a git_version label, so %w", from, nodeverdict.MetricBuildInfo, ErrKubeletVersionUnknown)
	case met.KubeletVersion == nodeverdict.UnstampedVersion:
		return "", fmt.Errorf("%s: %s git_version %q is component-base's default: the kubelet was built without version ldflags, so %w", from, nodeverdict.MetricBuildInfo, met.KubeletVersion, ErrKubeletVersionUnknown)
	}
	return "", fmt.Errorf("%s: %s git_version %w: %w", from, nodeverdict.MetricBuildInfo, err, ErrKubeletVersionUnknown)
}

// versionFrom is the file the kubelet's version was read from: the
// metrics, or the last scrape that answered.
func versionFrom(opts NodeOptions, met *nodeverdict.Metrics) string {
	if opts.Metrics == "" && opts.LastMetrics != "" {
		return opts.LastMetrics
	}
	if opts.Metrics == "" && opts.Node != "" && (met == nil || met.KubeletVersion == "") {
		return opts.Node
	}
	return opts.Metrics
}

// LoadNodeSource reads the source of the kubelet of a release (v1.36.1,
// as nodeverdict.Release gives it): the tree opts names, or, when opts
// names none (Dir and Kubernetes empty), the release: its answer in
// plegvet's index (NodeIndexReleases) unless opts.SkipIndex, or else its
// source fetched with the go command. A release the index lacks, with no
// go command on PATH, is an error wrapping ErrNoGoCommand.
func LoadNodeSource(ctx context.Context, opts Options, release string) (*nodesource.NodeSource, error) {
	if opts.Dir == "" && opts.Kubernetes == "" {
		if release == "" {
			return nil, errors.New("no source: want a release, or Options naming a tree")
		}
		if !opts.SkipIndex && opts.Proto == "" {
			s, err := indexedNodeSource(opts.index, release)
			if s != nil || err != nil {
				return s, err
			}
		}
		if _, err := exec.LookPath("go"); err != nil {
			return nil, notIndexed(opts.index, release)
		}
		opts.Kubernetes = release
	}
	// One load of the tree answers both: the gate's spec and the periods.
	t, source, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, source, suite.FromSource, nil, answer.FeaturesPackage, answer.PlegPackage, answer.KubeletPackage)
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
	s := &nodesource.NodeSource{Source: periods.Source, Relist: periods.Relist}
	// A construct the analyzers could not follow (a hand-over, a gate
	// test, a gate write) leaves the node's answer partial: node exits 1.
	noteUnfollowed(&s.Source, periods.Diagnostics)
	s.Source.From = answer.FromSource
	s.Ladder, s.Hang, s.LadderWhy = sourceLadder(ctx, opts)
	s.HangWhy = s.LadderWhy
	s.Gate = gates.Gate(s.GateName())
	// What the gate being on means is the release's design, read from its
	// code: an event source, a relist trigger, or unknown.
	if out, err := a.outcome(pleg.Analyzer, answer.KubeletPackage); err == nil {
		if e := out.Result.(*pleg.Result).Evented; e != nil && e.Role != "" {
			s.Evented = &answer.NodeEvented{Role: string(e.Role), Why: e.Why, OnStreamFailure: e.OnStreamFailure.Action}
			s.Evented.ForcedRelists, s.Evented.ForcedRelistsWhy = forcedRelists(e)
		}
		s.Health = out.Result.(*pleg.Result).Health
		// A check plegvet does not recognise exactly (the pleg analyzer's
		// health-unknown) is a construct not followed: node exits 1.
		for _, c := range s.Health.Checks {
			if c.Rule == plegperiods.HealthUnknown && c.Fails {
				line := fmt.Sprintf("%s:%d:%d: the PLEG health check %q is not a rule plegvet recognises exactly: %s", c.Registered.File, c.Registered.Line, c.Registered.Column, c.Name, c.Why)
				if !slices.Contains(s.Source.Load.Unfollowed, line) {
					s.Source.Load.Unfollowed = append(slices.Clip(s.Source.Load.Unfollowed), line)
				}
			}
		}
	}
	return s, nil
}

// sourceLadder is the latency ladder's inputs and the hang's summary the
// report answer for the same source carries (health.ladder, Prometheus'
// default scrape timeout; health.runtimeHang), or why there are none. The
// report reads what a hung runtime does from more packages than the
// node's load; its answer is cached per release, as the node source is
// not.
func sourceLadder(ctx context.Context, opts Options) (*ladder.Inputs, *answer.HangSummary, string) {
	rep, err := Inspect(ctx, opts)
	switch {
	case err != nil:
		return nil, nil, "the report on the same source failed: " + err.Error()
	case rep.Health == nil || rep.Health.Ladder == nil || rep.Health.RuntimeHang == nil:
		return nil, nil, "the report on the same source carries no latency ladder (health.ladder): it read nothing of what a hung runtime does"
	}
	in := rep.Health.Ladder.Inputs
	hang := rep.Health.RuntimeHang.Summary()
	return &in, &hang, ""
}

// forcedRelists says whether the evented PLEG relists the generic PLEG
// itself when a stream call returns an error, as the pleg analyzer reads
// its event loop (releases v1.26 to v1.36: e.Relist() after
// EventedPLEGConnErr.Inc(); v1.37's relist trigger has none), and on what
// evidence. Restoring the generic relist restarts the generic PLEG in
// those releases (Stop, Update, Start), and a generic PLEG relists as it
// starts (wait.Until, then a timer of 0): one forced relist more, which
// nodeverdict counts with the restore.
func forcedRelists(e *answer.EventedPLEG) (bool, string) {
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

// JudgeRuntime reads, from the runtime's own source at the version it
// reports (fetched with the go command), whether it can stream container
// events, into rt's StreamsEvents, Module, Pos and StreamsWhy. A runtime
// plegvet does not know, or whose source cannot be read, is said in
// StreamsWhy, not an error. The go command runs as FetchOptions{} says
// (DefaultFetchTimeout); Node runs it as its Options.Fetch says.
func JudgeRuntime(ctx context.Context, rt *nodeverdict.Runtime) {
	if err := judgeRuntime(ctx, rt, release.Fetcher{}); err != nil {
		rt.StreamsWhy = err.Error()
	}
}

// judgeRuntime is JudgeRuntime, fetching as fetch says. Its error is a
// fetch that failed for want of the proxy (ErrProxyRefused: GOPROXY=off,
// no network, a refusal): a part of the answer not read, which Node
// returns, as plegvet runtime does; every other cause is said in
// StreamsWhy.
func judgeRuntime(ctx context.Context, rt *nodeverdict.Runtime, fetch release.Fetcher) error {
	if rt == nil || !rt.Known {
		return nil
	}
	rep, err := runtimeread.Streams(ctx, rt.Name, rt.Version, fetch.Timeout)
	if errors.Is(err, release.ErrProxyRefused) || ctx.Err() != nil {
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

// IndexReleases lists the releases the index holds an answer for, in
// order.
func IndexReleases(nodeIndex func() (map[string]nodeindex.Entry, error)) []string {
	index, err := nodeIndex()
	if err != nil {
		return nil
	}
	releases := slices.SortedFunc(maps.Keys(index), semver.Compare)
	return slices.DeleteFunc(releases, func(r string) bool { return index[r].Unserved != "" })
}

// indexedNodeSource is the index's answer for a release; nil when it holds
// none.
func indexedNodeSource(nodeIndex func() (map[string]nodeindex.Entry, error), release string) (*nodesource.NodeSource, error) {
	index, err := nodeIndex()
	if err != nil {
		return nil, err
	}
	e, ok := index[release]
	if !ok || e.Unserved != "" {
		return nil, nil
	}
	var s nodesource.NodeSource
	if err := json.Unmarshal(e.NodeSource, &s); err != nil {
		return nil, fmt.Errorf("nodeindex.jsonl: %s: %w", release, err)
	}
	s.Source.From = answer.FromIndex
	return &s, nil
}

// notIndexed says why a release that the index does not hold cannot be
// read without the go command.
func notIndexed(nodeIndex func() (map[string]nodeindex.Entry, error), release string) error {
	why := "releases none"
	if rs := IndexReleases(nodeIndex); len(rs) > 0 {
		why = "releases " + rs[0] + " to " + rs[len(rs)-1]
	}
	if index, err := nodeIndex(); err == nil && index[release].Unserved != "" {
		why = "the module proxy refused its source when the index was made: " + index[release].Unserved
	}
	return fmt.Errorf("%s is not in plegvet's index (%s), and its source cannot be fetched: %w", release, why, ErrNoGoCommand)
}
