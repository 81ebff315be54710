package nodesource_test

import (
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/nodeverdict"
)

// The real v1.37.2 kubelet whose containerd was frozen
// (nodeverdict/testdata/real/v1.37.2/runtime-hung), decided from
// plegvet's index at the moments the harness read its Node object. The
// index carries the release's ladder inputs: configz's
// runtimeRequestTimeout and nodeStatusUpdateFrequency over them and the
// failed request's 3s wait as the scrape timeout, the captures tell hung
// (Ready False for the runtime 2m2.8s after the last scrape that
// answered, within the hang's 2m0s to 2m10s), and unanswered while Ready
// is True before that window ends. An entry without a ladder (a release
// whose CRI API module the proxy does not serve) says so and what is
// known, the Ready condition decides the health (at-risk, never
// unhealthy while Ready is True, however old the last scrape's relist),
// and the runtime is not told hung or slow on a guessed bound.
func TestDarkFromTheIndex(t *testing.T) {
	c := loadCapture(t, "v1.37.2", "runtime-hung")
	src, failure := c.src, c.file("metrics-error.txt")
	decide := func(s *plegvet.NodeSource, nodeFile, at string) nodeverdict.Health {
		t.Helper()
		return c.decide(s, failure, c.node(nodeFile), at)
	}
	if src.Ladder == nil {
		t.Fatal("the index holds no ladder for v1.37.2: run go generate with -all")
	}
	if h := decide(src, "node-false.json", "2026-12-03T23:17:28.572555208Z"); h.State != nodeverdict.Unhealthy || h.Message != "container runtime is down" || h.Runtime != nodeverdict.RuntimeHung {
		t.Errorf("from the index, Ready False: %s, runtime %s, message %q", h.State, h.Runtime, h.Message)
	}
	if h := decide(src, "node-ready.json", "2026-12-03T23:15:25.208109715Z"); h.State != nodeverdict.AtRisk || h.Runtime != nodeverdict.RuntimeUnanswered {
		t.Errorf("from the index, Ready True 4s into the dark: %s, runtime %s", h.State, h.Runtime)
	}

	// An index entry without a ladder: Ready True 3m8s after the last
	// scrape that answered, its relist then past the 3m threshold:
	// at-risk, exit 0 (before: unhealthy).
	noLadder := *src
	noLadder.Ladder = nil
	h := decide(&noLadder, "node-ready.json", "2026-12-03T23:18:30Z")
	all := strings.Join(h.Evidence, "\n")
	if h.State != nodeverdict.AtRisk || h.Runtime != nodeverdict.RuntimeUnanswered || h.Message != "" ||
		!strings.Contains(all, "plegvet's index holds no latency ladder for k8s.io/kubernetes@v1.37.2; known: runtimeRequestTimeout 2m0s (configz), nodeStatusUpdateFrequency 10s (configz), \"container runtime is down\" after 30s = maxWaitForContainerRuntime") ||
		!strings.Contains(all, "hands its runtime errors to the node's Ready condition at pkg/kubelet/kubelet_node_status.go:") {
		t.Errorf("from an index entry without a ladder, Ready True: %s, runtime %s, message %q\n%s", h.State, h.Runtime, h.Message, all)
	}
	if h := decide(&noLadder, "node-false.json", "2026-12-03T23:17:28.572555208Z"); h.State != nodeverdict.Unhealthy || h.Message != "container runtime is down" || h.Runtime != nodeverdict.RuntimeUnanswered {
		t.Errorf("from an index entry without a ladder, Ready False: %s, runtime %s, message %q", h.State, h.Runtime, h.Message)
	}

	// The ladder's inputs as a source read gives them; configz's values
	// stand over the source's defaults.
	withLadder := *src
	withLadder.Ladder = &ladder.Inputs{ScrapeCalls: 4, RelistListCalls: 2, PodCalls: 3, StatusCalls: 1, NodeStatusCalls: 1,
		RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute, StatusPeriod: 5 * time.Second, RuntimeDown: 30 * time.Second,
		NodeStatusFrequency: time.Minute, Deadline: 4 * time.Minute}
	h = decide(&withLadder, "node-false.json", "2026-12-03T23:17:28.572555208Z")
	all = strings.Join(h.Evidence, "\n")
	if h.State != nodeverdict.Unhealthy || h.Runtime != nodeverdict.RuntimeHung ||
		!strings.Contains(all, "a hung runtime turns Ready False 2m0s to 2m10s after the hang began") ||
		!strings.Contains(all, "with configz's runtimeRequestTimeout 2m0s and nodeStatusUpdateFrequency 10s, and the failed request's wait (3.000930971s) as the scrape timeout") {
		t.Errorf("with the ladder, Ready False: %s, runtime %s\n%s", h.State, h.Runtime, all)
	}
	if h := decide(&withLadder, "node-ready.json", "2026-12-03T23:15:25.208109715Z"); h.State != nodeverdict.AtRisk || h.Runtime != nodeverdict.RuntimeUnanswered ||
		!strings.Contains(strings.Join(h.Evidence, "\n"), "metrics-dark from 750.232742ms per call") {
		t.Errorf("with the ladder, Ready True: %s, runtime %s\n%s", h.State, h.Runtime, strings.Join(h.Evidence, "\n"))
	}
}
