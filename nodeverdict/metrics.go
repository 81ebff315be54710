// The kubelet's metrics the verdict reads: their names, what is kept of
// them, and the entry points that read a capture.

package nodeverdict

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The metrics the verdict reads. The kubelet's names are
// pkg/kubelet/metrics' KubeletSubsystem ("kubelet") joined to its keys; the
// PLEG ones exist since v1.25 or earlier, the evented PLEG's connection
// metrics since v1.27. kubernetes_build_info comes from component-base.
const (
	MetricBuildInfo       = "kubernetes_build_info"
	MetricStreamSuccesses = "kubelet_evented_pleg_connection_success_count"
	MetricStreamErrors    = "kubelet_evented_pleg_connection_error_count"
	MetricEventLatency    = "kubelet_evented_pleg_connection_latency_seconds"
	MetricDiscardEvents   = "kubelet_pleg_discard_events"
	MetricRelistInterval  = "kubelet_pleg_relist_interval_seconds"
	MetricRelistDuration  = "kubelet_pleg_relist_duration_seconds"
	MetricLastSeen        = "kubelet_pleg_last_seen_seconds"
	// MetricFeatureEnabled is component-base's gauge of each feature gate's
	// effective value (1 on, 0 off, the default applied), labelled name
	// and stage; the kubelet exports it since v1.26.
	MetricFeatureEnabled = "kubernetes_feature_enabled"
	// The kubelet's instrumented CRI calls, by operation_type: how many,
	// how many failed, and how long each took (pkg/kubelet/metrics'
	// RuntimeOperations, RuntimeOperationsErrors and
	// RuntimeOperationsDuration, since v1.25 or earlier).
	MetricRuntimeOperations         = "kubelet_runtime_operations_total"
	MetricRuntimeOperationsErrors   = "kubelet_runtime_operations_errors_total"
	MetricRuntimeOperationsDuration = "kubelet_runtime_operations_duration_seconds"
	// MetricProcessStart is the kubelet's process start, a Unix time in
	// seconds (client_golang's process collector, which the kubelet's
	// legacy registry exports): no relist it saw is older.
	MetricProcessStart = "process_start_time_seconds"
)

// The times a kubelet's gauge may hold, as Unix seconds: from June 1,
// 2014 (Kubernetes' first commit is of June 6, 2014: no kubelet ran
// before) to the end of the year 9999 (RFC 3339's last). A time outside
// is not a kubelet's, and a capture holding one is refused rather than
// judged ("unhealthy 498920h" from a gauge of 1).
const (
	minKubeletTime = 1401580800
	maxKubeletTime = 253402300799
)

// ScrapedAtComment starts the comment line that says when a metrics
// capture was taken: "# scraped at 2026-12-03T06:45:01Z" (RFC 3339).
// kubectl pleg --save writes it first; the parser skips comments, so the
// file stays Prometheus text.
const ScrapedAtComment = "# scraped at "

// metricsWant is what a metrics file should be, for error messages.
const metricsWant = "the kubelet's Prometheus text metrics, the output of kubectl get --raw /api/v1/nodes/NODE/proxy/metrics"

// Metrics is what the kubelet's /metrics says about its PLEG. A nil field
// is a metric the file does not have.
type Metrics struct {
	// KubeletVersion is kubernetes_build_info's git_version label.
	KubeletVersion string `json:"kubeletVersion"`
	// StreamSuccesses counts the stream clients the evented PLEG obtained
	// (cri-client's GetContainerEvents counts one once the gRPC call
	// returns a client, before the first receive: a runtime that answers
	// Unimplemented counts one too), not streams that delivered events;
	// StreamErrors counts the stream attempts that ended in an error.
	StreamSuccesses *float64 `json:"streamSuccesses"`
	StreamErrors    *float64 `json:"streamErrors"`
	// EventLatency observes each container event received over a stream.
	EventLatency *Histogram `json:"eventLatency"`
	// DiscardEvents counts PLEG events dropped because the channel was full.
	DiscardEvents *float64 `json:"discardEvents"`
	// RelistInterval observes the time between two relists, RelistDuration
	// how long one takes.
	RelistInterval *Histogram `json:"relistInterval"`
	RelistDuration *Histogram `json:"relistDuration"`
	// LastSeen is the Unix time, in seconds, the PLEG was last seen active.
	LastSeen *float64 `json:"lastSeen"`
	// FeatureEnabled is kubernetes_feature_enabled by gate name: the
	// kubelet's own word on each gate; null when the family is absent.
	FeatureEnabled map[string]FeatureState `json:"featureEnabled"`
	// ScrapedAt is when the capture was taken, from its ScrapedAtComment
	// line; null without one.
	ScrapedAt *time.Time `json:"scrapedAt,omitempty"`
	// RuntimeOperations are the kubelet's CRI calls by operation_type
	// (list_podsandbox, list_containers, ...); nil when the capture has
	// none of their families.
	RuntimeOperations map[string]RuntimeOperation `json:"runtimeOperations,omitempty"`
	// ProcessStart is the kubelet's process start (Unix seconds), from
	// process_start_time_seconds; null without it.
	ProcessStart *float64 `json:"processStart,omitempty"`
}

