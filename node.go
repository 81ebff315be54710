package plegvet

import (
	"context"
	"errors"
	"fmt"

	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/nodeverdict"
)

// EventedPLEGGate is the feature gate behind the evented PLEG (KEP-3386),
// unless the tree's kubelet tests a gate of another name.
const EventedPLEGGate = "EventedPLEG"

// NodeOptions say which captures of a live node to read, and which source
// to read the gate and the periods from.
type NodeOptions struct {
	// Options name the source. With neither Dir nor Kubernetes set, the
	// release the kubelet reports (KubeletVersion, or the metrics'
	// kubernetes_build_info) is fetched: the node's own source.
	Options
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
}

// Node reads a node's configz, metrics and (optionally) crictl version
// output, reads the gate's spec at the kubelet's version and the relist
// periods from source, and decides which PLEG the node runs. An input
// that cannot be read is an error naming the file and what was expected.
func Node(ctx context.Context, opts NodeOptions) (*NodeReport, error) {
	if opts.Configz == "" || opts.Metrics == "" {
		return nil, errors.New("want both a configz and a metrics file")
	}
	cfg, err := readCapture(opts.Configz, nodeverdict.ReadConfigz)
	if err != nil {
		return nil, err
	}
	met, err := readCapture(opts.Metrics, nodeverdict.ReadMetrics)
	if err != nil {
		return nil, err
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
	release, err := kubeletRelease(opts, met)
	if err != nil {
		return nil, err
	}
	src, err := LoadNodeSource(ctx, opts.Options, release)
	if err != nil {
		return nil, err
	}
	// The metrics' version is read as the metrics': Decide names it so.
	rep, err := src.Decide(NodeCapture{Config: cfg, Metrics: met, Runtime: rt, KubeletVersion: opts.KubeletVersion})
	if err != nil {
		return nil, err
	}
	rep.Inputs = NodeInputs{Configz: opts.Configz, Metrics: opts.Metrics, Crictl: opts.Crictl}
	return rep, nil
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
func kubeletRelease(opts NodeOptions, met *nodeverdict.Metrics) (string, error) {
	if opts.KubeletVersion != "" {
		release, err := nodeverdict.Release(opts.KubeletVersion)
		if err != nil {
			return "", &OptionError{Option: "KubeletVersion", Err: err}
		}
		return release, nil
	}
	release, err := nodeverdict.Release(met.KubeletVersion)
	switch {
	case err == nil:
		return release, nil
	case opts.Kubernetes != "" || opts.Dir != "":
		return "", nil
	case met.KubeletVersion == "":
		return "", fmt.Errorf("%s: no %s sample with a git_version label, so %w", opts.Metrics, nodeverdict.MetricBuildInfo, ErrKubeletVersionUnknown)
	case met.KubeletVersion == nodeverdict.UnstampedVersion:
		return "", fmt.Errorf("%s: %s git_version %q is component-base's default: the kubelet was built without version ldflags, so %w", opts.Metrics, nodeverdict.MetricBuildInfo, met.KubeletVersion, ErrKubeletVersionUnknown)
	}
	return "", fmt.Errorf("%s: %s git_version %w: %w", opts.Metrics, nodeverdict.MetricBuildInfo, err, ErrKubeletVersionUnknown)
}

// relistPeriods turns the source's relist answer into the decision's facts.
func relistPeriods(r Relist) nodeverdict.Periods {
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

func period(v *Value) nodeverdict.Period {
	switch {
	case v == nil:
		return nodeverdict.Period{Evidence: "none"}
	case v.Unresolved != "":
		return nodeverdict.Period{Evidence: render.Value(v, render.Cited)}
	}
	d, ok := v.Duration()
	return nodeverdict.Period{Duration: d, Known: ok, Evidence: render.Value(v, render.Cited)}
}
