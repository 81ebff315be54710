package ladder

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultScrapeTimeout is Prometheus' default scrape timeout, the one
// kube-prometheus keeps for the kubelet's endpoints.
const DefaultScrapeTimeout = 10 * time.Second

// The rungs' names.
const (
	RungMetricsDark = "metrics-dark"
	// The kubelet's other paths that wait on the runtime: /metrics/resource
	// (metrics-server's source, for kubectl top and the HPA) and
	// /stats/summary, each against the same timeout as /metrics'.
	RungResourceDark = "metrics-resource-dark"
	RungSummaryDark  = "stats-summary-dark"
	RungRuntimeDown  = "runtime-down"
	RungPLEG         = "pleg-unhealthy"
	RungDeadline     = "deadline"
)

// Inputs are the values the ladder is computed from: the CRI calls each
// kubelet loop makes one after another, and the periods, thresholds and
// deadline in force. A count of 0 or a duration of 0 is not known; the
// rungs that need it are left out and Ladder.Unknown says why.
type Inputs struct {
	// ScrapeCalls are the CRI calls one /metrics scrape makes, one after
	// another (at least: a collector may call once per pod).
	ScrapeCalls int
	// ScrapeBounded says, when no collector's calls are counted, that each
	// bounds them by a timeout of its own shorter than the scrape's: then
	// /metrics answers (with errors) however slow the runtime, and there
	// is no metrics-dark rung; "" otherwise.
	ScrapeBounded string
	// ResourceScrapeCalls and SummaryCalls are the CRI calls one
	// /metrics/resource scrape and one /stats/summary request make one
	// after another; 0 when not known or none.
	ResourceScrapeCalls int
	SummaryCalls        int
	// ScrapeCallsGated are, for each feature gate off by default that a
	// counted collector's branch follows (runtimehang's Step.Gate), the
	// calls a scrape makes with that gate alone turned on: a node whose
	// configz turns it on makes them, not ScrapeCalls. nil when no branch
	// follows such a gate.
	ScrapeCallsGated map[string]int
	// RelistListCalls are the calls a relist makes before it stores its
	// time (the runtime's GetPods); PodCalls those it makes for each pod
	// that changed (GetPodStatus, one sandbox, one container).
	RelistListCalls int
	PodCalls        int
	// StatusCalls are the calls of the runtime status loop before it
	// refreshes its sync time; NodeStatusCalls those the node status
	// update waits on before its Ready setter reads that time.
	StatusCalls     int
	NodeStatusCalls int
	// RelistPeriod and RelistThreshold are the generic relist's period
	// and health threshold in force.
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
	// StatusPeriod is the runtime status loop's period, RuntimeDown the
	// age of its sync time past which the runtime is declared down.
	StatusPeriod time.Duration
	RuntimeDown  time.Duration
	// NodeStatusFrequency is how often the node status is updated
	// (nodeStatusUpdateFrequency), Deadline each CRI call's deadline
	// (runtimeRequestTimeout), ScrapeTimeout the /metrics scrape's.
	NodeStatusFrequency time.Duration
	Deadline            time.Duration
	ScrapeTimeout       time.Duration
	// From says where each value was read, keyed by its JSON name
	// ("deadline": "runtimeRequestTimeout from configz").
	From map[string]string
}

// Rung is one signal breaking, and the per-call latency from which it does.
type Rung struct {
	Name string `json:"name"`
	// Latency is the per-call latency past which the signal breaks, as Go
	// prints a duration; Seconds the same in seconds.
	Latency string  `json:"latency"`
	Seconds float64 `json:"seconds"`
	// What says what breaks, in a sentence.
	What string `json:"what"`
	// PastDeadline: the rung lies at or past the CRI deadline, so calls
	// fail before it is reached (the runtime is then taken for hung).
	PastDeadline bool `json:"pastDeadline,omitempty"`
	// Warn is the latency at which the loop behind the rung has one of
	// its periods of margin left (for runtime-down: the sync time's worst
	// age one status period short of the threshold), the latency a
	// warning fires at before the rung is reached; "" when not computed.
	Warn        string  `json:"warn,omitempty"`
	WarnSeconds float64 `json:"warnSeconds,omitempty"`
}

