package nodeverdict

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/srcpos"
)

// The health rule of a release shaped like v1.36 (3m gate off and after
// the fallback, 10m gate on) with the kubelet's words given as the source
// has them, and v1.37's (3m whatever the gate).
var (
	threshold3m  = Threshold{Duration: 3 * time.Minute, Known: true, Cited: Cited{Value: "3m0s", Const: "genericPlegRelistThreshold", Decl: &srcpos.Pos{File: "pkg/kubelet/kubelet.go", Line: 216, Column: 2}}, Evidence: "3m0s = genericPlegRelistThreshold (pkg/kubelet/kubelet.go:216)"}
	threshold10m = Threshold{Duration: 10 * time.Minute, Known: true, Cited: Cited{Value: "10m0s", Const: "eventedPlegRelistThreshold", Decl: &srcpos.Pos{File: "pkg/kubelet/kubelet.go", Line: 220, Column: 2}}, Evidence: "10m0s = eventedPlegRelistThreshold (pkg/kubelet/kubelet.go:220)"}
	words        = HealthRule{Words: HealthWords{CheckName: "PLEG", StaleFormat: "pleg was last seen active %v ago; threshold is %v", NeverFormat: "pleg has yet to be successful", ErrorsFormat: "%s is not healthy: %v", RuntimeDown: "container runtime is down", RuntimeDownAfter: "30s = maxWaitForContainerRuntime (pkg/kubelet/kubelet.go:153)"}}
	refreshed    = "the EventedPLEG health check sets it to the time of the check (pkg/kubelet/pleg/evented.go:179)"
	rule36       = withThresholds(words, threshold3m, threshold10m, threshold3m, refreshed)
	rule37       = withThresholds(words, threshold3m, threshold3m, Threshold{Why: "none"}, "")
)

func withThresholds(r HealthRule, off, on, fallback Threshold, refresh string) HealthRule {
	r.GateOff, r.GateOn, r.Fallback, r.LastSeenRefreshed = off, on, fallback, refresh
	return r
}

// scrapedAt is the time of every hand-written capture below.
const scrapedAt = "2026-12-03T06:48:02Z"

