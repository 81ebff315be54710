package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// hungNodes are a healthy node and kubelets whose runtime hangs: configz
// answers at once, /metrics waits far past --metrics-timeout. hung-1 is
// still Ready; hung-2's Ready condition says the runtime is down and the
// PLEG not healthy; hung-3's the PLEG only.
func hungNodes() []fakecluster.Node {
	hung := func(name string) fakecluster.Node {
		return fakecluster.Node{Name: name, KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", MetricsDelay: time.Minute}
	}
	n1, n2, n3 := hung("hung-1"), hung("hung-2"), hung("hung-3")
	n1.Ready = readyTrue(5 * time.Second)
	n2.Ready = fakecluster.RuntimeDownNotReady(3*time.Minute+19*time.Second, 10*time.Second)
	n3.Ready = fakecluster.PLEGNotReady(3*time.Minute+19*time.Second, 10*time.Second)
	return []fakecluster.Node{mixed()[0], n1, n2, n3}
}

// A node whose /metrics hangs while its configz answers is a row decided
// from that failure and its Ready condition, not an error: HEALTH at-risk
// while Ready is True, unhealthy when its Ready condition says the
// runtime is down or the PLEG not healthy; READY agrees. A timeout
// through the API server's node proxy does not say it reached the
// kubelet, so no runtime state is claimed from it: REASON says what
// cannot be read. The run waits
// --metrics-timeout for it, not --request-timeout. Exit 3 for the
// unhealthy ones, 0 for a hung node still Ready (at-risk).
func TestHungRuntime(t *testing.T) {
	rec := newRecorder(t)
	kc := start(t, &fakecluster.Cluster{Nodes: hungNodes()})
	began := time.Now()
	code, stdout, stderr := runMain(t, withWords(rec), "--kubeconfig", kc, "--metrics-timeout", "1s")
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("took %s: the hung nodes held the run past --metrics-timeout", took)
	}
	t.Logf("kubectl pleg --metrics-timeout 1s:\n%s", stdout)
	if code != exitInconsistent {
		t.Errorf("exit code %d; want %d for an unhealthy PLEG\n%s", code, exitInconsistent, stderr)
	}
	if strings.Contains(stderr, "hung-") {
		t.Errorf("stderr names a hung node as an error:\n%s", stderr)
	}
	for _, want := range []string{
		`(?m)^old-1 .* generic +healthy [12]s +True, agrees +`,
		`(?m)^hung-1 +v1\.39\.4 +containerd://1\.7\.27 +default false +generic +at-risk +True, agrees +PLEG at-risk: the kubelet's /metrics does not answer, and the failed .*…$`,
		`(?m)^hung-2 +v1\.39\.4 +containerd://1\.7\.27 +default false +generic +unhealthy +False, agrees +PLEG unhealthy: the kubelet's /metrics does not answer, and the fail.*…$`,
		`(?m)^hung-3 +v1\.39\.4 +containerd://1\.7\.27 +default false +generic +unhealthy +False, agrees +PLEG unhealthy: the kubelet's /metrics does not answer, and the fail.*…$`,
		`(?m)^4 generic; PLEG 2 unhealthy, 1 at-risk$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("no match for %s:\n%s", want, stdout)
		}
	}

	// -o json: no error, the failure under metricsFailure, unhealthy in
	// the kubelet's words, the runtime not claimed, the cause saying the
	// kubelet says its runtime is down.
	_, js, _ := runMain(t, withWords(rec), "--kubeconfig", kc, "--metrics-timeout", "1s", "-o", "json", "hung-2")
	var rs []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("%v\n%s", err, js)
	}
	if _, ok := rs[0]["error"]; ok {
		t.Errorf("hung-2 has an error: %s", rs[0]["error"])
	}
	if string(rs[0]["node"]) != `"hung-2"` {
		t.Errorf("node %s", rs[0]["node"])
	}
	checkKeys(t, "health", rs[0]["health"], "state", "since", "elapsed", "threshold", "message", "evidence", "cause", "runtime")
	checkKeys(t, "metricsFailure", rs[0]["metricsFailure"], "error", "kind", "waited", "at")
	checkKeys(t, "inputs", rs[0]["inputs"], "configz", "metrics", "metricsError", "node")
	var h nodeverdict.Health
	_ = json.Unmarshal(rs[0]["health"], &h)
	if h.State != nodeverdict.Unhealthy || h.Runtime != nodeverdict.RuntimeUnknown ||
		h.Message != "[container runtime is down, PLEG is not healthy: pleg was last seen active 3m9s ago; threshold is 3m0s]" ||
		!strings.Contains(h.Cause, "the kubelet says its runtime is down") {
		t.Errorf("health %+v", h)
	}
	var f nodeverdict.MetricsFailure
	_ = json.Unmarshal(rs[0]["metricsFailure"], &f)
	if f.Kind != nodeverdict.FailureTimeout || f.Error != "metrics: timed out after 1s (--metrics-timeout): no answer came through the API server's node proxy" ||
		f.WaitedFor() < time.Second || f.WaitedFor() > 5*time.Second || f.At == nil {
		t.Errorf("metricsFailure %+v", f)
	}
	var gate map[string]any
	_ = json.Unmarshal(rs[0]["gate"], &gate)
	if gate["kubeletVersion"] != "v1.39.4" {
		t.Errorf("gate %v: want the kubelet's version from the Node object", gate)
	}

	// A hung node still Ready is at-risk: exit 0, the summary says so.
	code, stdout, _ = runMain(t, withWords(rec), "--kubeconfig", kc, "--metrics-timeout", "1s", "hung-1")
	if code != 0 || !strings.HasSuffix(stdout, "\n1 generic; PLEG 1 at-risk\n") {
		t.Errorf("hung-1 alone: exit %d\n%s", code, stdout)
	}
	// Without --metrics-timeout shorter than it, --request-timeout bounds
	// the metrics request, and says so.
	_, js, _ = runMain(t, withWords(rec), "--kubeconfig", kc, "--metrics-timeout", "5s", "--request-timeout", "1s", "-o", "json", "hung-1")
	if !strings.Contains(js, `"error": "metrics: timed out after 1s (--request-timeout): no answer came`) {
		t.Errorf("--request-timeout shorter than --metrics-timeout:\n%s", js)
	}
	if code, _, stderr := runMain(t, nil, "--metrics-timeout", "-1s"); code != exitUsage || !strings.Contains(stderr, "--metrics-timeout -1s: want 0 or more") {
		t.Errorf("--metrics-timeout -1s: exit %d, %s", code, stderr)
	}
}