// Ladder is the rungs of one kubelet, for PodsChanging pods changing at
// once.
type Ladder struct {
	Inputs       Inputs `json:"inputs"`
	PodsChanging int    `json:"podsChanging"`
	// Rungs are sorted by latency, lowest first.
	Rungs []Rung `json:"rungs"`
	// Unknown says which rungs could not be computed and why; "" when all were.
	Unknown string `json:"unknown,omitempty"`
}

// Compute is in's ladder with podsChanging pods changing at once.
func Compute(in Inputs, podsChanging int) *Ladder {
	l := &Ladder{Inputs: in, PodsChanging: max(podsChanging, 0), Rungs: []Rung{}}
	var unknown []string
	add := func(name string, d time.Duration, what string) {
		r := Rung{Name: name, Latency: d.String(), Seconds: d.Seconds(), What: what}
		r.PastDeadline = in.Deadline > 0 && d >= in.Deadline && name != RungDeadline
		l.Rungs = append(l.Rungs, r)
	}
	// The server's paths first: at the same latency (rungs sort stably),
	// /metrics' rung, the one Prometheus sees, is where a node is placed.
	for _, e := range []struct {
		name, path, who string
		calls           int
	}{
		{RungResourceDark, "/metrics/resource scrape", "metrics-server, and with it kubectl top and the HPA, loses the node's usage", in.ResourceScrapeCalls},
		{RungSummaryDark, "/stats/summary request", "what reads the node's summary (monitoring agents) gets none", in.SummaryCalls},
	} {
		if e.calls > 0 && in.ScrapeTimeout > 0 {
			add(e.name, in.ScrapeTimeout/time.Duration(e.calls),
				fmt.Sprintf("a %s (%d CRI calls one after another) passes a %s timeout: %s while the kubelet is fine", e.path, e.calls, in.ScrapeTimeout, e.who))
		}
	}
	switch {
	case in.ScrapeCalls <= 0 && in.ScrapeBounded != "":
		// No rung: the collectors' own timeouts keep /metrics answering.
	case in.ScrapeCalls <= 0 || in.ScrapeTimeout <= 0:
		unknown = append(unknown, "metrics-dark: the CRI calls a /metrics scrape makes, or the scrape timeout, are not known")
	default:
		add(RungMetricsDark, in.ScrapeTimeout/time.Duration(in.ScrapeCalls),
			fmt.Sprintf("a /metrics scrape (%d CRI calls one after another) passes the %s scrape timeout: /metrics goes dark while the kubelet is fine", in.ScrapeCalls, in.ScrapeTimeout))
	}
	switch {
	case in.StatusCalls <= 0 || in.RuntimeDown <= 0 || in.StatusPeriod <= 0:
		unknown = append(unknown, "runtime-down: the status loop's calls, period or the runtime-down threshold are not known")
	case in.RuntimeDown <= in.StatusPeriod:
		unknown = append(unknown, fmt.Sprintf("runtime-down: the threshold %s is not above the status period %s: any latency flaps Ready", in.RuntimeDown, in.StatusPeriod))
	default:
		add(RungRuntimeDown, (in.RuntimeDown-in.StatusPeriod)/time.Duration(in.StatusCalls),
			fmt.Sprintf("the runtime's sync time, refreshed every %s after %d Status call(s), passes the %s runtime-down threshold: Ready flaps to False (\"container runtime is down\")", in.StatusPeriod, in.StatusCalls, in.RuntimeDown))
		if warn := (in.RuntimeDown - 2*in.StatusPeriod) / time.Duration(in.StatusCalls); warn > 0 {
			r := &l.Rungs[len(l.Rungs)-1]
			r.Warn, r.WarnSeconds = warn.String(), warn.Seconds()
		}
	}
	calls := 2*in.RelistListCalls + l.PodsChanging*in.PodCalls
	switch {
	case in.RelistListCalls <= 0 || calls <= 0 || in.RelistThreshold <= 0 || in.RelistPeriod <= 0 || (l.PodsChanging > 0 && in.PodCalls <= 0):
		unknown = append(unknown, "pleg-unhealthy: the relist's calls, period or threshold are not known")
	case in.RelistThreshold <= in.RelistPeriod:
		unknown = append(unknown, fmt.Sprintf("pleg-unhealthy: the threshold %s is not above the relist period %s", in.RelistThreshold, in.RelistPeriod))
	default:
		add(RungPLEG, (in.RelistThreshold-in.RelistPeriod)/time.Duration(calls),
			fmt.Sprintf("the relist time, stored after %d list call(s) of a relist started %s after the last ended (%d pod(s) changing, %d call(s) each), passes the %s threshold: \"PLEG is not healthy\"", in.RelistListCalls, in.RelistPeriod, l.PodsChanging, in.PodCalls, in.RelistThreshold))
	}
	if in.Deadline <= 0 {
		unknown = append(unknown, "deadline: the CRI calls' deadline is not known")
	} else {
		add(RungDeadline, in.Deadline, fmt.Sprintf("each call takes its whole %s deadline and fails: the runtime is, to the kubelet, hung", in.Deadline))
	}
	slices.SortStableFunc(l.Rungs, func(a, b Rung) int {
		switch {
		case a.Seconds < b.Seconds:
			return -1
		case a.Seconds > b.Seconds:
			return 1
		}
		return 0
	})
	l.Unknown = strings.Join(unknown, "; ")
	return l
}

