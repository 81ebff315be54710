package nodeverdict

import (
	"strings"
	"testing"
	"time"
)

func TestFailureKind(t *testing.T) {
	for text, want := range map[string]string{
		`Get "https://10.0.0.1:10250/metrics": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`: FailureTimeout,
		`the server was unable to return a response in the time allotted, but may still be processing the request`:         FailureTimeout,
		`Get "https://127.0.0.1:10250/metrics": net/http: timeout awaiting response headers`:                               FailureTimeout,
		`dial tcp 127.0.0.1:10250: i/o timeout`:                                               FailureTimeout,
		`error trying to reach service: dial tcp 10.0.0.1:10250: connect: connection refused`: FailureRefused,
		`read tcp 127.0.0.1:1->127.0.0.1:10250: read: connection reset by peer`:               FailureRefused,
		`nodes "n1" is forbidden: User "u" cannot get resource "nodes/proxy"`:                 FailureOther,
	} {
		if got := FailureKind(text); got != want {
			t.Errorf("FailureKind(%q) = %s; want %s", text, got, want)
		}
	}
}

func TestMetricsFailureRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 3, 6, 45, 1, 0, time.UTC)
	f := NewMetricsFailure("context deadline\n exceeded", 45*time.Second, &at)
	got, err := ReadMetricsFailure("metrics-error.txt", f.Format())
	if err != nil {
		t.Fatal(err)
	}
	if got.Error != "context deadline exceeded" || got.Kind != FailureTimeout || got.Waited != "45s" || got.At == nil || !got.At.Equal(at) || got.WaitedFor() != 45*time.Second {
		t.Errorf("round trip: %+v", got)
	}
	for _, tc := range []struct{ text, says string }{
		{"", "no error line"},
		{"# scraped at soon\nboom\n", `metrics-error.txt:1: "soon" is not an RFC 3339 time`},
		{"# waited -3s\nboom\n", `metrics-error.txt:1: "-3s" is not a positive duration`},
		{"boom\nbang\n", "metrics-error.txt:2: a second error line"},
		{"# note\nboom\n", `metrics-error.txt:1: an unknown comment "# note"`},
		{"# scraped at 2026-12-03T06:45:01Z\n# scraped at 2026-12-03T06:45:01Z\nx\n", "a second \"# scraped at\" line"},
	} {
		_, err := ReadMetricsFailure("metrics-error.txt", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v; want one line saying %q", tc.text, err, tc.says)
		}
	}
}

// nodeJSON is a Node object as kubectl prints it, its Ready condition
// given.
func nodeJSON(status, reason, message string) string {
	return `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
 "status": {"nodeInfo": {"kubeletVersion": "v1.37.2", "containerRuntimeVersion": "containerd://2.1.4"},
  "conditions": [{"type": "MemoryPressure", "status": "False"},
   {"type": "Ready", "status": "` + status + `", "reason": "` + reason + `", "message": "` + message + `",
    "lastHeartbeatTime": "2026-12-03T06:47:00Z", "lastTransitionTime": "2026-12-03T06:46:55Z"}]}}`
}

func TestReadNode(t *testing.T) {
	n, err := ReadNode("node.json", []byte(nodeJSON("False", "KubeletNotReady", "container runtime is down")))
	if err != nil {
		t.Fatal(err)
	}
	if n.Name != "n1" || n.KubeletVersion != "v1.37.2" || n.Ready == nil || n.Ready.Status != "False" || n.Ready.LastTransitionTime == nil {
		t.Errorf("ReadNode: %+v %+v", n, n.Ready)
	}
	list := `{"kind": "List", "items": [` + nodeJSON("True", "KubeletReady", "kubelet is posting ready status") + `]}`
	if n, err := ReadNode("list.json", []byte(list)); err != nil || n.Ready.Status != "True" {
		t.Errorf("a List of one: %v %+v", err, n)
	}
	for _, tc := range []struct{ text, says string }{
		{`{"kind": "Pod"}`, `node.json: kind "Pod"; want the Node object`},
		{`{"kind": "List", "items": []}`, "a List of 0 items"},
		{`{"kind": "Node",`, "node.json: line 1: unexpected end of JSON input"},
		{nodeJSON("Maybe", "", ""), `status "Maybe"`},
		{strings.Replace(nodeJSON("True", "", ""), "2026-12-03T06:46:55Z", "yesterday", 1), `lastTransitionTime "yesterday" is not an RFC 3339 time`},
	} {
		_, err := ReadNode("node.json", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: %v; want one line saying %q", tc.text, err, tc.says)
		}
	}
}

func TestReadReady(t *testing.T) {
	w := words.Words
	r := ReadReady("[container runtime is down, PLEG is not healthy: pleg was last seen active 3m9.000910986s ago; threshold is 3m0s]", w)
	if !r.RuntimeDown || !r.PLEGUnhealthy || r.Elapsed != "3m9.000910986s" || r.Threshold != "3m0s" {
		t.Errorf("ReadReady: %+v", r)
	}
	// Another release's words: the PLEG is not read as unhealthy from
	// words the source does not give.
	other := w
	other.CheckName, other.RuntimeDown = "Relister", "runtime gone"
	if r := ReadReady("[container runtime is down, PLEG is not healthy: pleg was last seen active 3m9s ago; threshold is 3m0s]", other); r.PLEGUnhealthy || r.RuntimeDown {
		t.Errorf("other words: %+v", r)
	}
}

// A scrape that answered: the Ready condition and the calls that took
// their whole deadline say what became of the runtime.
func TestRuntimeAnswered(t *testing.T) {
	at, _ := time.Parse(time.RFC3339, scrapedAt)
	down, err := ReadNode("node.json", []byte(nodeJSON("False", "KubeletNotReady", "container runtime is down")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name           string
		metrics        Metrics
		node           *NodeStatus
		timeout        time.Duration
		state, runtime string
	}{
		{"relisted 2s ago", healthCapture(t, 2*time.Second, 0, callsFine), nil, 2 * time.Minute, Healthy, RuntimeAnswering},
		{"relisted 20s ago, Ready says the runtime is down", healthCapture(t, 20*time.Second, 0, callsFine), down, 2 * time.Minute, Unhealthy, RuntimeDown},
		{"list calls took the deadline", healthCapture(t, 100*time.Second, 0, listTimeouts), nil, 2 * time.Minute, AtRisk, RuntimeHung},
		{"list calls took the deadline, none known", healthCapture(t, 100*time.Second, 0, listTimeouts), nil, 0, AtRisk, RuntimeDown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := Decide(Input{Gate: gateSet(false), Periods: release36, Health: rule36, Metrics: tc.metrics, At: &at, AtFrom: "-at", Node: tc.node, RequestTimeout: tc.timeout, ConfigzAnswered: true}).Health
			if h.State != tc.state || h.Runtime != tc.runtime {
				t.Errorf("state %s, runtime %s; want %s, %s\n%s", h.State, h.Runtime, tc.state, tc.runtime, strings.Join(h.Evidence, "\n"))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
