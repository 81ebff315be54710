package ladder

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// kubelet is a look-alike of a release's inputs: two list calls per
// relist, four per changed pod, one Status call, one Version call.
func kubelet() Inputs {
	return Inputs{ScrapeCalls: 3, RelistListCalls: 2, PodCalls: 4, StatusCalls: 1, NodeStatusCalls: 1,
		RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute, StatusPeriod: 5 * time.Second, RuntimeDown: 30 * time.Second,
		NodeStatusFrequency: 10 * time.Second, Deadline: 2 * time.Minute, ScrapeTimeout: DefaultScrapeTimeout}
}

func rungs(l *Ladder) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, r := range l.Rungs {
		d, err := time.ParseDuration(r.Latency)
		if err != nil {
			panic(err)
		}
		out[r.Name] = d
	}
	return out
}

func TestComputeRungs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Inputs)
		pods  int
		want  map[string]time.Duration
		order []string
	}{
		{"idle", nil, 0, map[string]time.Duration{RungMetricsDark: 10 * time.Second / 3, RungRuntimeDown: 25 * time.Second, RungPLEG: 179 * time.Second / 4, RungDeadline: 2 * time.Minute},
			[]string{RungMetricsDark, RungRuntimeDown, RungPLEG, RungDeadline}},
		// Forty pods changing at once, four calls each: the PLEG's rung
		// falls below the runtime-down rung.
		{"forty pods", nil, 40, map[string]time.Duration{RungMetricsDark: 10 * time.Second / 3, RungRuntimeDown: 25 * time.Second, RungPLEG: 179 * time.Second / 164, RungDeadline: 2 * time.Minute},
			[]string{RungPLEG, RungMetricsDark, RungRuntimeDown, RungDeadline}},
		// A fork whose scrape makes one call and whose deadline is 10s:
		// the deadline comes before the runtime-down rung.
		{"short deadline", func(in *Inputs) { in.ScrapeCalls, in.Deadline = 1, 10*time.Second }, 0,
			map[string]time.Duration{RungMetricsDark: 10 * time.Second, RungRuntimeDown: 25 * time.Second, RungPLEG: 179 * time.Second / 4, RungDeadline: 10 * time.Second},
			[]string{RungMetricsDark, RungDeadline, RungRuntimeDown, RungPLEG}},
		{"longer runtime-down", func(in *Inputs) { in.RuntimeDown = time.Minute }, 0,
			map[string]time.Duration{RungMetricsDark: 10 * time.Second / 3, RungRuntimeDown: 55 * time.Second, RungPLEG: 179 * time.Second / 4, RungDeadline: 2 * time.Minute},
			[]string{RungMetricsDark, RungPLEG, RungRuntimeDown, RungDeadline}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := kubelet()
			if tc.edit != nil {
				tc.edit(&in)
			}
			l := Compute(in, tc.pods)
			if got := rungs(l); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("rungs %v, want %v", got, tc.want)
			}
			var order []string
			for _, r := range l.Rungs {
				order = append(order, r.Name)
			}
			if !reflect.DeepEqual(order, tc.order) {
				t.Errorf("order %v, want %v", order, tc.order)
			}
			if l.Unknown != "" {
				t.Errorf("unknown %q", l.Unknown)
			}
		})
	}
}

func TestPastDeadline(t *testing.T) {
	in := kubelet()
	in.Deadline = 40 * time.Second
	l := Compute(in, 0)
	if r := l.Rung(RungPLEG); r == nil || !r.PastDeadline {
		t.Errorf("the PLEG's rung at 44.75s with a 40s deadline is past it: %+v", r)
	}
	if r := l.Rung(RungRuntimeDown); r == nil || r.PastDeadline {
		t.Errorf("the runtime-down rung at 25s is before a 40s deadline: %+v", r)
	}
}

