package fleet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// words is the kubelet's health rule as a source gives it: its "PLEG"
// check's messages and how runtimeErrors words a failed check.
var words = &answer.Health{
	Checks: []answer.HealthRule{{Name: "PLEG", Rule: plegperiods.RelistElapsed, Messages: []answer.HealthMessage{
		{Format: "pleg has yet to be successful", When: plegperiods.WhenNeverRelisted},
		{Format: "pleg was last seen active %v ago; threshold is %v", When: plegperiods.WhenThresholdExceeded},
	}}},
	RuntimeErrors: &answer.HealthMessage{Format: "%s is not healthy: %v"},
	RuntimeDown:   &answer.RuntimeDown{HealthMessage: answer.HealthMessage{Format: "container runtime is down", When: plegperiods.WhenRuntimeDown}},
}

// withWords is rec's hooks with the kubelet's words in every source.
func withWords(rec *recorder) *Options {
	h := rec.hooks()
	load := h.LoadSource
	h.LoadSource = func(ctx context.Context, opts plegvet.Options, release string) (*plegvet.NodeSource, error) {
		s, err := load(ctx, opts, release)
		if s != nil {
			s.Health = words
		}
		return s, err
	}
	return h
}

func readyTrue(ago time.Duration) *corev1.NodeCondition {
	return &corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status",
		LastHeartbeatTime: metav1.NewTime(time.Now().Add(-ago))}
}

// A node whose runtime stalled 4m ago, past the fork's 1m threshold,
// beside healthy ones: the HEALTH column computes it unhealthy, with the
// kubelet's message, and the node's own Ready condition agrees; a node
// whose condition was posted before the stall disagrees, the scrape being
// newer; one whose PLEG recovered after its NotReady disagrees the other
// way. No request more than before; exit 3.
func TestHealthBesideReady(t *testing.T) {
	rec := newRecorder(t)
	stalled := fakecluster.StalledBody("v1.39.4")
	nodes := []fakecluster.Node{
		mixed()[0],
		{Name: "stalled-1", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", Metrics: stalled, Stalled: 4 * time.Minute, Ready: fakecluster.PLEGNotReady(4*time.Minute, 10*time.Second)},
		{Name: "stalled-2", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", Metrics: stalled, Stalled: 4 * time.Minute, Ready: readyTrue(3*time.Minute + 50*time.Second)},
		{Name: "recovered", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", Metrics: stalled, Ready: fakecluster.PLEGNotReady(4*time.Minute, 8*time.Second)},
	}
	c := &fakecluster.Cluster{Nodes: nodes}
	kc := start(t, c)
	code, stdout, stderr := runMain(t, withWords(rec), "--kubeconfig", kc)
	if code != exitInconsistent {
		t.Errorf("exit code %d; want %d for an unhealthy PLEG\n%s", code, exitInconsistent, stderr)
	}
	for _, want := range []string{
		`(?m)^old-1 .* generic +healthy [12]s +True, agrees +`,
		`(?m)^stalled-1 .* generic +unhealthy 4m[01]s +False, agrees +PLEG unhealthy: the runtime's list calls failed or were slow \(list_pods…$`,
		`(?m)^stalled-2 .* generic +unhealthy 4m[01]s +True, disagrees: scrape newer +`,
		`(?m)^recovered .* generic +healthy [12]s +False, disagrees: scrape newer +`,
		`(?m)^4 generic; PLEG 2 unhealthy$`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("no match for %s:\n%s", want, stdout)
		}
	}
	if lists, gets, configz, metrics := c.Counts(); lists != 1 || gets != 0 || configz != 4 || metrics != 4 {
		t.Errorf("requests: %d lists, %d gets, %d configz, %d metrics; want 1 list and one of each a node", lists, gets, configz, metrics)
	}

	// -o json: the health keys of plegvet node -json, and the condition.
	_, js, _ := runMain(t, withWords(rec), "--kubeconfig", kc, "-o", "json", "stalled-1")
	var rs []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(js), &rs); err != nil || len(rs) != 1 {
		t.Fatalf("%v\n%s", err, js)
	}
	checkKeys(t, "health", rs[0]["health"], "state", "since", "elapsed", "threshold", "message", "evidence", "cause", "runtime")
	checkKeys(t, "condition", rs[0]["condition"], "status", "reason", "message", "lastHeartbeatTime", "lastTransitionTime", "plegUnhealthy", "agrees", "why")
	var h nodeverdict.Health
	_ = json.Unmarshal(rs[0]["health"], &h)
	if h.State != nodeverdict.Unhealthy || !regexp.MustCompile(`^PLEG is not healthy: pleg was last seen active 4m[01](\.\d+)?s ago; threshold is 1m0s$`).MatchString(h.Message) {
		t.Errorf("health %+v", h)
	}
	if !strings.HasPrefix(h.Cause, "the runtime's list calls failed or were slow (list_podsandbox: 2 of 905 calls failed") {
		t.Errorf("cause %q", h.Cause)
	}
	if !strings.Contains(strings.Join(h.Evidence, "\n"), "when kubectl pleg received the metrics, by this machine's clock") {
		t.Errorf("evidence does not say where the capture's time comes from: %q", h.Evidence)
	}
}

// checkKeys checks that raw is an object of exactly these keys, in order.
func checkKeys(t *testing.T, what string, raw json.RawMessage, keys ...string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var got []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s is not an object: %s", what, raw)
	}
	for dec.More() {
		tok, _ := dec.Token()
		got = append(got, tok.(string))
		var skip json.RawMessage
		_ = dec.Decode(&skip)
	}
	if strings.Join(got, " ") != strings.Join(keys, " ") {
		t.Errorf("%s keys %q; want %q", what, got, keys)
	}
}

