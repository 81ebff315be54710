// Reading the parsed metric families into Metrics: counters, histograms
// and gauges summed over their series, with what a capture must hold.

package nodeverdict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	dto "github.com/prometheus/client_model/go"
)

// fromFamilies reads the verdict's metrics from the parsed families; all
// is how many families the input had, for an error.
func fromFamilies(name string, fams map[string]*dto.MetricFamily, all int) (*Metrics, error) {
	r := metricsReader{name: name, fams: fams}
	m := &Metrics{}
	m.KubeletVersion = r.buildVersion()
	m.StreamSuccesses = r.counter(MetricStreamSuccesses)
	m.StreamErrors = r.counter(MetricStreamErrors)
	m.EventLatency = r.histogram(MetricEventLatency)
	m.DiscardEvents = r.counter(MetricDiscardEvents)
	m.RelistInterval = r.histogram(MetricRelistInterval)
	m.RelistDuration = r.histogram(MetricRelistDuration)
	m.LastSeen = r.lastSeen()
	m.FeatureEnabled = r.features()
	m.RuntimeOperations = r.runtimeOperations()
	m.ProcessStart = r.processStart()
	r.checkTimes(m)
	r.checkErrors(m)
	if r.err != nil {
		return nil, r.err
	}
	if m.DiscardEvents == nil && m.RelistInterval == nil && m.RelistDuration == nil && m.LastSeen == nil {
		return nil, captureError(name, "no kubelet_pleg_* metric among %d metric families; want %s (not /metrics/cadvisor or /metrics/resource)", all, metricsWant)
	}
	return m, nil
}

// metricsReader reads families and keeps the first error.
type metricsReader struct {
	name string
	fams map[string]*dto.MetricFamily
	err  error
}

func (r *metricsReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = captureError(r.name, format, args...)
	}
}

// family finds a metric by name; a counter exposed in the OpenMetrics
// style, with _total appended, is found too.
func (r *metricsReader) family(name string) (*dto.MetricFamily, string) {
	if f := r.fams[name]; f != nil {
		return f, name
	}
	if f := r.fams[name+"_total"]; f != nil {
		return f, name + "_total"
	}
	return nil, name
}

// buildVersion returns the git_version label of kubernetes_build_info.
func (r *metricsReader) buildVersion() string {
	f := r.fams[MetricBuildInfo]
	if f == nil {
		return ""
	}
	seen := map[string]bool{}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "git_version" && l.GetValue() != "" {
				seen[l.GetValue()] = true
			}
		}
	}
	if len(seen) > 1 {
		var versions []string
		for v := range seen {
			versions = append(versions, fmt.Sprintf("%q", v))
		}
		sort.Strings(versions)
		r.fail("%s has git_version %s; want one kubelet's metrics", MetricBuildInfo, strings.Join(versions, " and "))
		return ""
	}
	for v := range seen {
		return v
	}
	return ""
}

// counter sums a counter's series. Gauges and untyped samples are read
// too: a capture edited by hand may lose its TYPE lines.
func (r *metricsReader) counter(name string) *float64 {
	f, found := r.family(name)
	if f == nil {
		return nil
	}
	return r.counterOf(found, f)
}

// counterOf sums the series of f, a counter found by that name.
func (r *metricsReader) counterOf(found string, f *dto.MetricFamily) *float64 {
	var sum float64
	for _, m := range f.GetMetric() {
		v, ok := sample(f, m, true)
		if !ok {
			r.fail("%s is a %s; want a counter", found, typeName(f.GetType()))
			return nil
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			r.fail("%s is %v; want a count, a number ≥ 0", found, v)
			return nil
		}
		sum += v
	}
	return &sum
}

// histogram sums a histogram's series, those of one whose TYPE line is
// gone too.
func (r *metricsReader) histogram(name string) *Histogram {
	f := r.histogramFamily(name)
	if f == nil {
		return nil
	}
	return r.histogramOf(name, f)
}

// histogramOf sums the series of f, the histogram of that name.
func (r *metricsReader) histogramOf(name string, f *dto.MetricFamily) *Histogram {
	if f.GetType() != dto.MetricType_HISTOGRAM {
		r.fail("%s is a %s; want a histogram (with _bucket, _sum and _count samples)", name, typeName(f.GetType()))
		return nil
	}
	h := &Histogram{}
	sameBounds := true
	for i, m := range f.GetMetric() {
		hm := m.GetHistogram()
		buckets, ok := r.buckets(name, hm)
		switch {
		case !ok:
			return nil
		case i == 0:
			h.Buckets = buckets
		case !slices.EqualFunc(h.Buckets, buckets, func(a, b Bucket) bool { return a.UpperBound == b.UpperBound }):
			sameBounds = false // the sums would mean nothing
		default:
			for j, b := range buckets {
				h.Buckets[j].Cumulative += b.Cumulative
			}
		}
		sum := hm.GetSampleSum()
		count, ok := r.wholeCount(name+"_count", hm.SampleCount, hm.SampleCountFloat)
		switch {
		case !ok:
			return nil
		case math.IsNaN(sum) || math.IsInf(sum, 0) || sum < 0:
			r.fail("%s_sum is %v; want seconds, a number ≥ 0", name, sum)
			return nil
		case h.Count+count > maxCount:
			r.fail("%s_count sums to %d over its series; want a count below 2^53", name, h.Count+count)
			return nil
		case count == 0 && sum != 0:
			r.fail("%s_sum is %v with _count 0; want a count of the observations summed", name, sum)
			return nil
		}
		h.Sum += sum
		h.Count += count
	}
	if h.Count > 0 {
		mean := h.Sum / float64(h.Count)
		h.Mean = &mean
	}
	if !sameBounds {
		h.Buckets = nil
	}
	return h
}