// healthCapture is a kubelet's metrics, written by hand, scraped at
// scrapedAt: the PLEG last seen ago before, the stream counters, relist
// durations, and ops, kubelet_runtime_operations_* lines.
func healthCapture(t *testing.T, ago time.Duration, streamErrors int, ops string) Metrics {
	t.Helper()
	at, _ := time.Parse(time.RFC3339, scrapedAt)
	text := fmt.Sprintf(`# scraped at %s
# TYPE kubelet_evented_pleg_connection_error_count counter
kubelet_evented_pleg_connection_error_count %d
# TYPE kubelet_pleg_last_seen_seconds gauge
kubelet_pleg_last_seen_seconds %d
# TYPE kubelet_pleg_relist_duration_seconds histogram
kubelet_pleg_relist_duration_seconds_bucket{le="0.1"} 700
kubelet_pleg_relist_duration_seconds_bucket{le="10"} 700
kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} 700
kubelet_pleg_relist_duration_seconds_sum 14
kubelet_pleg_relist_duration_seconds_count 700
%s`, scrapedAt, streamErrors, at.Add(-ago).Unix(), ops)
	m, err := ReadMetrics("m.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return *m
}

// A runtime whose list calls time out (each took the 2m request timeout)
// and whose status call fails.
const listTimeouts = `# TYPE kubelet_runtime_operations_total counter
kubelet_runtime_operations_total{operation_type="list_podsandbox"} 812
kubelet_runtime_operations_total{operation_type="list_containers"} 810
kubelet_runtime_operations_total{operation_type="status"} 170
# TYPE kubelet_runtime_operations_errors_total counter
kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} 2
kubelet_runtime_operations_errors_total{operation_type="status"} 7
# TYPE kubelet_runtime_operations_duration_seconds histogram
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="0.005"} 790
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="1.220703125"} 810
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="119.20928955078125"} 810
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="298.0232238769531"} 812
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="+Inf"} 812
kubelet_runtime_operations_duration_seconds_sum{operation_type="list_podsandbox"} 244
kubelet_runtime_operations_duration_seconds_count{operation_type="list_podsandbox"} 812
`

// Calls that all went well.
const callsFine = `# TYPE kubelet_runtime_operations_total counter
kubelet_runtime_operations_total{operation_type="list_podsandbox"} 700
# TYPE kubelet_runtime_operations_errors_total counter
kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} 0
`

func TestHealth(t *testing.T) {
	generic, on := gateSet(false), gateSet(true)
	for _, tc := range []struct {
		name    string
		gate    Gate
		periods Periods
		rule    HealthRule
		metrics func(t *testing.T) Metrics
		noTime  bool
		want    Health
		// says are words the evidence must hold.
		says []string
	}{
		{"generic, relisted 2s ago", generic, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, 2*time.Second, 0, callsFine) },
			false, Health{State: Healthy, Elapsed: "2s", Threshold: &threshold3m.Cited}, []string{"last seen active 2s ago", "threshold 3m0s = genericPlegRelistThreshold"}},
		{"generic, past the threshold", generic, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, 3*time.Minute+2*time.Second, 0, listTimeouts) },
			false, Health{State: Unhealthy, Elapsed: "3m2s", Threshold: &threshold3m.Cited, Message: "PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s",
				Cause: "the runtime's list calls failed or were slow (list_podsandbox: 2 of 812 calls failed, 2 took more than 1.221s, the slowest in (119.2s, 298s]): every relist lists first, and one whose list fails or hangs leaves the last-seen time where it was"},
			[]string{"past the threshold", "status: 7 of 170 calls failed, since the kubelet started"}},
		{"generic, within the gauge's second past", generic, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, 3*time.Minute+time.Second, 0, "") },
			false, Health{State: AtRisk, Elapsed: "3m1s", Threshold: &threshold3m.Cited}, []string{"within the gauge's second", "no kubelet_runtime_operations_* families"}},
		{"generic, past half the threshold", generic, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, 100*time.Second, 0, callsFine) },
			false, Health{State: AtRisk, Elapsed: "1m40s", Threshold: &threshold3m.Cited}, []string{"past 0.5 of the threshold (1m30s)", "does not say what stalls the relist"}},
		{"generic, five periods behind", generic, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, 7*time.Second, 0, callsFine) },
			false, Health{State: AtRisk, Elapsed: "7s", Threshold: &threshold3m.Cited}, []string{"more than 5 relist periods of 1s = genericPlegRelistPeriod"}},
		{"no capture time", generic, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, 2*time.Second, 0, "") },
			true, Health{State: HealthUnknown, Threshold: &threshold3m.Cited}, []string{"the capture's time is not known (no -at, no \"# scraped at\" line)"}},
		{"no last-seen gauge", generic, release36, rule36, func(t *testing.T) Metrics { m := healthCapture(t, 0, 0, ""); m.LastSeen = nil; return m },
			false, Health{State: HealthUnknown, Threshold: &threshold3m.Cited}, []string{"the capture has no kubelet_pleg_last_seen_seconds"}},
		{"never successful", generic, release36, rule36, func(t *testing.T) Metrics { m := healthCapture(t, 0, 0, ""); m.LastSeen = count(0); return m },
			false, Health{State: Unhealthy, Threshold: &threshold3m.Cited, Message: "PLEG is not healthy: pleg has yet to be successful"}, []string{"is 0: no health check has seen a relist succeed yet"}},
		// v1.36 with the gate on: the evented PLEG's check sets the gauge
		// to its own time, so even a relist stalled for an hour reads fine.
		{"gate on, last-seen refreshed", on, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, time.Second, 0, listTimeouts) },
			false, Health{State: HealthUnknown, Threshold: &threshold10m.Cited}, []string{"proves nothing about the relist with EventedPLEG on: " + refreshed, "list_podsandbox: 2 of 812 calls failed"}},
		// The same after the fallback: the gate is still on, the check
		// still registered.
		{"fell back, last-seen refreshed", on, release36, rule36, func(t *testing.T) Metrics { return healthCapture(t, time.Second, 5, "") },
			false, Health{State: HealthUnknown, Threshold: &threshold3m.Cited}, []string{"proves nothing"}},
		// A source whose evented PLEG leaves the gauge alone: beside the
		// stream 10m holds, after the fallback the 3m it restores.
		{"gate on, 4m ago", on, release36, withThresholds(words, threshold3m, threshold10m, threshold3m, ""), func(t *testing.T) Metrics { return healthCapture(t, 4*time.Minute, 0, "") },
			false, Health{State: Healthy, Elapsed: "4m0s", Threshold: &threshold10m.Cited}, []string{"the generic PLEG's beside the evented PLEG"}},
		{"fell back, 4m ago", on, release36, withThresholds(words, threshold3m, threshold10m, threshold3m, ""), func(t *testing.T) Metrics { return healthCapture(t, 4*time.Minute, 5, "") },
			false, Health{State: Unhealthy, Elapsed: "4m0s", Threshold: &threshold3m.Cited, Message: "PLEG is not healthy: pleg was last seen active 4m0s ago; threshold is 3m0s"}, []string{"what the evented PLEG restores once the stream is given up"}},
		{"fell back, fallback threshold not known", on, release36, withThresholds(words, threshold3m, threshold10m, Threshold{Why: "not in plegvet's index"}, ""), func(t *testing.T) Metrics { return healthCapture(t, 4*time.Minute, 5, "") },
			false, Health{State: HealthUnknown, Elapsed: "4m0s"}, []string{"the threshold in force (what the evented PLEG restores once the stream is given up) is not known: not in plegvet's index"}},
		// v1.37: the watcher keeps the generic PLEG's 3m, gate on or off.
		{"v1.37 gate on, 3m2s ago", on, release37, rule37, func(t *testing.T) Metrics { return healthCapture(t, 3*time.Minute+2*time.Second, 0, "") },
			false, Health{State: Unhealthy, Elapsed: "3m2s", Threshold: &threshold3m.Cited, Message: "PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s"}, nil},
		{"v1.37 stopped watching, 1s ago", on, release37, rule37, func(t *testing.T) Metrics { return healthCapture(t, time.Second, 5, "") },
			false, Health{State: Healthy, Elapsed: "1s", Threshold: &threshold3m.Cited}, []string{"which it keeps once the stream is given up"}},
		// Without the kubelet's words the state is decided all the same.
		{"no words", generic, release36, withThresholds(HealthRule{}, threshold3m, threshold10m, threshold3m, ""), func(t *testing.T) Metrics { return healthCapture(t, 5*time.Minute, 0, "") },
			false, Health{State: Unhealthy, Elapsed: "5m0s", Threshold: &threshold3m.Cited, Message: "(the kubelet's words are not known from this source)"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.metrics(t)
			in := Input{Gate: tc.gate, Periods: tc.periods, Metrics: m, Health: tc.rule, At: m.ScrapedAt, AtFrom: "the capture's \"# scraped at\" line"}
			if tc.noTime {
				in.At = nil
			}
			h := Decide(in).Health
			got, want := h, tc.want
			got.Since, got.Evidence = nil, nil
			want.Evidence = nil
			if fmt.Sprint(got.State, got.Elapsed, got.Threshold, got.Message, got.Cause) != fmt.Sprint(want.State, want.Elapsed, want.Threshold, want.Message, want.Cause) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			all := strings.Join(h.Evidence, "\n")
			for _, s := range tc.says {
				if !strings.Contains(all, s) {
					t.Errorf("evidence lacks %q:\n%s", s, all)
				}
			}
			if h.State != Healthy && h.State != HealthUnknown && h.Cause == "" && !strings.Contains(all, "does not say what stalls") && !strings.Contains(all, "no kubelet_runtime_operations_*") {
				t.Errorf("a PLEG %s with no cause and no word on why:\n%s", h.State, all)
			}
		})
	}
}