// --save writes each node's captures, the metrics first saying when they
// were scraped: plegvet node reads them to the same health.
func TestSave(t *testing.T) {
	rec := newRecorder(t)
	n := fakecluster.Node{Name: "stalled-1", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27",
		Metrics: fakecluster.StalledBody("v1.39.4"), Stalled: 4 * time.Minute, Ready: fakecluster.PLEGNotReady(4*time.Minute, 10*time.Second)}
	kc := start(t, &fakecluster.Cluster{Nodes: []fakecluster.Node{n}})
	dir := t.TempDir()
	if code, _, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--save", dir); code != exitInconsistent {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	metrics := filepath.Join(dir, "stalled-1.metrics.txt")
	data, err := os.ReadFile(metrics)
	if err != nil || !regexp.MustCompile(`^# scraped at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\n# HELP `).Match(data) {
		t.Fatalf("%v\n%.200s", err, data)
	}
	rep, err := plegvet.Node(context.Background(), plegvet.NodeOptions{Options: plegvet.Options{Dir: rec.fork},
		NodeFiles: plegvet.NodeFiles{Configz: filepath.Join(dir, "stalled-1.configz.json"), Metrics: metrics}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Health.State != nodeverdict.Unhealthy || !strings.HasPrefix(rep.Health.Elapsed, "4m") {
		t.Errorf("plegvet node on the saved captures: %+v", rep.Health)
	}
	if code, _, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--save", filepath.Join(dir, "none")); code != exitUsage || !strings.Contains(stderr, "want an existing directory") {
		t.Errorf("--save to no directory: exit %d\n%s", code, stderr)
	}
}

// What the condition and plegvet's health say together, and which is
// newer when they disagree.
func TestJudgeReady(t *testing.T) {
	at := time.Date(2026, 12, 3, 6, 48, 2, 0, time.UTC)
	before, after := at.Add(-10*time.Second), at.Add(10*time.Second)
	pleg := "PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s"
	for _, tc := range []struct {
		name          string
		state         string
		status, msg   string
		heartbeat     time.Time
		words         bool
		agrees, newer string
	}{
		{"both unhealthy", nodeverdict.Unhealthy, "False", pleg, before, true, "true", ""},
		{"both fine", nodeverdict.Healthy, "True", "kubelet is posting ready status", before, true, "true", ""},
		{"at risk, still Ready", nodeverdict.AtRisk, "True", "kubelet is posting ready status", before, true, "true", ""},
		{"stalled since the heartbeat", nodeverdict.Unhealthy, "True", "kubelet is posting ready status", before, true, "false", "scrape"},
		{"relisted after the scrape", nodeverdict.Unhealthy, "True", "kubelet is posting ready status", after, true, "false", "condition"},
		{"recovered since the heartbeat", nodeverdict.Healthy, "False", pleg, before, true, "false", "scrape"},
		{"stalled after the scrape", nodeverdict.Healthy, "False", "[container runtime is down, " + pleg + "]", after, true, "false", "condition"},
		{"runtime down, plegvet unhealthy", nodeverdict.Unhealthy, "False", "container runtime is down", before, true, "true", ""},
		{"not ready for another reason", nodeverdict.Healthy, "False", "container runtime network not ready", before, true, "true", ""},
		{"words unknown, both down", nodeverdict.Unhealthy, "False", pleg, before, false, "true", ""},
		{"words unknown, NotReady", nodeverdict.Healthy, "False", pleg, before, false, "null", ""},
		{"kubelet gone", nodeverdict.Unhealthy, "Unknown", "Kubelet stopped posting node status.", before, true, "null", ""},
		{"health unknown", nodeverdict.HealthUnknown, "True", "kubelet is posting ready status", before, true, "null", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hb := tc.heartbeat
			r := &ReadyCondition{Status: tc.status, Message: tc.msg, LastHeartbeatTime: &hb}
			var words nodeverdict.HealthWords
			if tc.words {
				words = nodeverdict.HealthWords{CheckName: "PLEG", ErrorsFormat: "%s is not healthy: %v", RuntimeDown: "container runtime is down"}
			}
			r.judge(nodeverdict.Health{State: tc.state}, at, words)
			got, _ := json.Marshal(r.Agrees)
			if string(got) != tc.agrees || r.Newer != tc.newer || r.Why == "" {
				t.Errorf("agrees %s, newer %q; want %s, %q (%s)", got, r.Newer, tc.agrees, tc.newer, r.Why)
			}
		})
	}
}