// maxCount bounds a histogram's count: the text format carries it as a
// float, exact only up to 2^53.
const maxCount = 1 << 53

// buckets are one series' finite buckets; it fails on buckets no
// histogram has: counts that fall as the bound rises, or exceed the
// series' count.
func (r *metricsReader) buckets(name string, hm *dto.Histogram) ([]Bucket, bool) {
	var out []Bucket
	count, _ := r.wholeCount(name+"_count", hm.SampleCount, hm.SampleCountFloat)
	prev, prevBound := uint64(0), math.Inf(-1)
	for _, b := range hm.GetBucket() {
		bound := b.GetUpperBound()
		n, ok := r.wholeCount(fmt.Sprintf("%s_bucket le=%v", name, bound), b.CumulativeCount, b.CumulativeCountFloat)
		switch {
		case !ok:
			return nil, false
		case math.IsInf(bound, 1) && n < prev:
			r.fail("%s_bucket le=+Inf counts %d, below le=%v's %d; want cumulative buckets, which never decrease", name, n, prevBound, prev)
			return nil, false
		case math.IsInf(bound, 1) && n != count:
			r.fail("%s_bucket le=+Inf counts %d but _count is %d; want the same: every observation is in the +Inf bucket", name, n, count)
			return nil, false
		case math.IsInf(bound, 1):
			continue
		case bound <= prevBound || math.IsNaN(bound):
			r.fail("%s_bucket le=%v follows le=%v; want bounds that rise", name, bound, prevBound)
			return nil, false
		case n < prev || n > count:
			r.fail("%s_bucket le=%v counts %d; want a cumulative count between %d and _count %d", name, bound, n, prev, count)
			return nil, false
		}
		prev, prevBound = n, bound
		out = append(out, Bucket{UpperBound: bound, Cumulative: n})
	}
	return out, true
}

// wholeCount is a histogram's count or a bucket's, as the parser keeps it:
// a whole number, or the float it read when that was not one (3599.9, or
// beyond 2^64), in which case the float is named as read.
func (r *metricsReader) wholeCount(what string, whole *uint64, read *float64) (uint64, bool) {
	if read == nil {
		if whole != nil && *whole > maxCount {
			r.fail("%s is %d; want a count below 2^53", what, *whole)
			return 0, false
		}
		if whole == nil {
			return 0, true
		}
		return *whole, true
	}
	v := *read
	if math.IsNaN(v) || v < 0 || v != math.Trunc(v) || v > maxCount {
		r.fail("%s is %v; want a whole count of observations, below 2^53", what, v)
		return 0, false
	}
	return uint64(v), true
}

// sample is a gauge's or an untyped sample's value, and a counter's when
// counters are wanted; ok is false for any other type. Untyped samples are
// read too: a capture edited by hand may lose its TYPE lines.
func sample(f *dto.MetricFamily, m *dto.Metric, counters bool) (float64, bool) {
	switch f.GetType() {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), counters
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue(), true
	case dto.MetricType_UNTYPED:
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}

// features reads kubernetes_feature_enabled: one 0-or-1 sample per gate.
func (r *metricsReader) features() map[string]FeatureState {
	f := r.fams[MetricFeatureEnabled]
	if f == nil {
		return nil
	}
	out := map[string]FeatureState{}
	for _, m := range f.GetMetric() {
		v, ok := sample(f, m, false)
		if !ok {
			r.fail("%s is a %s; want a gauge", MetricFeatureEnabled, typeName(f.GetType()))
			return nil
		}
		var st FeatureState
		name := ""
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "name":
				name = l.GetValue()
			case "stage":
				st.Stage = l.GetValue()
			}
		}
		if name == "" {
			r.fail("%s has a sample without a name label", MetricFeatureEnabled)
			return nil
		}
		if v != 0 && v != 1 {
			r.fail("%s{name=%q} is %v; want 0 or 1", MetricFeatureEnabled, name, v)
			return nil
		}
		if prev, dup := out[name]; dup && prev.Enabled != (v == 1) {
			r.fail("%s{name=%q} is both 0 and 1; want one kubelet's metrics", MetricFeatureEnabled, name)
			return nil
		}
		st.Enabled = v == 1
		out[name] = st
	}
	return out
}

