package harness

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// RelistSample is kubelet_pleg_relist_duration_seconds_count as one
// answer of /metrics gave it, at the moment the answer came (the
// kubelet gathers its metrics at the end of a slow scrape, after the
// collectors' CRI calls).
type RelistSample struct {
	At    time.Time `json:"at"`
	Count float64   `json:"count"`
	From  string    `json:"from"` // "round N" or "patient"
}

// RelistSamples are every answered /metrics request's count, rounds' and
// patient ones', in time order.
func (r *FaultRun) RelistSamples() []RelistSample {
	var out []RelistSample
	for i := range r.Rounds {
		if c := r.Rounds[i].Relists(); c > 0 {
			a := r.Rounds[i].MetricsAnswer
			out = append(out, RelistSample{At: a.Start.Add(a.Took), Count: c, From: fmt.Sprintf("round %d", r.Rounds[i].Index)})
		}
	}
	for _, p := range r.Patient {
		if p.Relists > 0 {
			out = append(out, RelistSample{At: p.Start.Add(p.Took), Count: p.Relists, From: "patient"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}

// RelistRate is how fast the relist counter rose during the fault:
// between the first and the last sample taken within it.
type RelistRate struct {
	From, To RelistSample
	Rise     float64
}

// PerMinute is the rise per minute.
func (r RelistRate) PerMinute() float64 {
	d := r.To.At.Sub(r.From.At).Minutes()
	if d <= 0 {
		return 0
	}
	return r.Rise / d
}

// Interval is the mean time between two relists.
func (r RelistRate) Interval() time.Duration {
	if r.Rise <= 0 {
		return 0
	}
	return time.Duration(float64(r.To.At.Sub(r.From.At)) / r.Rise)
}

func (r RelistRate) String() string {
	return fmt.Sprintf("relists rose by %.0f in %.0fs (%s at %s, %s at %s): %.1f a minute, one every %.1fs",
		r.Rise, r.To.At.Sub(r.From.At).Seconds(), fmtCount(r.From.Count), r.From.From, fmtCount(r.To.Count), r.To.From, r.PerMinute(), r.Interval().Seconds())
}

func fmtCount(c float64) string { return fmt.Sprintf("%.0f", c) }

// RelistRate is the counter's rise between the first and the last
// sample taken within the fault (after its first 20 s, so that a relist
// begun before it does not count); ok is false with fewer than two.
func (r *FaultRun) RelistRate() (RelistRate, bool) {
	var in []RelistSample
	for _, s := range r.RelistSamples() {
		if s.At.After(r.Frozen.Add(20*time.Second)) && s.At.Before(r.Thawed) {
			in = append(in, s)
		}
	}
	if len(in) < 2 {
		return RelistRate{}, false
	}
	first, last := in[0], in[len(in)-1]
	return RelistRate{From: first, To: last, Rise: last.Count - first.Count}, true
}

// Line is the round in a line: when, /metrics (how long, or its error),
// /configz, the Ready condition, the relist count, the firing alerts.
func (r *Round) Line(ref time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "round %d %+.0fs: /metrics ", r.Index, r.Start.Sub(ref).Seconds())
	a := r.MetricsAnswer
	if a.OK() {
		fmt.Fprintf(&b, "%.1fs (relists %.0f)", a.Took.Seconds(), r.Relists())
	} else {
		fmt.Fprintf(&b, "failed after %.1fs: %s", a.Took.Seconds(), Cut(a.Err, 120))
	}
	if c := r.Answer("/configz"); c != nil {
		if c.OK() {
			fmt.Fprintf(&b, "; /configz %.2fs", c.Took.Seconds())
		} else {
			fmt.Fprintf(&b, "; /configz failed: %s", Cut(c.Err, 80))
		}
	}
	fmt.Fprintf(&b, "; Ready %s %q", r.Ready.Status, Cut(r.Ready.Message, 160))
	if ksm := r.KSMReady(); ksm != "" {
		fmt.Fprintf(&b, "; kube_node_status_condition %s", ksm)
	}
	var firing []string
	for _, al := range r.Alerts {
		firing = append(firing, al.Name+" "+al.State)
	}
	if len(firing) > 0 {
		fmt.Fprintf(&b, "; alerts %s", strings.Join(firing, ", "))
	}
	return b.String()
}

// KSMReady is the status whose kube_node_status_condition{condition=
// "Ready"} is 1 as Prometheus read it this round ("" without
// kube-state-metrics).
func (r *Round) KSMReady() string {
	for _, s := range r.Series[QueryReady] {
		if v, ok := s.Value[1].(string); ok && v == "1" {
			return s.Metric["status"]
		}
	}
	return ""
}

// The kubelet's -v=4 lines that time its loops without /metrics: the
// runtime manager's GetPods (the relist's, with all=true; the image
// garbage collector's every 5m too) and each successful Status call of
// the runtime status loop.
const (
	LogRelisted      = `"Retrieved pods from runtime" all=true`
	LogRuntimeStatus = `"Container runtime status"`
	// LogInspected is the generic relist's -v=4 line as it stores the
	// status of a pod it inspected in the pod cache.
	LogInspected = `"PLEG: Write status"`
)

// Inspection is one relist as the kubelet's log shows it: when its
// listing returned (its GetPods line, the moment it stores its time),
// how many pods it then inspected one after another (its LogInspected
// lines up to the next GetPods line) and when it stored the last.
type Inspection struct {
	Listed time.Time `json:"listed"`
	Pods   int       `json:"pods"`
	Last   time.Time `json:"last"`
}

// Inspections are the relists whose listing returned during the fault.
// Another caller's GetPods logs the same line (the image garbage
// collector's, every 5m): a line is taken for a relist's only when it
// comes at least two calls of the fault's latency and half a second after
// the last line counted (a relist lists with two calls, and starts a
// relist period, 1s, after the last one ended), else it is another
// caller's, within a relist's inspections (each pod's two calls apart).
func (r *FaultRun) Inspections() []Inspection {
	var out []Inspection
	var last time.Time
	gap := 2*r.Fault.Latency + 500*time.Millisecond
	for _, l := range r.Log {
		if l.Time.Before(r.Frozen) || !l.Time.Before(r.Thawed) {
			continue
		}
		switch {
		case strings.Contains(l.Raw, LogRelisted):
			if len(out) == 0 || l.Time.Sub(last) >= gap {
				out = append(out, Inspection{Listed: l.Time, Last: l.Time})
				last = l.Time
			}
		case strings.Contains(l.Raw, LogInspected) && len(out) > 0:
			out[len(out)-1].Pods++
			out[len(out)-1].Last, last = l.Time, l.Time
		}
	}
	return out
}

// MostInspected is the relist that inspected the most pods; false when
// none inspected any.
func MostInspected(ins []Inspection) (Inspection, bool) {
	var most Inspection
	for _, i := range ins {
		if i.Pods > most.Pods {
			most = i
		}
	}
	return most, most.Pods > 0
}

// Gaps is how often a log line came during the fault: how many, the
// mean and the longest time between two (the first measured from the
// fault's start).
type Gaps struct {
	Text          string
	Count         int
	Mean, Longest time.Duration
}

func (g Gaps) String() string {
	return fmt.Sprintf("%d lines %s: one every %.1fs, at most %.1fs apart", g.Count, g.Text, g.Mean.Seconds(), g.Longest.Seconds())
}

// LogGaps times the kubelet's lines holding text within the fault.
func (r *FaultRun) LogGaps(text string) Gaps {
	g := Gaps{Text: text}
	prev := r.Frozen
	var first, last time.Time
	for _, l := range r.Log {
		if l.Time.Before(r.Frozen) || !l.Time.Before(r.Thawed) || !strings.Contains(l.Raw, text) {
			continue
		}
		if d := l.Time.Sub(prev); d > g.Longest {
			g.Longest = d
		}
		if first.IsZero() {
			first = l.Time
		}
		last, prev = l.Time, l.Time
		g.Count++
	}
	if d := r.Thawed.Sub(prev); d > g.Longest {
		g.Longest = d
	}
	if g.Count > 1 {
		g.Mean = last.Sub(first) / time.Duration(g.Count-1)
	}
	return g
}

// lastSeenActive is the age the kubelet's PLEG health error gives.
var lastSeenActive = regexp.MustCompile(`pleg was last seen active ([0-9.a-zµ]+) ago`)

// LongestPLEGAge is the oldest the kubelet said its last relist was
// ("pleg was last seen active D ago") in a line logged during the fault,
// and how many such lines; 0 and 0 when it never said it (its health
// age stayed under the threshold).
func (r *FaultRun) LongestPLEGAge() (longest time.Duration, lines int) {
	for _, l := range r.Log {
		if l.Time.Before(r.Frozen) || !l.Time.Before(r.Thawed) {
			continue
		}
		m := lastSeenActive.FindStringSubmatch(l.Raw)
		if m == nil {
			continue
		}
		if d, err := time.ParseDuration(m[1]); err == nil {
			lines++
			longest = max(longest, d)
		}
	}
	return longest, lines
}

// PatientScrapes are how long each patient /metrics request sent and
// answered within the fault took: a whole scrape at the fault's latency.
func (r *FaultRun) PatientScrapes() []time.Duration {
	var as []Answer
	for _, p := range r.Patient {
		as = append(as, p.Answer)
	}
	return r.within(as)
}

// PatientTimes are PatientScrapes' for one of PatientServedPaths.
func (r *FaultRun) PatientTimes(path string) []time.Duration {
	var as []Answer
	for _, a := range r.PatientPaths {
		if a.Path == path {
			as = append(as, a)
		}
	}
	return r.within(as)
}

// within are how long each answer sent and answered within the fault took.
func (r *FaultRun) within(as []Answer) []time.Duration {
	var out []time.Duration
	for _, a := range as {
		if a.OK() && a.Start.After(r.Frozen) && a.Start.Add(a.Took).Before(r.Thawed) {
			out = append(out, a.Took)
		}
	}
	return out
}