// The runtime-down rung warns one status period before it: at 20s per
// call the sync time's worst age is 25s, 5s short of the 30s threshold.
func TestWarn(t *testing.T) {
	r := Compute(kubelet(), 0).Rung(RungRuntimeDown)
	if r == nil || r.Warn != "20s" || r.WarnSeconds != 20 {
		t.Errorf("runtime-down rung %+v, want a warning at 20s", r)
	}
	in := kubelet()
	in.RuntimeDown = 8 * time.Second
	if r := Compute(in, 0).Rung(RungRuntimeDown); r == nil || r.Warn != "" {
		t.Errorf("a threshold within two periods leaves no margin to warn in: %+v", r)
	}
}

func TestUnknownInputs(t *testing.T) {
	in := kubelet()
	in.ScrapeCalls, in.RuntimeDown = 0, 0
	l := Compute(in, 0)
	if l.Rung(RungMetricsDark) != nil || l.Rung(RungRuntimeDown) != nil {
		t.Errorf("rungs computed from unknown inputs: %+v", l.Rungs)
	}
	for _, w := range []string{"metrics-dark", "runtime-down"} {
		if !strings.Contains(l.Unknown, w) {
			t.Errorf("Unknown %q does not name %s", l.Unknown, w)
		}
	}
	in = kubelet()
	in.RuntimeDown = in.StatusPeriod
	if l := Compute(in, 0); l.Rung(RungRuntimeDown) != nil || !strings.Contains(l.Unknown, "not above") {
		t.Errorf("a threshold not above the period: %+v", l)
	}
}

func TestPlace(t *testing.T) {
	l := Compute(kubelet(), 0)
	for _, tc := range []struct {
		lat      time.Duration
		on, next string
	}{
		{time.Second, "", RungMetricsDark},
		{6 * time.Second, RungMetricsDark, RungRuntimeDown},
		{40 * time.Second, RungRuntimeDown, RungPLEG},
		{time.Minute, RungPLEG, RungDeadline},
		{3 * time.Minute, RungDeadline, ""},
	} {
		on, next := l.Place(tc.lat)
		name := func(r *Rung) string {
			if r == nil {
				return ""
			}
			return r.Name
		}
		if name(on) != tc.on || name(next) != tc.next {
			t.Errorf("Place(%s) = %s, %s; want %s, %s", tc.lat, name(on), name(next), tc.on, tc.next)
		}
	}
}

func TestLoops(t *testing.T) {
	l := Compute(kubelet(), 0)
	if got := l.ScrapeTime(6 * time.Second); got != 18*time.Second {
		t.Errorf("ScrapeTime = %s", got)
	}
	if got := l.RelistCycle(6*time.Second, 0); got != 13*time.Second {
		t.Errorf("RelistCycle = %s", got)
	}
	if got := l.HealthAge(6*time.Second, 0); got != 25*time.Second {
		t.Errorf("HealthAge = %s", got)
	}
	if got := l.RelistCycle(time.Second, 10); got != 43*time.Second {
		t.Errorf("RelistCycle with 10 pods = %s", got)
	}
	if got := l.StatusAge(40 * time.Second); got != 45*time.Second {
		t.Errorf("StatusAge = %s", got)
	}
}

