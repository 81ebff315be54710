package nodeverdict

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/ladder"
)

// ladder37 is a ladder's inputs shaped like v1.37's source: a scrape
// makes four CRI calls one after another, a relist lists twice and asks
// three statuses per changed pod, the status loop asks Status every 5s
// and declares the runtime down 30s after its last success, the node
// status update waits on Version before its Ready setter, every 10s;
// calls time out after 2m, a scrape after 10s. A hang turns Ready False
// 2m0s to 2m10s after it began (the update in flight waits the 2m on
// Version, past the 30s, and reads the runtime down).
var ladder37 = ladder.Inputs{
	ScrapeCalls: 4, RelistListCalls: 2, PodCalls: 3, StatusCalls: 1, NodeStatusCalls: 1,
	RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute, StatusPeriod: 5 * time.Second, RuntimeDown: 30 * time.Second,
	NodeStatusFrequency: 10 * time.Second, Deadline: 2 * time.Minute, ScrapeTimeout: 10 * time.Second,
}

// lastGoodAt is when the last scrape that answered was taken, in the
// hand-written captures below: the dark began after it.
const lastGoodAt = "2026-12-03T06:45:02Z"

// The failed requests' words: a timeout awaiting the kubelet's answer, as
// Go's net/http says it, and ones that never reached the kubelet.
const (
	awaitingHeaders = `Get "https://10.0.0.1:10250/metrics": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
	dialTimeout     = `Get "https://10.0.0.1:10250/metrics": dial tcp 10.0.0.1:10250: i/o timeout (Client.Timeout exceeded while awaiting headers)`
)

// lastGoodScrape is a v1.37.2 kubelet's scrape at lastGoodAt, its process
// started an hour before, its PLEG last seen a second before; ops adds
// kubelet_runtime_operations_* lines.
func lastGoodScrape(t *testing.T, ops string) Metrics {
	t.Helper()
	at := mustTime(t, lastGoodAt)
	text := fmt.Sprintf(`# scraped at %s
# TYPE kubernetes_build_info gauge
kubernetes_build_info{git_version="v1.37.2",major="1",minor="37"} 1
# TYPE process_start_time_seconds gauge
process_start_time_seconds %d
# TYPE kubelet_pleg_last_seen_seconds gauge
kubelet_pleg_last_seen_seconds %d
%s`, lastGoodAt, at.Add(-time.Hour).Unix(), at.Add(-time.Second).Unix(), ops)
	m, err := ReadMetrics("last-good.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return *m
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// readyNode is Node object n1 of a v1.37.2 kubelet, read as kubectl
// prints it, its Ready condition given, changed at transition and last
// posted at heartbeat.
func readyNode(t *testing.T, version, status, message string, transition, heartbeat time.Time) *NodeStatus {
	t.Helper()
	text := fmt.Sprintf(`{"kind": "Node", "metadata": {"name": "n1"},
 "status": {"nodeInfo": {"kubeletVersion": %q, "containerRuntimeVersion": "containerd://2.1.4"},
  "conditions": [{"type": "Ready", "status": %q, "reason": "KubeletReady", "message": %q,
   "lastHeartbeatTime": %q, "lastTransitionTime": %q}]}}`, version, status, message, heartbeat.Format(time.RFC3339), transition.Format(time.RFC3339))
	n, err := ReadNode("node.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rule37Wired is v1.37's health rule, with where its Ready condition
// carries the failed checks.
var rule37Wired = func() HealthRule {
	r := rule37
	r.ReadyWiring = `the kubelet words a failed check "%s is not healthy: %v" (pkg/kubelet/runtime.go:133) and hands its runtime errors to the Ready condition at pkg/kubelet/kubelet_node_status.go:749 (nodestatus.ReadyCondition)`
	return r
}()

// darkInput is a v1.37.2 node's failed metrics request at, after the
// last scrape that answered (nil: none), with its Node object (nil: none)
// and the ladder's inputs (nil: the index holds none).
func darkInput(failure string, at time.Time, last *Metrics, node *NodeStatus, lad *ladder.Inputs) Input {
	g := gateSet(false)
	g.KubeletVersion = "v1.37.2"
	in := Input{Gate: g, Periods: release37, Health: rule37Wired, At: &at, AtFrom: "the failed metrics request's time",
		Failure: NewMetricsFailure(failure, 10*time.Second, &at), ConfigzAnswered: true, Node: node,
		RequestTimeout: 2 * time.Minute, StatusFrequency: 10 * time.Second, Ladder: lad,
		LadderFrom: "the source's ladder, runtimeRequestTimeout and nodeStatusUpdateFrequency from configz"}
	if lad == nil {
		in.LadderFrom, in.LadderWhy = "", "plegvet's index holds no latency ladder for v1.37.2"
	}
	if last != nil {
		in.Metrics, in.LastScrape = *last, true
	}
	return in
}

func evidence(h Health) string { return strings.Join(h.Evidence, "\n") }

// A runtime slow at 6s per call, as measured on a real v1.37.2 kubelet
// (issue 54): every /metrics request times out from the first, the node
// stays Ready for the six minutes, the PLEG healthy. Never unhealthy (the
// last good scrape's gauge is no word on a relist it cannot see); the
// runtime unanswered until a hang would have turned Ready False (2m10s
// after the last scrape that answered), slow after, its latency bounded
// by the ladder and placed on it.
func TestDarkSlowRuntime(t *testing.T) {
	lastGood := mustTime(t, lastGoodAt)
	last := lastGoodScrape(t, "")
	l := ladder.Compute(ladder37, 0)
	for _, after := range []time.Duration{10 * time.Second, time.Minute, 2*time.Minute + 10*time.Second, 2*time.Minute + 11*time.Second, 3*time.Minute + 10*time.Second, 4 * time.Minute, 6 * time.Minute} {
		t.Run(after.String(), func(t *testing.T) {
			at := lastGood.Add(after)
			node := readyNode(t, "v1.37.2", "True", "kubelet is posting ready status", lastGood.Add(-time.Hour), at.Add(-3*time.Second))
			h := Decide(darkInput(awaitingHeaders, at, &last, node, &ladder37)).Health
			all := evidence(h)
			if h.State != AtRisk || h.Message != "" {
				t.Errorf("state %s, message %q; want at-risk, no message\n%s", h.State, h.Message, all)
			}
			for _, want := range []string{"the kubelet posts its node Ready", "nodestatus.ReadyCondition", "the latency ladder (", "metrics-dark from"} {
				if !strings.Contains(all, want) {
					t.Errorf("evidence lacks %q:\n%s", want, all)
				}
			}
			if after <= 2*time.Minute+10*time.Second {
				if h.Runtime != RuntimeUnanswered || h.Latency != nil || !strings.Contains(all, "if the node is still Ready at 2026-12-03T06:47:12Z, the runtime answers, slowly") {
					t.Errorf("runtime %s, latency %+v; want unanswered, told apart at 06:47:12\n%s", h.Runtime, h.Latency, all)
				}
				return
			}
			if h.Runtime != RuntimeSlow || h.Latency == nil {
				t.Fatalf("runtime %s; want slow\n%s", h.Runtime, all)
			}
			dark, down := l.Rung(ladder.RungMetricsDark), l.Rung(ladder.RungRuntimeDown)
			on, next := l.Place(time.Duration(dark.Seconds * float64(time.Second)))
			if got := h.Latency; got.MinSeconds != dark.Seconds || got.MaxSeconds != down.Seconds || got.Rung == nil || *got.Rung != *on || got.Next == nil || *got.Next != *next {
				t.Errorf("latency %+v; want from the %s rung to the %s rung, on %+v, next %+v", got, dark.Name, down.Name, on, next)
			}
			if !strings.Contains(h.Cause, "answers slowly") || !strings.Contains(h.Cause, "next: "+next.Name+" from "+next.Latency) {
				t.Errorf("cause %q", h.Cause)
			}
		})
	}
	// From plegvet's index, which holds no ladder: still never unhealthy,
	// never hung, and no slow claimed without the bound.
	at := lastGood.Add(6 * time.Minute)
	node := readyNode(t, "v1.37.2", "True", "kubelet is posting ready status", lastGood.Add(-time.Hour), at)
	h := Decide(darkInput(awaitingHeaders, at, &last, node, nil)).Health
	if all := evidence(h); h.State != AtRisk || h.Runtime != RuntimeUnanswered || !strings.Contains(all, "when a hung runtime turns Ready False is not bounded: plegvet's index holds no latency ladder for v1.37.2; known: runtimeRequestTimeout 2m0s (configz), nodeStatusUpdateFrequency 10s (configz), \"container runtime is down\" after 30s") {
		t.Errorf("without a ladder: %s, runtime %s\n%s", h.State, h.Runtime, all)
	}
}

// A hung runtime (containerd frozen): Ready turns False for the runtime
// 2m4s after the last scrape that answered, within a hang's window:
// hung, unhealthy in the kubelet's words. Turned False sooner than a hang
// can, or later than a hang allows, it is slow: calls that wait (the
// scrape timed out) but answer before their deadline.
func TestDarkHungRuntime(t *testing.T) {
	lastGood := mustTime(t, lastGoodAt)
	last := lastGoodScrape(t, "")
	for _, tc := range []struct {
		name              string
		turned, at        time.Duration
		runtime, says     string
		latencyFromRungOf string
	}{
		{"False at +124s", 124 * time.Second, 130 * time.Second, RuntimeHung, "2m4s after the last scrape that answered (2026-12-03T06:45:02Z): within the time a runtime hung since then takes to turn it (a hung runtime turns Ready False 2m0s to 2m10s after the hang began", ""},
		{"False at +124s, read at +4m", 124 * time.Second, 4 * time.Minute, RuntimeHung, "): hung", ""},
		{"False at +40s", 40 * time.Second, time.Minute, RuntimeSlow, "sooner than a runtime hung since then can turn it", ladder.RungRuntimeDown},
		{"False at +6m", 6 * time.Minute, 6*time.Minute + 10*time.Second, RuntimeSlow, "later than a runtime hung since then turns it", ladder.RungRuntimeDown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := lastGood.Add(tc.at)
			node := readyNode(t, "v1.37.2", "False", "container runtime is down", lastGood.Add(tc.turned), lastGood.Add(tc.turned))
			h := Decide(darkInput(awaitingHeaders, at, &last, node, &ladder37)).Health
			all := evidence(h)
			if h.State != Unhealthy || h.Message != "container runtime is down" || h.Runtime != tc.runtime || !strings.Contains(all, tc.says) {
				t.Errorf("state %s, message %q, runtime %s; want unhealthy, the kubelet's words, %s, evidence saying %q:\n%s", h.State, h.Message, h.Runtime, tc.runtime, tc.says, all)
			}
			if tc.runtime == RuntimeHung && !strings.Contains(h.Cause, "(runtimeRequestTimeout 2m0s, from configz)") {
				t.Errorf("cause %q", h.Cause)
			}
			if tc.latencyFromRungOf != "" {
				r := ladder.Compute(ladder37, 0).Rung(tc.latencyFromRungOf)
				if h.Latency == nil || h.Latency.MinSeconds != r.Seconds || h.Latency.MaxSeconds != 120 || h.Latency.Rung == nil || h.Latency.Rung.Name != tc.latencyFromRungOf {
					t.Errorf("latency %+v; want from the %s rung (%s) to the deadline, on it", h.Latency, r.Name, r.Latency)
				}
			}
		})
	}
}

// One held call (a hung mount): the relist stalls, /metrics is dark, the
// node turns NotReady for the PLEG, not the runtime: unhealthy in the
// kubelet's words; the runtime is not taken for hung (its status calls
// still answer within the runtime-down threshold).
func TestDarkOneCallHeld(t *testing.T) {
	lastGood := mustTime(t, lastGoodAt)
	last := lastGoodScrape(t, "")
	msg := "PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s"
	at := lastGood.Add(200 * time.Second)
	node := readyNode(t, "v1.37.2", "False", msg, lastGood.Add(185*time.Second), lastGood.Add(195*time.Second))
	h := Decide(darkInput(awaitingHeaders, at, &last, node, &ladder37)).Health
	all := evidence(h)
	if h.State != Unhealthy || h.Message != msg || h.Runtime != RuntimeUnanswered || !strings.Contains(all, "the runtime is not hung whole: the relist's own calls are held") || !strings.Contains(all, "the kubelet declared its PLEG unhealthy, last seen active 3m5s ago") {
		t.Errorf("state %s, message %q, runtime %s:\n%s", h.State, h.Message, h.Runtime, all)
	}
}

// A request that never reached the kubelet (its name not resolved, its
// connection not made, its TLS handshake or a proxy's connection timed
// out) says nothing of the runtime, even with configz answered.
func TestDarkFailureNotReached(t *testing.T) {
	lastGood := mustTime(t, lastGoodAt)
	last := lastGoodScrape(t, "")
	at := lastGood.Add(6 * time.Minute)
	for _, text := range []string{
		dialTimeout,
		`Get "https://node1:10250/metrics": dial tcp: lookup node1 on 10.96.0.10:53: i/o timeout`,
		`Get "https://10.0.0.1:10250/metrics": net/http: TLS handshake timeout`,
		`Get "https://10.0.0.1:10250/metrics": proxyconnect tcp: dial tcp 10.0.0.9:3128: i/o timeout`,
		`Get "https://10.0.0.1:10250/metrics": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)`,
	} {
		node := readyNode(t, "v1.37.2", "True", "kubelet is posting ready status", lastGood.Add(-time.Hour), at)
		h := Decide(darkInput(text, at, &last, node, &ladder37)).Health
		all := evidence(h)
		if h.Runtime != RuntimeUnknown || h.State != AtRisk || strings.Contains(h.Cause, "container runtime") || !strings.Contains(all, "it failed before it reached the kubelet") {
			t.Errorf("%s: state %s, runtime %s, cause %q:\n%s", text, h.State, h.Runtime, h.Cause, all)
		}
	}
}

func TestFailureReach(t *testing.T) {
	for text, want := range map[string]string{
		awaitingHeaders: ReachedHandler,
		`Get "https://127.0.0.1:10250/metrics": net/http: timeout awaiting response headers`: ReachedHandler,
		dialTimeout:                            ReachedNever,
		`dial tcp: lookup node1: no such host`: ReachedNever,
		`Get "https://127.0.0.1:10250/metrics": context deadline exceeded`:                                         ReachedUnknown,
		`the server was unable to return a response in the time allotted, but may still be processing the request`: ReachedUnknown,
		`dial tcp 127.0.0.1:10250: connect: connection refused`:                                                    ReachedNever,
	} {
		if got, why := NewMetricsFailure(text, 0, nil).Reach(); got != want || why == "" {
			t.Errorf("Reach(%q) = %s (%s); want %s", text, got, why, want)
		}
	}
}

// Inputs that contradict each other are named, one line each: the Node
// object's kubelet version against the scrape's, its name against the
// node the captures name, its heartbeat after the capture.
func TestDarkContradictions(t *testing.T) {
	lastGood := mustTime(t, lastGoodAt)
	last := lastGoodScrape(t, "")
	at := lastGood.Add(time.Minute)
	node := readyNode(t, "v1.36.5", "True", "kubelet is posting ready status", lastGood.Add(-time.Hour), at.Add(time.Minute))
	in := darkInput(awaitingHeaders, at, &last, node, &ladder37)
	in.CaptureNode, in.CaptureNodeFrom = "n2", "kubectl pleg --save's n2.configz.json"
	h := Decide(in).Health
	var lines []string
	for _, e := range h.Evidence {
		if strings.HasPrefix(e, "contradicting inputs: ") {
			lines = append(lines, e)
		}
	}
	want := []string{
		"the Node object n1 says kubelet v1.36.5 (status.nodeInfo.kubeletVersion), the last scrape that answered's kubernetes_build_info says v1.37.2",
		"the captures are of node n2 (kubectl pleg --save's n2.configz.json), the Node object is n1",
		"the Ready condition's lastHeartbeatTime 2026-12-03T06:47:02Z is after the capture's time 2026-12-03T06:46:02Z",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d contradictions; want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %q; want it to say %q", i, lines[i], w)
		}
	}
}

// The dark path holds the captures' times as the answering path does: a
// capture's time before the last scrape that answered, a last scrape
// taken before its own kubelet started, a capture time no duration
// reaches, a gauge the evented PLEG overwrites; and without a Node
// object the health is not extrapolated from the last scrape's gauge.
func TestDarkTimes(t *testing.T) {
	lastGood := mustTime(t, lastGoodAt)
	last := lastGoodScrape(t, "")
	ready := func(at time.Time) *NodeStatus {
		return readyNode(t, "v1.37.2", "True", "kubelet is posting ready status", lastGood.Add(-time.Hour), at)
	}
	beforeStart := last
	early := lastGood.Add(-2 * time.Hour)
	beforeStart.ScrapedAt = &early
	for _, tc := range []struct {
		name  string
		in    func() Input
		state string
		says  string
		// seen: the last scrape's gauge is to be trusted.
		seen bool
	}{
		{"capture before the last scrape", func() Input {
			at := lastGood.Add(-30 * time.Second)
			return darkInput(awaitingHeaders, at, &last, ready(at), &ladder37)
		}, HealthUnknown, "is 30s before the last scrape that answered (2026-12-03T06:45:02Z)", false},
		{"last scrape before its process started", func() Input {
			at := lastGood.Add(5 * time.Minute)
			return darkInput(awaitingHeaders, at, &beforeStart, ready(at), &ladder37)
		}, HealthUnknown, "1h0m0s before its own kubelet process started", false},
		{"capture in the year 9999", func() Input {
			at := mustTime(t, "9999-12-31T23:59:59Z")
			return darkInput(awaitingHeaders, at, &last, ready(lastGood), &ladder37)
		}, HealthUnknown, "(about 292 years) apart, beyond what a duration holds", false},
		{"no Node object, last relist 4m before", func() Input {
			return darkInput(awaitingHeaders, lastGood.Add(4*time.Minute), &last, nil, &ladder37)
		}, HealthUnknown, "no Node object is given (-node): while /metrics is dark the PLEG's health is the kubelet's own word", true},
		{"v1.36, EventedPLEG on: the gauge proves nothing", func() Input {
			at := lastGood.Add(2 * time.Minute)
			in := darkInput(awaitingHeaders, at, &last, ready(at), &ladder37)
			in.Gate, in.Periods, in.Health = gateOnAt("v1.37.2"), release36, rule36
			return in
		}, AtRisk, "proves nothing about the relist with EventedPLEG on", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := Decide(tc.in()).Health
			all := evidence(h)
			if h.State != tc.state || (h.Since != nil) != tc.seen || h.Elapsed != "" || h.Runtime == RuntimeSlow || h.Runtime == RuntimeHung || !strings.Contains(all, tc.says) {
				t.Errorf("state %s, since %v, elapsed %q, runtime %s; want %s, no time since, evidence saying %q:\n%s", h.State, h.Since, h.Elapsed, h.Runtime, tc.state, tc.says, all)
			}
		})
	}
}

// From a scrape that answered, the kubelet's own call durations give a
// slow runtime's latency: list calls of 3.05s to 7.63s, below their 2m
// deadline, placed on the ladder.
func TestAnsweredSlowRuntime(t *testing.T) {
	m := healthCapture(t, 2*time.Second, 0, `# TYPE kubelet_runtime_operations_duration_seconds histogram
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_containers",le="1.220703125"} 700
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_containers",le="3.0517578125"} 700
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_containers",le="7.62939453125"} 732
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_containers",le="+Inf"} 732
kubelet_runtime_operations_duration_seconds_sum{operation_type="list_containers"} 200
kubelet_runtime_operations_duration_seconds_count{operation_type="list_containers"} 732
`)
	h := Decide(Input{Gate: gateSet(false), Periods: release36, Health: rule36, Metrics: m, At: m.ScrapedAt, AtFrom: "-at", RequestTimeout: 2 * time.Minute, Ladder: &ladder37, LadderFrom: "the source's ladder"}).Health
	on, next := ladder.Compute(ladder37, 0).Place(3051757812 * time.Nanosecond)
	if h.State != Healthy || h.Runtime != RuntimeSlow || h.Latency == nil || h.Latency.MinSeconds != 3.0517578125 || h.Latency.MaxSeconds != 7.62939453125 ||
		h.Latency.Rung == nil || *h.Latency.Rung != *on || h.Latency.Next == nil || *h.Latency.Next != *next {
		t.Errorf("state %s, runtime %s, latency %+v; want healthy, slow, (3.05s, 7.63s] on %+v, next %+v\n%s", h.State, h.Runtime, h.Latency, on, next, evidence(h))
	}
	if !strings.Contains(evidence(h), "32 of 732 list_containers calls took more than 1s, below 0.9 of their deadline (runtimeRequestTimeout 2m0s)") {
		t.Errorf("evidence:\n%s", evidence(h))
	}
}

// A real v1.37.2 kubelet whose containerd was frozen (SIGSTOP) for 4m25s
// (testdata/real/v1.37.2/runtime-hung, kept by tools/kubeletcheck): every
// /metrics request timed out awaiting headers (after the harness' 3s),
// configz answered, Ready turned False for the runtime 2m2.8s after the
// last scrape that answered, and named the PLEG too 2m9s later. Each
// Node object is decided at the moment the harness read it, with the
// failed request's words (every request failed alike meanwhile):
// unanswered while still Ready, hung once Ready False came within a
// hang's window.
func TestDarkRealHung(t *testing.T) {
	dir := filepath.Join("testdata", "real", "v1.37.2", "runtime-hung")
	failure := readFile(t, dir, "metrics-error.txt", ReadMetricsFailure)
	last := readFile(t, dir, "last-good.txt", ReadMetrics)
	cfg := readFile(t, dir, "configz.json", ReadConfigz)
	lad := ladder37
	lad.ScrapeTimeout = failure.WaitedFor()
	for _, tc := range []struct {
		node, at       string
		state, runtime string
		message, says  string
	}{
		{"node-ready.json", "2026-12-03T23:15:25.208109715Z", AtRisk, RuntimeUnanswered, "", "if the node is still Ready at 2026-12-03T23:17:32Z, the runtime answers, slowly"},
		{"node-false.json", "2026-12-03T23:17:28.572555208Z", Unhealthy, RuntimeHung, "container runtime is down", "Ready turned False for the runtime at 2026-12-03T23:17:25Z, 2m2.772s after the last scrape that answered"},
		{"node-pleg.json", "2026-12-03T23:19:37.894357209Z", Unhealthy, RuntimeHung, "[container runtime is down, PLEG is not healthy: pleg was last seen active 4m13.847427748s ago; threshold is 3m0s]", "the kubelet declared its PLEG unhealthy, last seen active 4m13.847427748s ago"},
	} {
		t.Run(tc.node, func(t *testing.T) {
			at := mustTime(t, tc.at)
			node := readFile(t, dir, tc.node, ReadNode)
			g := gateSet(false)
			g.Explicit, g.KubeletVersion = false, last.KubeletVersion
			in := Input{Gate: g, Periods: release37, Health: rule37Wired, At: &at, AtFrom: "-at", Failure: failure, Metrics: *last, LastScrape: true, ConfigzAnswered: true,
				Node: node, RequestTimeout: cfg.RequestTimeout(), StatusFrequency: cfg.StatusFrequency(), Ladder: &lad, LadderFrom: "v1.37.2's ladder"}
			h := Decide(in).Health
			all := evidence(h)
			if h.State != tc.state || h.Runtime != tc.runtime || h.Message != tc.message || !strings.Contains(all, tc.says) || strings.Contains(all, "contradicting") {
				t.Errorf("state %s, runtime %s, message %q; want %s, %s, %q, evidence saying %q:\n%s", h.State, h.Runtime, h.Message, tc.state, tc.runtime, tc.message, tc.says, all)
			}
		})
	}
}
