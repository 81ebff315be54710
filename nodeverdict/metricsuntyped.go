// Histograms whose TYPE line is gone: a capture passed through
// grep -v '^#' keeps every sample, but the parser then reads a
// histogram's _bucket, _sum and _count samples as three untyped families.

package nodeverdict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// histogramSuffixes are the names a histogram's samples take, in the
// order the kubelet writes them.
var histogramSuffixes = []string{"_bucket", "_sum", "_count"}

// histogramFamily is the histogram family of that name: as parsed, or,
// without a TYPE line, put together from its untyped _bucket, _sum and
// _count samples, read as Prometheus queries them: a known histogram's
// names and the le label carry the whole histogram, which the TYPE line
// only announces, so refusing such a file would refuse a full answer. nil
// when the capture has none of them; one without _sum or _count samples,
// or a series without its own, fails, naming what is missing.
func (r *metricsReader) histogramFamily(name string) *dto.MetricFamily {
	if f := r.fams[name]; f != nil {
		return f
	}
	parts := map[string]*dto.MetricFamily{}
	var have, missing []string
	for _, suffix := range histogramSuffixes {
		f := r.fams[name+suffix]
		if f == nil {
			missing = append(missing, suffix)
			continue
		}
		if f.GetType() != dto.MetricType_UNTYPED {
			r.fail("%s%s is a %s; want the %s sample of the histogram %s", name, suffix, typeName(f.GetType()), suffix, name)
			return nil
		}
		parts[suffix] = f
		have = append(have, suffix)
	}
	switch {
	case len(have) == 0:
		return nil
	case parts["_sum"] == nil || parts["_count"] == nil:
		r.fail("%s has %s samples but no %s, and no TYPE line; want a histogram's _bucket, _sum and _count samples, as the kubelet writes them", name, strings.Join(have, " and "), strings.Join(missing, " or "))
		return nil
	}
	h := untypedHistogram{r: r, name: name, series: map[string]*dto.Metric{}}
	for _, suffix := range histogramSuffixes {
		for _, m := range parts[suffix].GetMetric() {
			if !h.add(suffix, m) {
				return nil
			}
		}
	}
	for _, m := range h.order {
		if m.Histogram.SampleCountFloat == nil || m.Histogram.SampleSum == nil {
			r.fail("%s%s has no _sum or no _count sample; want each series' _sum and _count", name, labelText(m.GetLabel()))
			return nil
		}
	}
	return &dto.MetricFamily{Name: &name, Type: dto.MetricType_HISTOGRAM.Enum(), Metric: h.order}
}

// untypedHistogram puts a histogram's series together from its untyped
// samples.
type untypedHistogram struct {
	r    *metricsReader
	name string
	// series are by their labels other than le, order in the input's.
	series map[string]*dto.Metric
	order  []*dto.Metric
}

// add adds one untyped sample of the given suffix to its series, as the
// parser does for a typed histogram (whose series may lack buckets).
func (h *untypedHistogram) add(suffix string, m *dto.Metric) bool {
	labels := m.GetLabel()
	if suffix == "_bucket" {
		labels = slices.DeleteFunc(slices.Clone(labels), func(l *dto.LabelPair) bool { return l.GetName() == "le" })
	}
	key := labelText(labels)
	s := h.series[key]
	if s == nil {
		s = &dto.Metric{Label: labels, Histogram: &dto.Histogram{}}
		h.series[key] = s
		h.order = append(h.order, s)
	}
	v := m.GetUntyped().GetValue()
	hm := s.Histogram
	switch suffix {
	case "_bucket":
		le := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "le" {
				le = l.GetValue()
			}
		}
		bound, err := strconv.ParseFloat(le, 64)
		if err != nil {
			h.r.fail("%s_bucket%s has le=%q; want a bucket's upper bound, a number", h.name, key, le)
			return false
		}
		hm.Bucket = append(hm.Bucket, &dto.Bucket{UpperBound: &bound, CumulativeCountFloat: &v})
	case "_sum":
		if hm.SampleSum != nil {
			h.r.fail("%s_sum%s a second time; want one per series", h.name, key)
			return false
		}
		hm.SampleSum = &v
	case "_count":
		if hm.SampleCountFloat != nil {
			h.r.fail("%s_count%s a second time; want one per series", h.name, key)
			return false
		}
		hm.SampleCountFloat = &v
	}
	return true
}

// labelText prints labels as the text format does, {a="x",b="y"}, sorted
// by name; "" for none.
func labelText(labels []*dto.LabelPair) string {
	if len(labels) == 0 {
		return ""
	}
	pairs := make([]string, len(labels))
	for i, l := range labels {
		pairs[i] = fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
	}
	slices.Sort(pairs)
	return "{" + strings.Join(pairs, ",") + "}"
}