// FeatureState is one gate as kubernetes_feature_enabled reports it.
type FeatureState struct {
	Enabled bool   `json:"enabled"`
	Stage   string `json:"stage"`
}

// Histogram is a histogram's count and sum, in seconds.
type Histogram struct {
	Count uint64  `json:"count"`
	Sum   float64 `json:"sum"`
	// Mean is Sum/Count; null without observations.
	Mean *float64 `json:"mean"`
	// Buckets are the finite buckets, cumulative and by upper bound, summed
	// over the series; nil when the series' bounds differ. They tell a
	// typical interval from a mean that a few long ones pulled up.
	Buckets []Bucket `json:"-"`
}

// Bucket is one histogram bucket: how many observations were at most
// UpperBound seconds.
type Bucket struct {
	UpperBound float64
	Cumulative uint64
}

// Quantile is the bucket holding the observation of the given rank
// (1-based, in increasing order): it lies in (Above, AtMost]. AtMost is
// +Inf beyond the last finite bucket. ok is false without buckets or for a
// rank outside 1..Count.
func (h *Histogram) Quantile(rank uint64) (above, atMost float64, ok bool) {
	if h == nil || h.Buckets == nil || rank == 0 || rank > h.Count {
		return 0, 0, false
	}
	for _, b := range h.Buckets {
		if b.Cumulative >= rank {
			return above, b.UpperBound, true
		}
		above = b.UpperBound
	}
	return above, math.Inf(1), true
}

// ReadMetrics reads the kubelet's /metrics in the Prometheus text format.
// Name is the file's name, for errors. It is ReadMetricsFrom over data.
func ReadMetrics(name string, data []byte) (*Metrics, error) {
	return ReadMetricsFrom(name, bytes.NewReader(data))
}

// ReadMetricsFrom reads the kubelet's /metrics in the Prometheus text
// format as a stream: it passes to the parser only the lines of the
// families the verdict reads (Families), so that a body of thousands of
// families is never held whole. Every other line reaches the parser as an
// empty line, so that an error's line number is the input's; a line it
// cannot tell the family of is passed on for the parser to judge. So a
// fault that lies wholly within a family the verdict does not read (a
// second TYPE line for it, a sample the parser would refuse) is not
// reported: those lines are not read. Name is the input's name, for
// errors.
func ReadMetricsFrom(name string, r io.Reader) (*Metrics, error) {
	f := newMetricsFilter(r)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(f)
	if f.done != nil && f.done != io.EOF {
		// The input failed (a connection cut, say), not its format.
		return nil, &CaptureError{File: name, Msg: "cannot read: " + printable(f.done.Error()), Err: f.done}
	}
	if err != nil {
		msg, line := printable(err.Error()), 0
		var pe expfmt.ParseError
		if errors.As(err, &pe) {
			msg, line = printable(pe.Msg), pe.Line
			if msg == "unexpected end of input stream" {
				// Every line ends in a newline, the last one too.
				msg += " (cut short?)"
			}
		}
		return nil, &CaptureError{File: name, Line: line, Msg: fmt.Sprintf("not Prometheus text format: %s; want %s", msg, metricsWant), Err: err}
	}
	if err := f.dupErr(name); err != nil {
		return nil, err
	}
	m, err := fromFamilies(name, fams, f.families(fams))
	if err != nil {
		return nil, err
	}
	if err := f.scrapedErr(name); err != nil {
		return nil, err
	}
	m.ScrapedAt = f.scrapedAt
	return m, nil
}

// Families returns the metric families ReadMetricsFrom keeps: those the
// verdict reads. The slice is new on each call.
func Families() []string {
	return []string{
		MetricBuildInfo, MetricStreamSuccesses, MetricStreamErrors, MetricEventLatency, MetricDiscardEvents,
		MetricRelistInterval, MetricRelistDuration, MetricLastSeen, MetricFeatureEnabled,
		MetricRuntimeOperations, MetricRuntimeOperationsErrors, MetricRuntimeOperationsDuration,
		MetricProcessStart,
	}
}
