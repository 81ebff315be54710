package nodeverdict

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/ladder"
)

// The fuzz targets check what every input must get: no panic, and either
// a result that marshals to JSON or one error line naming the file.

// addFiles seeds a fuzz target with the samples in testdata/dir.
func addFiles(f *testing.F, dir string) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds in testdata/%s: %v", dir, err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkRead checks a reader's result: nil with a one-line error that
// starts with the file's name, or non-nil and marshalable without error.
func checkRead[T any](t *testing.T, name string, got *T, err error) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		if strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("error of more than one line: %q", msg)
		}
		if !strings.HasPrefix(msg, name+":") {
			t.Fatalf("error does not start with the file's name: %q", msg)
		}
		if got != nil {
			t.Fatalf("a result with an error: %+v", got)
		}
		return
	}
	if got == nil {
		t.Fatal("neither a result nor an error")
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatalf("the result does not marshal: %v", err)
	}
}

func FuzzReadConfigz(f *testing.F) {
	addFiles(f, "configz")
	for _, s := range []string{
		``, `null`, `[]`, `"kubeletconfig"`, `{"kubeletconfig": 1}`, `{"kubeletconfig": {"featureGates": null}}`,
		`{"kubeletconfig": {"featureGates": {"EventedPLEG": "true"}}}`,
		`{"kubeletconfig": {"featureGates": {"Evented\nPLEG": 0}}}`,
		`{"kubeletconfig": {"featureGates": {"EventedPLEG": tr`,
		// Keys said twice, where the reader looks and where it does not.
		`{"kubeletconfig": {"featureGates": {"EventedPLEG": true, "Evented\u0050LEG": false}}}`,
		`{"kubeletconfig": null, "kubeletconfig": {"x": {"y": 1, "y": [{"z": 2, "z": 3}]}}}`,
		// Known keys in another case, where the reader looks and where it does not.
		`{"kubeletconfig": {"featuregates": {"EventedPLEG": true}}}`, `{"KUBELETCONFIG": {}, "kubeletconfig": {}}`,
		`{"kubeletconfig": {"featureGates": {"eventedpleg": false}, "x": {"FeatureGates": 1}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ReadConfigz("c.json", data)
		checkRead(t, "c.json", cfg, err)
		if err == nil && cfg.FeatureGates == nil {
			t.Fatal("nil FeatureGates")
		}
	})
}

func FuzzReadCrictl(f *testing.F) {
	addFiles(f, "crictl")
	for _, s := range []string{
		``, `{}`, `{"runtimeName": ""}`, `{"runtimeName": "x", "runtimeApiVersion": 2}`,
		"Version:  0.1.0\nRuntimeName:  containerd\n", `{"runtimeName": "containerd", "runtimeApiVersion": "v1"`,
		// crictl version's own lines, YAML, and what a wrong command prints.
		"Version:  0.1.0\r\nRuntimeName:  containerd\r\nRuntimeVersion:  1.6.20~ds1\r\nRuntimeApiVersion:  v1\r\n",
		"RuntimeName: \"cri-o\"\nRuntimeApiVersion: 'v1'\nRuntimeName: x\n", "---\nruntimeName: containerd\nruntimeApiVersion:\n",
		"Incorrect Usage: flag provided but not defined: -o\n", "time=\"x\" level=warning msg=\"y\"\nRuntimeName:\tdocker\nRuntimeApiVersion: v1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rt, err := ReadCrictl("v.json", data)
		checkRead(t, "v.json", rt, err)
		if err == nil && strings.TrimSpace(rt.Name) == "" {
			t.Fatalf("a runtime without a name: %+v", rt)
		}
	})
}

func FuzzReadMetrics(f *testing.F) {
	addFiles(f, "metrics")
	stripped, _ := filepath.Glob(filepath.Join("testdata", "metrics", "*.txt"))
	for _, file := range stripped {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(withoutComments(data))
	}
	for _, s := range []string{
		``, interval, interval + "kubelet_pleg_discard_events NaN\n", interval + "kubelet_pleg_discard_events",
		interval + "kubernetes_build_info{git_version=\"v1.36.1\\nx\"} 1\nkubernetes_build_info{git_version=\"v1\"} 1\n",
		"# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_count -1\n",
		"# TYPE kubelet_pleg_last_seen_seconds summary\nkubelet_pleg_last_seen_seconds{quantile=\"0.5\"} 1\n",
		"{\"__name__\"=\"kubelet_pleg_discard_events\"} 1\n",
		// The capture's time, and the runtime's calls by operation type.
		"# scraped at 2026-12-03T06:48:02Z\n" + interval, "# scraped at 2026-12-03T06:48:02Z\n# scraped at x\n" + interval,
		"# scraped at 9999-12-31T23:59:59.999999999-23:59\n" + interval, "# scraped at \n# TYPE kubelet_pleg_last_seen_seconds gauge\nkubelet_pleg_last_seen_seconds 0\n",
		interval + "# TYPE kubelet_runtime_operations_errors_total counter\nkubelet_runtime_operations_errors_total{operation_type=\"list_podsandbox\"} -1\n",
		interval + "# TYPE kubelet_runtime_operations_duration_seconds histogram\nkubelet_runtime_operations_duration_seconds_bucket{operation_type=\"status\",le=\"1\"} 3\nkubelet_runtime_operations_duration_seconds_count{operation_type=\"status\"} 2\n",
		interval + "# TYPE kubelet_runtime_operations_total gauge\nkubelet_runtime_operations_total{operation_type=\"\"} 1\nkubelet_runtime_operations_total 2\n",
		// Histograms whose TYPE lines grep -v '^#' stripped, and counts
		// that are not whole.
		withoutCommentsText(interval), "kubelet_pleg_relist_interval_seconds_count 4\nkubelet_pleg_relist_interval_seconds_sum{a=\"\\n\"} 1\n",
		"kubelet_pleg_relist_interval_seconds_bucket{le=\"x\"} 1\nkubelet_pleg_relist_interval_seconds_sum 1\nkubelet_pleg_relist_interval_seconds_count 1\n",
		"kubelet_runtime_operations_duration_seconds_bucket{operation_type=\"status\",le=\"1\"} 3\nkubelet_runtime_operations_duration_seconds_sum{operation_type=\"status\"} 2\nkubelet_runtime_operations_duration_seconds_count{operation_type=\"status\"} 2.5\n" + interval,
		"# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 0.5\nkubelet_pleg_relist_interval_seconds_count 3599.9\n",
		// Captures that cannot be one kubelet's scrape (issue 42): a
		// series twice (labels in another order, quoted commas and
		// braces), a relist before the process start, +Inf below a bucket
		// or not the count, more errors than calls, gauges no kubelet
		// writes, malformed capture-time lines, times a duration cannot span.
		interval + "kubelet_runtime_operations_total{a=\"x,}\",operation_type=\"status\"} 1\nkubelet_runtime_operations_total{operation_type=\"status\" , a=\"x,}\",} 1\n",
		interval + "kubelet_runtime_operations_total{a=\"\\\"\"} 1\nkubelet_runtime_operations_total{a=\"\\\"\"} 1\n",
		"# scraped at 2026-12-03T06:48:02Z\nprocess_start_time_seconds 1.7962804005e+09\nkubelet_pleg_last_seen_seconds 1.7962803e+09\n" + interval,
		"process_start_time_seconds 1e300\nkubelet_pleg_last_seen_seconds 1.7962803e+09\n" + interval,
		"# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 4\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 3\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 4\n",
		interval + "kubelet_runtime_operations_total{operation_type=\"status\"} 3\nkubelet_runtime_operations_errors_total{operation_type=\"status\"} 1e308\n",
		interval + "kubelet_pleg_last_seen_seconds 1\n", interval + "kubelet_pleg_last_seen_seconds 2.5e11\n",
		"# Scraped At 2026-12-03T06:48:02Z\n" + interval, "#scraped\n" + interval, "# scraped at  2026-12-03T06:48:02Z\r\n" + interval,
		"# scraped at 9999-12-31T23:59:59Z\nprocess_start_time_seconds 1401580800\nkubelet_pleg_last_seen_seconds 1401580800\n" + interval,
		"# scraped at 2014-06-01T00:00:00Z\nprocess_start_time_seconds 253402300799\nkubelet_pleg_last_seen_seconds 253402300799\n" + interval,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMetrics("m.txt", data)
		checkRead(t, "m.txt", m, err)
		if err != nil {
			return
		}
		for _, h := range []*Histogram{m.RelistInterval, m.RelistDuration, m.EventLatency} {
			if h == nil {
				continue
			}
			if h.Count > 0 != (h.Mean != nil) || h.Mean != nil && (math.IsNaN(*h.Mean) || *h.Mean < 0) {
				t.Fatalf("histogram %+v", h)
			}
		}
		// Whatever parses, the rules decide coherently, for each design
		// and with a runtime that cannot stream; the health too, at the
		// capture's time and without one.
		for _, g := range []Gate{gateUnset(), gateSet(true)} {
			for _, p := range []Periods{shipped, release36, release37} {
				checkDecision(t, Decide(Input{Gate: g, Periods: p, Metrics: *m}))
				checkDecision(t, Decide(Input{Gate: g, Periods: p, Metrics: *m, Runtime: debian16, Health: rule36, At: m.ScrapedAt}))
				checkDecision(t, Decide(Input{Gate: g, Periods: p, Metrics: *m, Health: rule37, At: m.ScrapedAt}))
				// The same scrape as the last that answered, before a
				// metrics request that timed out at its time.
				hung := &MetricsFailure{Error: "context deadline exceeded", Kind: FailureTimeout, At: m.ScrapedAt}
				checkDecision(t, Decide(Input{Gate: g, Periods: p, Metrics: *m, Health: rule36, At: m.ScrapedAt, Failure: hung, LastScrape: true, ConfigzAnswered: true}))
			}
		}
	})
}

func checkDecision(t *testing.T, d Decision) {
	t.Helper()
	disagree := false
	for _, r := range d.Reasons {
		if r.Claim == "" || r.Evidence == "" {
			t.Fatalf("a reason without a claim or evidence: %+v", r)
		}
		disagree = disagree || r.Agrees != nil && !*r.Agrees
	}
	switch {
	case d.Configured != Generic && d.Configured != Evented:
		t.Fatalf("configured %q", d.Configured)
	case d.Expected != Generic && d.Expected != Evented && d.Expected != GenericWithEventHints && d.Expected != FellBack:
		t.Fatalf("expected %q", d.Expected)
	case d.Expected != Generic && d.Configured != Evented:
		t.Fatalf("expected %q with the gate configuring %q", d.Expected, d.Configured)
	case disagree && d.Verdict != Inconsistent, !disagree && d.Verdict != d.Expected:
		t.Fatalf("verdict %q, expected %q, a reason disagrees: %t", d.Verdict, d.Expected, disagree)
	}
	// A reason that agrees points to the mode the gate configures (the
	// gate's own reasons) or to the PLEG at work in the expected verdict.
	atWork := Generic
	if d.Expected == Evented || d.Expected == GenericWithEventHints {
		atWork = Evented
	}
	for _, r := range d.Reasons {
		if r.Agrees != nil && *r.Agrees && r.Points != "" && r.Points != d.Configured && r.Points != atWork {
			t.Fatalf("%q agrees, pointing to %q; configured %q, expected %q", r.Claim, r.Points, d.Configured, d.Expected)
		}
	}
	if _, err := json.Marshal(d.Reasons); err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(d.Relist); err != nil {
		t.Fatal(err)
	}
	checkHealth(t, d.Health)
}

// checkHealth checks what every health must be: a state, a message for
// unhealthy and only then, a cause only for unhealthy or at-risk, an
// elapsed time only with a time last seen, and evidence.
func checkHealth(t *testing.T, h Health) {
	t.Helper()
	switch {
	case h.State != Healthy && h.State != Unhealthy && h.State != AtRisk && h.State != HealthUnknown:
		t.Fatalf("health state %q", h.State)
	case (h.State == Unhealthy) != (h.Message != ""):
		t.Fatalf("health %s with message %q", h.State, h.Message)
	case h.Cause != "" && h.State != Unhealthy && h.State != AtRisk:
		t.Fatalf("health %s with cause %q", h.State, h.Cause)
	case h.Elapsed != "" && h.Since == nil, len(h.Evidence) == 0:
		t.Fatalf("health %+v", h)
	case h.Runtime != RuntimeAnswering && h.Runtime != RuntimeDown && h.Runtime != RuntimeSlow && h.Runtime != RuntimeHung && h.Runtime != RuntimeUnanswered && h.Runtime != RuntimeUnknown:
		t.Fatalf("runtime state %q", h.Runtime)
	case (h.Latency != nil) != (h.Runtime == RuntimeSlow):
		t.Fatalf("runtime %s with latency %+v", h.Runtime, h.Latency)
	}
	if _, err := json.Marshal(h); err != nil {
		t.Fatal(err)
	}
}

func FuzzRelease(f *testing.F) {
	for _, s := range []string{"v1.36.1", "v1.36.1-eks-4f4795d", "1.30.4+k3s1", "v1.37.0-alpha.1.120+0123abcd", "v1.36", "latest"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		r, err := Release(v)
		if err != nil {
			return
		}
		// A release is its own release, in the form release.ParseVersion takes.
		if again, err := Release(r); err != nil || again != r || !strings.HasPrefix(r, "v1.") {
			t.Fatalf("Release(%q) = %q; Release(%q) = %q, %v", v, r, r, again, err)
		}
	})
}

func FuzzReadNode(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{"kind": "Node"}`, nodeJSON("False", "KubeletNotReady", "container runtime is down"),
		`{"kind": "List", "items": [{"kind": "List", "items": []}]}`, `{"kind": "Node", "status": {"conditions": [{"type": "Ready"}, {"type": "Ready"}]}}`,
		`{"kind": "Node", "status": {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "x"}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ReadNode("node.json", data)
		checkRead(t, "node.json", n, err)
		if n != nil {
			// What a Ready message says is read without failing, whatever it holds.
			if n.Ready != nil {
				ReadReady(n.Ready.Message, words.Words)
			}
		}
	})
}

// fuzzLastGood is a last scrape that answered, its PLEG last seen at
// 06:45:01Z, and fuzzLadder v1.37's ladder inputs, for the dark path's
// fuzzing.
var (
	fuzzSeen     = float64(time.Date(2026, 12, 3, 6, 45, 1, 0, time.UTC).Unix())
	fuzzScraped  = time.Date(2026, 12, 3, 6, 45, 2, 0, time.UTC)
	fuzzLastGood = Metrics{KubeletVersion: "v1.37.2", LastSeen: &fuzzSeen, ScrapedAt: &fuzzScraped}
	fuzzLadder   = ladder.Inputs{ScrapeCalls: 4, RelistListCalls: 2, PodCalls: 3, StatusCalls: 1, NodeStatusCalls: 1, RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute,
		StatusPeriod: 5 * time.Second, RuntimeDown: 30 * time.Second, NodeStatusFrequency: 10 * time.Second, Deadline: 2 * time.Minute, ScrapeTimeout: 10 * time.Second}
)

func FuzzReadMetricsFailure(f *testing.F) {
	for _, s := range []string{
		"", "boom\n", "# scraped at 2026-12-03T06:45:01Z\n# waited 45s\ncontext deadline exceeded\n", "# waited 1h\r\nx\r\n", "#\n",
		"# scraped at 2026-12-03T06:52:01Z\n# waited 10s\nGet \"https://10.0.0.1:10250/metrics\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)\n",
		"# scraped at 0001-01-01T00:00:00Z\ndial tcp: lookup n1: i/o timeout (Client.Timeout exceeded while awaiting headers)\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMetricsFailure("metrics-error.txt", data)
		checkRead(t, "metrics-error.txt", m, err)
		if err == nil {
			// What Format writes, ReadMetricsFailure reads back the same.
			again, err := ReadMetricsFailure("again", m.Format())
			if err != nil || again.Error != m.Error || again.Waited != m.Waited || again.Kind != m.Kind {
				t.Fatalf("round trip of %q: %+v, %v", data, again, err)
			}
			// Whatever it says and whenever it was, the dark path decides
			// within its states, and never unhealthy on a Ready node.
			if reach, why := m.Reach(); why == "" || reach != ReachedHandler && reach != ReachedNever && reach != ReachedUnknown {
				t.Fatalf("Reach of %q: %s, %q", m.Error, reach, why)
			}
			at := time.Date(2026, 12, 3, 6, 50, 0, 0, time.UTC)
			if m.At != nil {
				at = *m.At
			}
			last := fuzzLastGood
			node := &NodeStatus{Name: "n1", KubeletVersion: "v1.37.2", Ready: &Condition{Status: "True", Message: "kubelet is posting ready status"}}
			h := Decide(Input{Gate: gateSet(false), Periods: release37, Health: rule37, At: &at, AtFrom: "-at", Failure: m, Metrics: last, LastScrape: true,
				ConfigzAnswered: true, Node: node, RequestTimeout: 2 * time.Minute, Ladder: &fuzzLadder, LadderFrom: "fuzz"}).Health
			checkHealth(t, h)
			if h.State == Unhealthy {
				t.Fatalf("unhealthy on a Ready node from %q:\n%s", data, strings.Join(h.Evidence, "\n"))
			}
		}
	})
}