// Rung is the rung named name; nil when it was not computed.
func (l *Ladder) Rung(name string) *Rung {
	if l == nil {
		return nil
	}
	for i := range l.Rungs {
		if l.Rungs[i].Name == name {
			return &l.Rungs[i]
		}
	}
	return nil
}

// Place is where a runtime answering every call after latency stands:
// on, the highest rung it has broken (nil: none), and next, the lowest it
// has not (nil: none left).
func (l *Ladder) Place(latency time.Duration) (on, next *Rung) {
	if l == nil {
		return nil, nil
	}
	for i := range l.Rungs {
		r := &l.Rungs[i]
		if latency.Seconds() >= r.Seconds {
			on = r
		} else if next == nil {
			next = r
		}
	}
	return on, next
}

// ScrapeTime is how long a /metrics scrape takes at latency per call.
func (l *Ladder) ScrapeTime(latency time.Duration) time.Duration {
	return time.Duration(l.Inputs.ScrapeCalls) * latency
}

// ResourceScrapeTime and SummaryTime are how long a /metrics/resource
// scrape and a /stats/summary request take at latency per call.
func (l *Ladder) ResourceScrapeTime(latency time.Duration) time.Duration {
	return time.Duration(l.Inputs.ResourceScrapeCalls) * latency
}

// SummaryTime: see ResourceScrapeTime.
func (l *Ladder) SummaryTime(latency time.Duration) time.Duration {
	return time.Duration(l.Inputs.SummaryCalls) * latency
}

// RelistCycle is the time from one relist's start to the next's, with n
// pods changing.
func (l *Ladder) RelistCycle(latency time.Duration, n int) time.Duration {
	in := l.Inputs
	return in.RelistPeriod + time.Duration(in.RelistListCalls+n*in.PodCalls)*latency
}

// HealthAge is the relist time's worst age, the one the health check
// compares with the threshold, with n pods changing.
func (l *Ladder) HealthAge(latency time.Duration, n int) time.Duration {
	return l.RelistCycle(latency, n) + time.Duration(l.Inputs.RelistListCalls)*latency
}

// Overload is the fewest pods changing at once that, at latency per
// call, take the relist time's worst age past its threshold (each relist
// inspects them one after another); false when the calls a pod costs or
// the threshold are not known.
func (l *Ladder) Overload(latency time.Duration) (int, bool) {
	in := l.Inputs
	if in.PodCalls <= 0 || in.RelistThreshold <= 0 || in.RelistListCalls <= 0 || latency <= 0 {
		return 0, false
	}
	spare := in.RelistThreshold - l.HealthAge(latency, 0)
	if spare < 0 {
		return 0, true
	}
	return int(spare/(time.Duration(in.PodCalls)*latency)) + 1, true
}

// StatusAge is the runtime sync time's worst age.
func (l *Ladder) StatusAge(latency time.Duration) time.Duration {
	return l.Inputs.StatusPeriod + time.Duration(l.Inputs.StatusCalls)*latency
}