// A capture time before the PLEG was last seen is no time at all.
func TestHealthCaptureBeforeLastSeen(t *testing.T) {
	m := healthCapture(t, -time.Minute, 0, "")
	h := Decide(Input{Gate: gateSet(false), Periods: release36, Metrics: m, Health: rule36, At: m.ScrapedAt, AtFrom: "-at"}).Health
	if h.State != HealthUnknown || !strings.Contains(strings.Join(h.Evidence, "\n"), "1m0s before the PLEG was last seen active") {
		t.Errorf("%+v", h)
	}
}

// Real v1.37.2 kubelets (testdata/real) relist every second: scraped a
// second and a half after the last-seen time the gauge holds, as the
// harness scraped them every half second, every capture after the first
// relist is healthy; the first, before any health check saw a relist,
// reads as the kubelet would say it. The v1.36.5 kubelet with the gate on
// has the evented check set the gauge: unknown.
func TestHealthRealCaptures(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		gate    bool
		periods Periods
		rule    HealthRule
		want    string
	}{
		{"v1.37.2/gate-on-debian", true, release37, rule37, Healthy},
		{"v1.37.2/runtime-restart", true, release37, rule37, Healthy},
		{"v1.36.5/gate-on-built", true, release36, rule36, HealthUnknown},
	} {
		scrapes, _ := filepath.Glob(filepath.Join("testdata", "real", filepath.FromSlash(tc.dir), "[0-9][0-9][0-9].txt"))
		if len(scrapes) == 0 {
			t.Fatalf("no scrapes in %s", tc.dir)
		}
		for _, s := range scrapes {
			m := readFile(t, filepath.Dir(s), filepath.Base(s), ReadMetrics)
			g := gateSet(tc.gate)
			g.KubeletVersion = m.KubeletVersion
			at := time.Unix(int64(value(m.LastSeen)), 0).Add(1500 * time.Millisecond)
			h := Decide(Input{Gate: g, Periods: tc.periods, Metrics: *m, Health: tc.rule, At: &at, AtFrom: "-at"}).Health
			want := tc.want
			if value(m.LastSeen) == 0 && tc.want != HealthUnknown {
				want = Unhealthy
			}
			if h.State != want {
				t.Errorf("%s/%s: %s; want %s\n%s", tc.dir, filepath.Base(s), h.State, want, strings.Join(h.Evidence, "\n"))
			}
		}
	}
}

func TestNotHealthy(t *testing.T) {
	for _, tc := range []struct {
		w    HealthWords
		want string
	}{
		{words.Words, "PLEG is not healthy: "},
		{HealthWords{}, ""},
		{HealthWords{CheckName: "PLEG", ErrorsFormat: "%d %s: %v"}, ""},
		{HealthWords{CheckName: "PLEG", ErrorsFormat: "%s failed"}, ""},
	} {
		if got := tc.w.NotHealthy(); got != tc.want {
			t.Errorf("%+v: %q; want %q", tc.w, got, tc.want)
		}
	}
}