// lastSeen reads the PLEG's last-seen gauge, a Unix time in seconds.
func (r *metricsReader) lastSeen() *float64 {
	f := r.fams[MetricLastSeen]
	if f == nil {
		return nil
	}
	var last *float64
	for _, m := range f.GetMetric() {
		v, ok := sample(f, m, false)
		if !ok {
			r.fail("%s is a %s; want a gauge", MetricLastSeen, typeName(f.GetType()))
			return nil
		}
		// 0 is never; else a kubelet's time, from 2014 to the year 9999.
		if v != 0 && !kubeletTime(v) {
			r.fail("%s is %v%s; want 0 (never) or a Unix time in seconds a kubelet can have seen, from %s to the year 9999", MetricLastSeen, v, timeText(v), unixText(minKubeletTime))
			return nil
		}
		if last == nil || v > *last {
			last = &v
		}
	}
	return last
}

// processStart reads the kubelet's process start, a Unix time in seconds:
// one sample, a kubelet's time.
func (r *metricsReader) processStart() *float64 {
	f := r.fams[MetricProcessStart]
	if f == nil {
		return nil
	}
	ms := f.GetMetric()
	if len(ms) != 1 {
		r.fail("%s has %d series; want one, the kubelet's process", MetricProcessStart, len(ms))
		return nil
	}
	v, ok := sample(f, ms[0], false)
	switch {
	case !ok:
		r.fail("%s is a %s; want a gauge", MetricProcessStart, typeName(f.GetType()))
		return nil
	case !kubeletTime(v):
		r.fail("%s is %v%s; want a Unix time in seconds a kubelet can have started at, from %s to the year 9999", MetricProcessStart, v, timeText(v), unixText(minKubeletTime))
		return nil
	}
	return &v
}

// kubeletTime says whether v, Unix seconds, is a time a kubelet can have:
// from minKubeletTime to maxKubeletTime.
func kubeletTime(v float64) bool {
	return v >= minKubeletTime && v <= maxKubeletTime
}

// unixText prints Unix seconds as an RFC 3339 time, to the second.
func unixText(v float64) string {
	return time.Unix(int64(v), 0).UTC().Format(time.RFC3339)
}

// timeText is " (TIME)" for Unix seconds within the years 1 to 9999, ""
// for any other value.
func timeText(v float64) string {
	if math.IsNaN(v) || v < -62135596800 || v > maxKubeletTime {
		return ""
	}
	return " (" + unixText(v) + ")"
}

// checkTimes fails a relist seen before the kubelet's process started:
// the gauge is set by a relist of this process, in whole seconds (so up
// to a second before the start it truncates), and 0 until the first.
func (r *metricsReader) checkTimes(m *Metrics) {
	if r.err != nil || m.LastSeen == nil || m.ProcessStart == nil || *m.LastSeen == 0 {
		return
	}
	if *m.LastSeen <= *m.ProcessStart-gaugeResolution.Seconds() {
		r.fail("%s is %s (%s), before the kubelet's process started (%s %s, %s); want a relist of the kubelet that was scraped (two kubelets' metrics put together?)",
			MetricLastSeen, number(*m.LastSeen), unixText(*m.LastSeen), MetricProcessStart, number(*m.ProcessStart), unixText(*m.ProcessStart))
	}
}

// errorsAheadOfCalls is how many more errors than calls an operation type
// may read: the kubelet counts a failed CRI call's error before the call
// itself (recordError, then the deferred recordOperation, in
// pkg/kubelet/kuberuntime/instrumented_services.go), so a scrape may
// catch the calls failing at that instant counted in errors only; more
// than a couple is not one kubelet's scrape.
const errorsAheadOfCalls = 2

// checkErrors fails an operation type with more errors than calls, beyond
// those a scrape can catch in flight.
func (r *metricsReader) checkErrors(m *Metrics) {
	if r.err != nil {
		return
	}
	for _, op := range m.Operations() {
		o := m.RuntimeOperations[op]
		if o.Calls != nil && o.Errors != nil && *o.Errors > *o.Calls+errorsAheadOfCalls {
			r.fail("%s{operation_type=%q} is %s but %s{operation_type=%q} is %s; want no more failed calls than calls (each failed call is counted in both; up to %d calls in flight may be counted in errors only)",
				MetricRuntimeOperationsErrors, op, number(*o.Errors), MetricRuntimeOperations, op, number(*o.Calls), errorsAheadOfCalls)
			return
		}
	}
}

// printable escapes what the parser quotes raw from the input (a newline
// after a backslash, say), so that an error stays one line.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func typeName(t dto.MetricType) string {
	return strings.ToLower(strings.ReplaceAll(t.String(), "_", " "))
}