// HangNotReady bounds when a hung runtime (every call waiting its whole
// deadline) turns the node's Ready False, counted from the hang's start.
// The runtime's sync time stops then (it was refreshed at most
// StatusPeriod before), so its errors begin between RuntimeDown -
// StatusPeriod and RuntimeDown after. The Ready setter reads them at the
// end of a node status update, once its NodeStatusCalls calls have each
// waited the deadline (w in all); updates follow each other
// NodeStatusFrequency (f) apart. An update in flight at the hang reads
// Ready w after its call began, so when w is at least RuntimeDown the
// first reading after the hang already finds the errors: Ready False
// between w and f+w. Otherwise the first reading after the errors begin
// comes within f+w of them. ok is false when a value is not known.
func HangNotReady(in Inputs) (lo, hi time.Duration, ok bool) {
	if in.RuntimeDown <= 0 || in.StatusPeriod <= 0 || in.Deadline <= 0 || in.NodeStatusFrequency <= 0 || in.NodeStatusCalls < 0 {
		return 0, 0, false
	}
	w, f := time.Duration(in.NodeStatusCalls)*in.Deadline, in.NodeStatusFrequency
	if w >= in.RuntimeDown {
		return w, f + w, true
	}
	return max(in.RuntimeDown-in.StatusPeriod, 0), in.RuntimeDown + f + w, true
}

// inputsJSON is Inputs as JSON: durations as Go prints them.
type inputsJSON struct {
	ScrapeCalls         int               `json:"scrapeCalls"`
	ScrapeBounded       string            `json:"scrapeBounded,omitempty"`
	ResourceScrapeCalls int               `json:"resourceScrapeCalls,omitempty"`
	SummaryCalls        int               `json:"summaryCalls,omitempty"`
	ScrapeCallsGated    map[string]int    `json:"scrapeCallsGated,omitempty"`
	RelistListCalls     int               `json:"relistListCalls"`
	PodCalls            int               `json:"podCalls"`
	StatusCalls         int               `json:"statusCalls"`
	NodeStatusCalls     int               `json:"nodeStatusCalls"`
	RelistPeriod        string            `json:"relistPeriod"`
	RelistThreshold     string            `json:"relistThreshold"`
	StatusPeriod        string            `json:"statusPeriod"`
	RuntimeDown         string            `json:"runtimeDown"`
	NodeStatusFrequency string            `json:"nodeStatusFrequency"`
	Deadline            string            `json:"deadline"`
	ScrapeTimeout       string            `json:"scrapeTimeout"`
	From                map[string]string `json:"from"`
}

// MarshalJSON writes durations as Go prints them ("2m0s"), "" for unknown.
func (in Inputs) MarshalJSON() ([]byte, error) {
	d := func(v time.Duration) string {
		if v <= 0 {
			return ""
		}
		return v.String()
	}
	from := in.From
	if from == nil {
		from = map[string]string{}
	}
	return json.Marshal(inputsJSON{in.ScrapeCalls, in.ScrapeBounded, in.ResourceScrapeCalls, in.SummaryCalls, in.ScrapeCallsGated, in.RelistListCalls, in.PodCalls, in.StatusCalls, in.NodeStatusCalls,
		d(in.RelistPeriod), d(in.RelistThreshold), d(in.StatusPeriod), d(in.RuntimeDown), d(in.NodeStatusFrequency), d(in.Deadline), d(in.ScrapeTimeout), from})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (in *Inputs) UnmarshalJSON(b []byte) error {
	var j inputsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	out := Inputs{ScrapeCalls: j.ScrapeCalls, ScrapeBounded: j.ScrapeBounded, ResourceScrapeCalls: j.ResourceScrapeCalls, SummaryCalls: j.SummaryCalls, ScrapeCallsGated: j.ScrapeCallsGated, RelistListCalls: j.RelistListCalls, PodCalls: j.PodCalls, StatusCalls: j.StatusCalls, NodeStatusCalls: j.NodeStatusCalls, From: j.From}
	for _, f := range []struct {
		s string
		d *time.Duration
	}{{j.RelistPeriod, &out.RelistPeriod}, {j.RelistThreshold, &out.RelistThreshold}, {j.StatusPeriod, &out.StatusPeriod}, {j.RuntimeDown, &out.RuntimeDown},
		{j.NodeStatusFrequency, &out.NodeStatusFrequency}, {j.Deadline, &out.Deadline}, {j.ScrapeTimeout, &out.ScrapeTimeout}} {
		if f.s == "" {
			continue
		}
		v, err := time.ParseDuration(f.s)
		if err != nil {
			return fmt.Errorf("ladder inputs: %w", err)
		}
		*f.d = v
	}
	*in = out
	return nil
}

// HangNotReady is HangNotReady of l's inputs.
func (l *Ladder) HangNotReady() (lo, hi time.Duration, ok bool) {
	if l == nil {
		return 0, 0, false
	}
	return HangNotReady(l.Inputs)
}