func TestHangNotReady(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*Inputs)
		lo, hi time.Duration
	}{
		// The node status update waits the whole 2m deadline on Version:
		// Ready turns False then, not at the 30s threshold.
		{"default deadline", nil, 2 * time.Minute, 2*time.Minute + 10*time.Second},
		// With a 10s deadline the runtime-down threshold decides: about 30s.
		{"10s deadline", func(in *Inputs) { in.Deadline = 10 * time.Second }, 25 * time.Second, 50 * time.Second},
		// A status update that waits on no runtime call.
		{"no call", func(in *Inputs) { in.NodeStatusCalls = 0 }, 25 * time.Second, 40 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := kubelet()
			if tc.edit != nil {
				tc.edit(&in)
			}
			lo, hi, ok := HangNotReady(in)
			if !ok || lo != tc.lo || hi != tc.hi {
				t.Errorf("HangNotReady = %s, %s, %t; want %s, %s", lo, hi, ok, tc.lo, tc.hi)
			}
		})
	}
	in := kubelet()
	in.NodeStatusFrequency = 0
	if _, _, ok := HangNotReady(in); ok {
		t.Error("HangNotReady without the node status frequency")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := kubelet()
	in.From = map[string]string{"deadline": "runtimeRequestTimeout from configz"}
	in.ResourceScrapeCalls, in.SummaryCalls = 3, 5
	in.ScrapeCallsGated = map[string]int{"PodAndContainerStatsFromCRI": 4}
	l := Compute(in, 2)
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"deadline":"2m0s"`) || !strings.Contains(string(b), `"scrapeCallsGated":{"PodAndContainerStatsFromCRI":4}`) {
		t.Errorf("durations are not written as Go prints them, or the gated calls are not written: %s", b)
	}
	var back Ladder
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, l) {
		t.Errorf("round trip:\n%+v\n%+v", back, *l)
	}
}

func FuzzInputsJSON(f *testing.F) {
	b, _ := json.Marshal(kubelet())
	f.Add(b)
	f.Add([]byte(`{"deadline":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var in Inputs
		if json.Unmarshal(b, &in) != nil {
			return
		}
		l := Compute(in, 3)
		HangNotReady(in)
		for _, r := range l.Rungs {
			if r.Seconds < 0 {
				t.Errorf("negative rung %+v", r)
			}
		}
	})
}

// Overload is the fewest pods changing at once past the threshold: each
// costs PodCalls calls of the relist, on top of its own cycle.
func TestOverload(t *testing.T) {
	in := kubelet()
	in.PodCalls = 2
	l := Compute(in, 0)
	// 3m0s - (1s + 2*1s + 2*1s) = 175s spare at 2s a pod: 88 pods.
	if n, ok := l.Overload(time.Second); !ok || n != 88 {
		t.Errorf("Overload(1s) = %d, %t; want 88", n, ok)
	}
	// The worst age of those 88 passes the threshold; of 87, it does not.
	if l.HealthAge(time.Second, 88) <= in.RelistThreshold || l.HealthAge(time.Second, 87) > in.RelistThreshold {
		t.Errorf("HealthAge(1s, 87..88) = %v..%v around %v", l.HealthAge(time.Second, 87), l.HealthAge(time.Second, 88), in.RelistThreshold)
	}
	if n, ok := l.Overload(time.Minute); !ok || n != 0 {
		t.Errorf("Overload(1m) = %d, %t; want 0: no pod is needed past the PLEG's rung", n, ok)
	}
	in.PodCalls = 0
	if _, ok := Compute(in, 0).Overload(time.Second); ok {
		t.Error("Overload with no pod calls known: ok")
	}
}

// /metrics/resource and /stats/summary are rungs of their own; at the
// latency /metrics' rung shares with one, a node stands on /metrics'.
func TestServerPathRungs(t *testing.T) {
	in := kubelet()
	in.ResourceScrapeCalls, in.SummaryCalls = in.ScrapeCalls, 5
	l := Compute(in, 0)
	md := l.Rung(RungMetricsDark)
	if md == nil || l.Rung(RungResourceDark) == nil || l.Rung(RungResourceDark).Seconds != md.Seconds {
		t.Fatalf("rungs: %+v", l.Rungs)
	}
	if s := l.Rung(RungSummaryDark); s == nil || s.Seconds != 2 || !strings.Contains(s.What, "5 CRI calls") {
		t.Errorf("summary rung: %+v", s)
	}
	if on, _ := l.Place(time.Duration(md.Seconds * float64(time.Second))); on == nil || on.Name != RungMetricsDark {
		t.Errorf("placed on %+v at the /metrics rung", on)
	}
}
