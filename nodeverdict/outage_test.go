package nodeverdict

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// intervalText is a kubelet's relist-interval histogram in the text
// format, with the default buckets the kubelet gives it: each interval is
// counted in the first bucket that holds it.
func intervalText(intervals ...float64) string {
	bounds := []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
	var b strings.Builder
	b.WriteString("# TYPE kubelet_pleg_relist_interval_seconds histogram\n")
	sum := 0.0
	for _, v := range intervals {
		sum += v
	}
	for _, le := range bounds {
		n := 0
		for _, v := range intervals {
			if v <= le {
				n++
			}
		}
		fmt.Fprintf(&b, "kubelet_pleg_relist_interval_seconds_bucket{le=\"%g\"} %d\n", le, n)
	}
	fmt.Fprintf(&b, "kubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} %d\n", len(intervals))
	fmt.Fprintf(&b, "kubelet_pleg_relist_interval_seconds_sum %g\nkubelet_pleg_relist_interval_seconds_count %d\n", sum, len(intervals))
	return b.String()
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// A runtime that stops answering for a while holds up the relist that
// was due: one interval as long as the outage. On a kubelet that has run
// for seconds, that one interval doubles the mean, while nearly every
// interval is still the period the source predicts. As measured on real
// kubelets (docs/runtime-restart.md): v1.37.2, containerd stopped for 5s,
// 24 intervals with a mean of 2.171s, nearly every one about 1.006s.
func TestRuntimeOutage(t *testing.T) {
	outage := append(repeat(1.006, 22), 6.9, 30)
	for _, tc := range []struct {
		name      string
		periods   Periods
		errors    float64
		intervals []float64
		want      string
		claim     string
	}{
		// v1.37 stops watching, the generic PLEG keeps its 1s.
		{"v1.37 after a runtime outage", release37, 5, outage, FellBack, "the median relist interval matches"},
		// v1.37 with the stream still open: the generic PLEG's 1s all along.
		{"v1.37 streaming, one long interval", release37, 0, append(repeat(1.006, 10), 25), GenericWithEventHints, "the median relist interval matches"},
		// v1.36 fell back to the 1s: 5 forced relists of a few ms.
		{"v1.36 after a runtime outage", release36, 5, append(append(repeat(0.002, 5), repeat(1.006, 17)...), 6.9, 30), FellBack, "the median relist interval matches"},
		// A kubelet that relists at another period than its source's:
		// no interval at the predicted one, so neither the median nor
		// failed relists explain it.
		{"v1.37 relisting every 5m", release37, 0, repeat(300, 6), Inconsistent, "far from"},
		{"v1.37 relisting every 4s", release37, 0, repeat(4, 10), Inconsistent, "far from"},
		// Relists failing for 8s on a young kubelet: each attempt
		// observes one period more than the last (as measured on a real
		// v1.37.2, docs/runtime-restart.md): a note, not a disagreement.
		{"v1.37 relists failing", release37, 5, []float64{1.007, 1.003, 1.01, 2, 3, 4, 5, 6, 7, 8}, FellBack, "relists failed for a while"},
		// Relists faster than every period: still a disagreement.
		{"v1.36 evented relisting every 0.1s", release36, 0, repeat(0.1, 20), Inconsistent, "far from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetrics("metrics.txt", []byte(intervalText(tc.intervals...)))
			if err != nil {
				t.Fatal(err)
			}
			s := scrape("v1.37.2", 1, tc.errors, 4, uint64(len(tc.intervals)), m.RelistInterval.Sum)
			if tc.periods.Role == RoleEventSource {
				s.KubeletVersion = "v1.36.5"
			}
			s.RelistInterval = m.RelistInterval
			d := Decide(Input{Gate: gateOnAt(s.KubeletVersion), Periods: tc.periods, Metrics: s, Runtime: streaming2})
			if d.Verdict != tc.want {
				t.Errorf("verdict %s; want %s", d.Verdict, tc.want)
			}
			found := false
			for _, r := range d.Reasons {
				if strings.Contains(r.Claim, tc.claim) && strings.Contains(r.Claim, "relist interval") {
					found = true
				}
			}
			if !found {
				t.Errorf("no relist claim says %q", tc.claim)
			}
			if t.Failed() {
				logReasons(t, d)
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	m, err := ReadMetrics("metrics.txt", []byte(intervalText(0.002, 1.006, 1.006, 6.9, 30)))
	if err != nil {
		t.Fatal(err)
	}
	h := m.RelistInterval
	for _, tc := range []struct {
		rank          uint64
		above, atMost float64
		ok            bool
	}{
		{0, 0, 0, false},
		{1, 0, 0.005, true},
		{2, 1, 2.5, true},
		{3, 1, 2.5, true},
		{4, 5, 10, true},
		{5, 10, math.Inf(1), true},
		{6, 0, 0, false},
	} {
		above, atMost, ok := h.Quantile(tc.rank)
		if ok != tc.ok || ok && (above != tc.above || atMost != tc.atMost) {
			t.Errorf("Quantile(%d) = (%v, %v, %t); want (%v, %v, %t)", tc.rank, above, atMost, ok, tc.above, tc.atMost, tc.ok)
		}
	}
	if _, _, ok := (&Histogram{Count: 3}).Quantile(1); ok {
		t.Error("a histogram without buckets has a quantile")
	}
}

// Buckets no histogram has are refused, naming the family; series whose
// bounds differ are read without buckets.
func TestBucketsRead(t *testing.T) {
	const family = "# TYPE kubelet_pleg_relist_interval_seconds histogram\n"
	for _, tc := range []struct {
		name, text, err string
		buckets         int
	}{
		{"falling", family + `kubelet_pleg_relist_interval_seconds_bucket{le="1"} 3
kubelet_pleg_relist_interval_seconds_bucket{le="2.5"} 2
kubelet_pleg_relist_interval_seconds_bucket{le="+Inf"} 3
kubelet_pleg_relist_interval_seconds_sum 3
kubelet_pleg_relist_interval_seconds_count 3
`, "le=2.5 counts 2; want a cumulative count between 3 and _count 3", 0},
		{"above count", family + `kubelet_pleg_relist_interval_seconds_bucket{le="1"} 4
kubelet_pleg_relist_interval_seconds_bucket{le="+Inf"} 3
kubelet_pleg_relist_interval_seconds_sum 3
kubelet_pleg_relist_interval_seconds_count 3
`, "le=1 counts 4", 0},
		{"two series, other bounds", family + `kubelet_pleg_relist_interval_seconds_bucket{a="x",le="1"} 1
kubelet_pleg_relist_interval_seconds_bucket{a="x",le="+Inf"} 1
kubelet_pleg_relist_interval_seconds_sum{a="x"} 1
kubelet_pleg_relist_interval_seconds_count{a="x"} 1
kubelet_pleg_relist_interval_seconds_bucket{a="y",le="2"} 1
kubelet_pleg_relist_interval_seconds_bucket{a="y",le="+Inf"} 1
kubelet_pleg_relist_interval_seconds_sum{a="y"} 1
kubelet_pleg_relist_interval_seconds_count{a="y"} 1
`, "", 0},
		{"two series, same bounds", family + `kubelet_pleg_relist_interval_seconds_bucket{a="x",le="1"} 1
kubelet_pleg_relist_interval_seconds_bucket{a="x",le="+Inf"} 1
kubelet_pleg_relist_interval_seconds_sum{a="x"} 1
kubelet_pleg_relist_interval_seconds_count{a="x"} 1
kubelet_pleg_relist_interval_seconds_bucket{a="y",le="1"} 0
kubelet_pleg_relist_interval_seconds_bucket{a="y",le="+Inf"} 1
kubelet_pleg_relist_interval_seconds_sum{a="y"} 2
kubelet_pleg_relist_interval_seconds_count{a="y"} 1
`, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetrics("metrics.txt", []byte(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "metrics.txt") {
					t.Fatalf("error %v; want one naming metrics.txt and %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(m.RelistInterval.Buckets); got != tc.buckets {
				t.Errorf("%d buckets; want %d", got, tc.buckets)
			}
		})
	}
}
