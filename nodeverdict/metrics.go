package nodeverdict

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	dto "github.com/prometheus/client_model/go"
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
)

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

// maxCount bounds a histogram's count: the text format carries it as a
// float, exact only up to 2^53.
const maxCount = 1 << 53

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
	return fromFamilies(name, fams, f.families(fams))
}

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

// histogram sums a histogram's series.
func (r *metricsReader) histogram(name string) *Histogram {
	f := r.fams[name]
	if f == nil {
		return nil
	}
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
		sum, count := hm.GetSampleSum(), hm.GetSampleCount()
		if math.IsNaN(sum) || math.IsInf(sum, 0) || sum < 0 {
			r.fail("%s_sum is %v; want seconds, a number ≥ 0", name, sum)
			return nil
		}
		if count > maxCount || h.Count+count > maxCount {
			r.fail("%s_count is %d; want a count below 2^53", name, count)
			return nil
		}
		if count == 0 && sum != 0 {
			// Also what the parser leaves of a count it cannot convert.
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

// buckets are one series' finite buckets; it fails on buckets no
// histogram has: counts that fall as the bound rises, or exceed the
// series' count.
func (r *metricsReader) buckets(name string, hm *dto.Histogram) ([]Bucket, bool) {
	var out []Bucket
	prev, prevBound := uint64(0), math.Inf(-1)
	for _, b := range hm.GetBucket() {
		bound, n := b.GetUpperBound(), b.GetCumulativeCount()
		switch {
		case math.IsInf(bound, 1):
			continue
		case bound <= prevBound || math.IsNaN(bound):
			r.fail("%s_bucket le=%v follows le=%v; want bounds that rise", name, bound, prevBound)
			return nil, false
		case n < prev || n > hm.GetSampleCount():
			r.fail("%s_bucket le=%v counts %d; want a cumulative count between %d and _count %d", name, bound, n, prev, hm.GetSampleCount())
			return nil, false
		}
		prev, prevBound = n, bound
		out = append(out, Bucket{UpperBound: bound, Cumulative: n})
	}
	return out, true
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
		// Up to the year 9999: anything else is not a time.
		if math.IsNaN(v) || v < 0 || v > 253402300799 {
			r.fail("%s is %v; want a Unix time in seconds", MetricLastSeen, v)
			return nil
		}
		if last == nil || v > *last {
			last = &v
		}
	}
	return last
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

// Families returns the metric families ReadMetricsFrom keeps: those the
// verdict reads. The slice is new on each call.
func Families() []string {
	return []string{
		MetricBuildInfo, MetricStreamSuccesses, MetricStreamErrors, MetricEventLatency, MetricDiscardEvents,
		MetricRelistInterval, MetricRelistDuration, MetricLastSeen, MetricFeatureEnabled,
	}
}

// keptNames are the names of the lines a filter keeps: each family's
// name, and the names its samples or an OpenMetrics-style counter take.
var keptNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range Families() {
		for _, suffix := range []string{"", "_total", "_bucket", "_sum", "_count"} {
			m[f+suffix] = true
		}
	}
	return m
}()

// metricsFilter is a reader of the text format that passes on the lines
// of the kept families, an empty line for each other line (so that the
// parser's line numbers stay right), and whatever it cannot tell the
// family of. It holds one line at a time (a prefix of a line longer than
// its buffer), and remembers the families it dropped, with their types,
// to count them as the parser would.
type metricsFilter struct {
	in  *bufio.Reader
	out []byte
	// inLine says the next read continues a line longer than the
	// buffer, and keeping whether that line is passed on.
	inLine, keeping bool
	// dropped are the families dropped, by name, with their types, and
	// sampled those with a sample (the parser drops a family without).
	dropped map[string]dto.MetricType
	sampled map[string]bool
	// done is io.EOF, or the input's error.
	done error
}

func newMetricsFilter(r io.Reader) *metricsFilter {
	return &metricsFilter{in: bufio.NewReaderSize(r, 64<<10), dropped: map[string]dto.MetricType{}, sampled: map[string]bool{}}
}

func (f *metricsFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.done != nil {
			return 0, f.done
		}
		f.next()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// next reads the next line, or the next piece of a long one, into out.
func (f *metricsFilter) next() {
	chunk, err := f.in.ReadSlice('\n')
	if err != nil && err != bufio.ErrBufferFull {
		f.done = err
	}
	// out aliases the reader's buffer until the next ReadSlice, which
	// runs only once out is drained.
	ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
	switch {
	case f.inLine && f.keeping:
		f.out = chunk
	case f.inLine:
		if ended {
			f.out = newline
		}
	case len(chunk) == 0:
	case !ended && err != bufio.ErrBufferFull:
		// A last line without its newline: the parser says how it is
		// cut, as it would of the whole input.
		f.out = chunk
	case f.keep(chunk):
		f.out = chunk
	case ended:
		f.out = newline
	}
	if !f.inLine {
		f.keeping = len(f.out) > 0
	}
	f.inLine = !ended && err == bufio.ErrBufferFull
}

var newline = []byte("\n")

// metricName matches a metric name at the start of a line.
var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)

// keep says whether to pass a line (or a long line's first piece) on: a
// line of a kept family, or one whose family it cannot tell. A dropped
// line's family is remembered.
func (f *metricsFilter) keep(line []byte) bool {
	s := bytes.TrimLeft(line, " \t")
	switch {
	case len(s) == 0 || s[0] == '\n':
		return true
	case s[0] == '#':
		fields := bytes.Fields(s[1:])
		if len(fields) == 0 || (string(fields[0]) != "HELP" && string(fields[0]) != "TYPE") {
			return false // a comment
		}
		if len(fields) < 2 || len(metricName.Find(fields[1])) < len(fields[1]) {
			return true
		}
		name := string(fields[1])
		if keptNames[name] || bytes.IndexByte(s, '\\') >= 0 {
			return true // the parser reads escapes in HELP
		}
		if string(fields[0]) == "TYPE" {
			t, ok := dto.MetricType_value[strings.ToUpper(string(fields[len(fields)-1]))]
			if len(fields) != 3 || !ok {
				return true // the parser says what is wrong with the type
			}
			f.dropped[name] = dto.MetricType(t)
		} else if _, seen := f.dropped[name]; !seen {
			f.dropped[name] = dto.MetricType_UNTYPED
		}
		return false
	}
	i := len(metricName.Find(s))
	if i == 0 || i == len(s) || (s[i] != '{' && s[i] != ' ' && s[i] != '\t') {
		return true
	}
	name := string(s[:i])
	if keptNames[name] || !wellFormed(s[i:]) {
		return true
	}
	f.dropSample(name)
	return false
}

// wellFormed says whether what follows a sample's name is labels, a value
// and maybe a timestamp, and a newline: a line the parser would take. A
// line it doubts is passed on, for the parser to say what is wrong.
func wellFormed(s []byte) bool {
	if len(s) > 0 && s[0] == '{' {
		quoted := false
		end := -1
		for i := 1; i < len(s) && end < 0; i++ {
			switch c := s[i]; {
			case quoted && c == '\\':
				i++
			case c == '"':
				quoted = !quoted
			case c == '\n':
				return false
			case !quoted && c == '}':
				end = i
			}
		}
		if end < 0 {
			return false
		}
		s = s[end+1:]
	}
	fields := bytes.Fields(s)
	if len(fields) == 0 || len(fields) > 2 || !bytes.HasSuffix(s, newline) {
		return false
	}
	if _, err := strconv.ParseFloat(string(fields[0]), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return false
	}
	if bytes.ContainsRune(fields[0], '_') {
		return false // ParseFloat takes underscores; the parser does not
	}
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(string(fields[1]), 10, 64); err != nil {
			return false
		}
	}
	return true
}

// dropSample remembers a dropped sample's family as the parser names it:
// a _sum, _count or _bucket of a summary or histogram seen before belongs
// to it.
func (f *metricsFilter) dropSample(name string) {
	if _, ok := f.dropped[name]; ok {
		f.sampled[name] = true
		return
	}
	for _, suffix := range []string{"_sum", "_count", "_bucket"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		t, seen := f.dropped[base]
		if seen && (t == dto.MetricType_HISTOGRAM || t == dto.MetricType_SUMMARY && suffix != "_bucket") {
			f.sampled[base] = true
			return
		}
	}
	f.dropped[name] = dto.MetricType_UNTYPED
	f.sampled[name] = true
}

// families is how many families the input had: those parsed and those
// dropped.
func (f *metricsFilter) families(parsed map[string]*dto.MetricFamily) int {
	n := len(parsed)
	for name := range f.sampled {
		if parsed[name] == nil {
			n++
		}
	}
	return n
}