// --save writes, for a hung node, NODE.configz.json, NODE.node.json and
// NODE.metrics-error.txt (no NODE.metrics.txt, an earlier run's
// removed); plegvet node -configz -metrics-error-file -node reads them to
// the same health, runtime and all. An answered node has NODE.metrics.txt
// and no NODE.metrics-error.txt.
func TestSaveHung(t *testing.T) {
	rec := newRecorder(t)
	kc := start(t, &fakecluster.Cluster{Nodes: hungNodes()})
	dir := t.TempDir()
	for _, stale := range []string{"hung-2.metrics.txt", "old-1.metrics-error.txt"} {
		if err := os.WriteFile(filepath.Join(dir, stale), []byte("an earlier run's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The fork gives no words for a runtime down or a PLEG not healthy:
	// no Ready message is read as either, every hung node is at-risk, and
	// the run exits 0 (TestHungRuntime reads them with a release's words).
	code, js, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--metrics-timeout", "1s", "--save", dir, "-o", "json")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	var rows []struct {
		Node                   string
		Health, MetricsFailure json.RawMessage
	}
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]json.RawMessage{}
	for _, r := range rows {
		got[r.Node] = map[string]json.RawMessage{"health": compact(t, r.Health), "metricsFailure": compact(t, r.MetricsFailure)}
	}
	for _, name := range []string{"hung-1.configz.json", "hung-1.node.json", "hung-1.metrics-error.txt", "old-1.configz.json", "old-1.node.json", "old-1.metrics.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("--save: %v", err)
		}
	}
	for _, name := range []string{"hung-1.metrics.txt", "hung-2.metrics.txt", "old-1.metrics-error.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("--save left %s", name)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "hung-2.metrics-error.txt"))
	if err != nil || !regexp.MustCompile(`^# scraped at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\n# waited 1(\.\d+)?s\nmetrics: timed out after 1s \(--metrics-timeout\): no answer came through the API server's node proxy\n$`).Match(data) {
		t.Errorf("hung-2.metrics-error.txt: %v\n%s", err, data)
	}
	data, err = os.ReadFile(filepath.Join(dir, "hung-2.node.json"))
	if err != nil {
		t.Fatal(err)
	}
	if node, err := nodeverdict.ReadNode("hung-2.node.json", data); err != nil || node.Name != "hung-2" || node.KubeletVersion != "v1.39.4" ||
		node.ContainerRuntimeVersion != "containerd://1.7.27" || node.Ready == nil || node.Ready.Status != "False" || node.Ready.LastHeartbeatTime == nil {
		t.Errorf("hung-2.node.json: %v %+v\n%s", err, node, data)
	}
	for _, n := range []string{"hung-1", "hung-2", "hung-3"} {
		rep, err := plegvet.Node(context.Background(), plegvet.NodeOptions{Options: plegvet.Options{Dir: rec.fork},
			NodeFiles: plegvet.NodeFiles{Configz: filepath.Join(dir, n+".configz.json"), MetricsErrorFile: filepath.Join(dir, n+".metrics-error.txt"), Node: filepath.Join(dir, n+".node.json")}})
		if err != nil {
			t.Fatal(err)
		}
		have, _ := json.Marshal(rep.Health)
		if want := got[n]["health"]; string(want) != string(have) {
			t.Errorf("%s: plegvet node on the saved files:\n%s\nkubectl pleg:\n%s", n, have, want)
		}
		g, _ := json.Marshal(rep.MetricsFailure)
		if f := got[n]["metricsFailure"]; string(f) != string(g) {
			t.Errorf("%s: metricsFailure %s; plegvet node reads %s", n, f, g)
		}
		if n == "hung-1" {
			t.Logf("plegvet node -configz %[1]s.configz.json -metrics-error-file %[1]s.metrics-error.txt -node %[1]s.node.json: health %s", n, have)
		}
	}
	// Without the kubelet's words (no health rule in the fork), neither
	// hung-2's "container runtime is down" nor hung-3's PLEG message is
	// read: a Ready False in words not known leaves the health unknown,
	// as plegvet node says too.
	var h2, h3 nodeverdict.Health
	_ = json.Unmarshal(got["hung-2"]["health"], &h2)
	_ = json.Unmarshal(got["hung-3"]["health"], &h3)
	if h2.State != nodeverdict.HealthUnknown || h3.State != nodeverdict.HealthUnknown || h2.Runtime != nodeverdict.RuntimeUnknown {
		t.Errorf("health hung-2 %+v, hung-3 %+v", h2, h3)
	}
}

func compact(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return b.Bytes()
}

// A metrics request refused after configz answered (the kubelet gone
// between the two) stays the node's error row, exit 1: it is no hung
// runtime. A 504 Gateway Timeout is a timeout: the row is decided.
func TestMetricsRefusedOrGatewayTimeout(t *testing.T) {
	rec := newRecorder(t)
	refused := fakecluster.Node{Name: "gone-1", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", MetricsStatus: 503}
	gateway := fakecluster.Node{Name: "gw-1", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", MetricsStatus: 504}
	kc := start(t, &fakecluster.Cluster{Nodes: []fakecluster.Node{refused, gateway}})
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "-o", "json")
	if code != exitFail {
		t.Errorf("exit %d; want %d for the refused node\n%s", code, exitFail, stderr)
	}
	got := byNode(t, stdout)
	if e, _ := got["gone-1"]["error"].(string); !strings.HasPrefix(e, "metrics: the API server could not reach the kubelet (503): error trying to reach service: dial tcp 10.0.7.12:10250: connect: connection refused") {
		t.Errorf("gone-1: error %q", e)
	}
	if _, ok := got["gone-1"]["metricsFailure"]; ok {
		t.Errorf("gone-1 has a metricsFailure: %v", got["gone-1"])
	}
	gw := got["gw-1"]
	f, _ := gw["metricsFailure"].(map[string]any)
	h, _ := gw["health"].(map[string]any)
	if gw["error"] != nil || f["kind"] != nodeverdict.FailureTimeout || f["error"] != "metrics: gateway timeout (504), from the API server or a proxy before it: Gateway Timeout" ||
		h["runtime"] != nodeverdict.RuntimeUnknown || h["state"] != nodeverdict.AtRisk {
		t.Errorf("gw-1: error %v, metricsFailure %v, health state %v runtime %v", gw["error"], f, h["state"], h["runtime"])
	}
}
