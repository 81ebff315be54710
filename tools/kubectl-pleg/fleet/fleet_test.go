package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// fork is a look-alike Kubernetes tree, written for these tests: the
// EventedPLEG gate is alpha and off from 1.26 and beta and on from 1.40;
// the generic PLEG relists every 2s, every 2m beside the evented PLEG,
// which gives up its stream after 3 errors and restores the 2s.
var fork = map[string]string{
	"go.mod": "module k8s.io/kubernetes\n",
	"pkg/features/features.go": `package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const EventedPLEG featuregate.Feature = "EventedPLEG"

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	EventedPLEG: {
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.40"), Default: true, PreRelease: featuregate.Beta},
	},
}
`,
	"pkg/kubelet/kubelet.go": `package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const (
	offPeriod     = 2 * time.Second
	onPeriod      = 2 * time.Minute
	streamRetries = 3
)

type checks struct{ m map[string]func() (bool, error) }

func (c *checks) add(name string, check func() (bool, error)) { c.m[name] = check }

func Start(src pleg.Source, c *checks) {
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		relist := pleg.NewGenericPLEG(&pleg.RelistDuration{RelistPeriod: onPeriod, RelistThreshold: 4 * onPeriod})
		pleg.NewEventedPLEG(src, relist, streamRetries, &pleg.RelistDuration{RelistPeriod: offPeriod, RelistThreshold: time.Minute})
		c.add("PLEG", relist.Healthy)
		return
	}
	relist := pleg.NewGenericPLEG(&pleg.RelistDuration{RelistPeriod: offPeriod, RelistThreshold: time.Minute})
	c.add("PLEG", relist.Healthy)
}
`,
	"pkg/kubelet/pleg/pleg.go": `package pleg

import (
	"fmt"
	"time"
)

type RelistDuration struct{ RelistPeriod, RelistThreshold time.Duration }

type Generic struct {
	d          *RelistDuration
	timer      *time.Timer
	lastRelist time.Time
}

func NewGenericPLEG(d *RelistDuration) *Generic { return &Generic{d: d} }

func (g *Generic) loop() { g.lastRelist = time.Now(); g.timer.Reset(g.d.RelistPeriod) }

func (g *Generic) Healthy() (bool, error) {
	elapsed := time.Since(g.lastRelist)
	if elapsed > g.d.RelistThreshold {
		return false, fmt.Errorf("pleg was last seen active %v ago; threshold is %v", elapsed, g.d.RelistThreshold)
	}
	return true, nil
}

func (g *Generic) Update(d *RelistDuration) { g.d = d }

type Source interface{ GetContainerEvents() error }

type Evented struct {
	src      Source
	relist   *Generic
	retries  int
	fallback *RelistDuration
}

func NewEventedPLEG(src Source, relist *Generic, retries int, fallback *RelistDuration) *Evented {
	return &Evented{src: src, relist: relist, retries: retries, fallback: fallback}
}

func (e *Evented) watch() {
	for failed := 0; ; {
		if failed >= e.retries {
			e.relist.Update(e.fallback)
			return
		}
		if e.src.GetContainerEvents() != nil {
			failed++
		}
	}
}
`,
}

func writeFork(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range fork {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var on, off = true, false

// mixed is a cluster of kubelets of two releases (the gate's default
// differs between them), a node with the gate on whose runtime cannot
// stream, a node whose kubelet the API server cannot reach, and a slow one.
func mixed() []fakecluster.Node {
	return []fakecluster.Node{
		{Name: "old-1", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27",
			Metrics: fakecluster.Kubelet{Version: "v1.39.4", Gate: &off, Relists: 900, Interval: 2.03, Others: 60}.Body()},
		{Name: "new-1", KubeletVersion: "v1.40.1-eks-4f4795d", RuntimeVersion: "containerd://2.0.4",
			Metrics: fakecluster.Kubelet{Version: "v1.40.1-eks-4f4795d", Gate: &on, StreamOK: 1, Events: 40, Relists: 12, Interval: 120.5, Others: 60}.Body()},
		{Name: "new-2", KubeletVersion: "v1.40.1", RuntimeVersion: "containerd://1.6.20", Gate: &on,
			Metrics: fakecluster.Kubelet{Version: "v1.40.1", Gate: &on, StreamErrors: 3, Relists: 400, Interval: 2.05, Others: 60}.Body()},
		{Name: "unreachable", KubeletVersion: "v1.40.1", RuntimeVersion: "containerd://2.0.4", ProxyStatus: 503},
		{Name: "slow", KubeletVersion: "v1.40.1", RuntimeVersion: "containerd://2.0.4", Delay: 20 * time.Second},
	}
}

// recorder counts what the plugin reads once per release or runtime,
// reading the fork for every release.
type recorder struct {
	fork     string
	mu       sync.Mutex
	sources  map[string]int
	runtimes map[string]int
}

func newRecorder(t *testing.T) *recorder {
	return &recorder{fork: writeFork(t), sources: map[string]int{}, runtimes: map[string]int{}}
}

func (r *recorder) hooks() *Options {
	return &Options{
		LoadSource: func(ctx context.Context, opts plegvet.Options, release string) (*plegvet.NodeSource, error) {
			r.mu.Lock()
			r.sources[release]++
			r.mu.Unlock()
			if opts.Dir == "" && opts.Kubernetes == "" {
				opts.Dir = r.fork
			}
			return plegvet.LoadNodeSource(ctx, opts, release)
		},
		// containerd streams container events from 1.7; these tests do
		// not fetch its source to learn so.
		JudgeRuntime: func(ctx context.Context, rt *nodeverdict.Runtime) {
			r.mu.Lock()
			r.runtimes[rt.Name+"://"+rt.Version]++
			r.mu.Unlock()
			streams := !strings.HasPrefix(rt.Version, "1.6.")
			rt.StreamsEvents, rt.Module, rt.Pos = &streams, "github.com/containerd/containerd@v"+rt.Version, "pkg/cri/server/events.go:10"
			rt.StreamsWhy = fmt.Sprintf("test: streams %t", streams)
		},
	}
}

// start serves nodes over HTTPS and returns the kubeconfig for it.
func start(t *testing.T, c *fakecluster.Cluster) string {
	t.Helper()
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	srv, err := fakecluster.Start(c, "", kc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return kc
}

func runMain(t *testing.T, hooks *Options, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(context.Background(), args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, hooks)
	return code, out.String(), errOut.String()
}

func byNode(t *testing.T, stdout string) map[string]map[string]any {
	t.Helper()
	var rs []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rs); err != nil {
		t.Fatalf("-o json is not a JSON array: %v\n%s", err, stdout)
	}
	m := map[string]map[string]any{}
	for _, r := range rs {
		m[r["node"].(string)] = r
	}
	return m
}

func TestMixedCluster(t *testing.T) {
	rec := newRecorder(t)
	c := &fakecluster.Cluster{Nodes: mixed()}
	kc := start(t, c)
	began := time.Now()
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s", "-o", "json")
	if code != 1 {
		t.Errorf("exit code %d; want 1, for the nodes that cannot be read\n%s", code, stderr)
	}
	if took := time.Since(began); took > 15*time.Second {
		t.Errorf("took %s: the slow node held the others up", took)
	}
	got := byNode(t, stdout)
	if len(got) != len(c.Nodes) {
		t.Fatalf("%d results; want one per node (%d)", len(got), len(c.Nodes))
	}

	// Each release's source was read once, whatever its nodes; each
	// runtime version judged once.
	if len(rec.sources) != 2 || rec.sources["v1.39.4"] != 1 || rec.sources["v1.40.1"] != 1 {
		t.Errorf("sources read %v; want v1.39.4 and v1.40.1 once each", rec.sources)
	}
	for v, n := range rec.runtimes {
		if n != 1 {
			t.Errorf("runtime %s judged %d times", v, n)
		}
	}

	// The two releases default the gate differently, and the default is
	// what each node's row says.
	for name, def := range map[string]bool{"old-1": false, "new-1": true} {
		gate := got[name]["gate"].(map[string]any)
		if gate["explicit"] != false || gate["default"] != def || gate["value"] != def {
			t.Errorf("%s: gate %v; want unset, default %t", name, gate, def)
		}
	}

	// The gate on, and a runtime that cannot stream: the node fell back,
	// and the reason names the runtime.
	n2 := got["new-2"]
	if n2["verdict"] != nodeverdict.FellBack || n2["configured"] != nodeverdict.Evented {
		t.Errorf("new-2: verdict %v, configured %v; want fell-back from evented", n2["verdict"], n2["configured"])
	}
	if !strings.Contains(fmt.Sprint(n2["reasons"]), "containerd 1.6.20 cannot stream container events") {
		t.Errorf("new-2: no reason names the runtime that cannot stream: %v", n2["reasons"])
	}
	if rt := n2["runtime"].(map[string]any); rt["streamsEvents"] != false || rt["apiVersion"] != "v1" {
		t.Errorf("new-2: runtime %v", rt)
	}

	// The same captures give plegvet node's answer: the plugin decides
	// with the same code.
	for _, n := range c.Nodes[:3] {
		checkSameAsNode(t, rec.fork, n, got[n.Name])
	}

	for name, want := range map[string]string{
		"unreachable": `^metrics: the API server could not reach the kubelet \(503\): error trying to reach service: dial tcp .*: connect: connection refused$|^configz: the API server could not reach the kubelet \(503\)`,
		"slow":        `^configz: timed out after 2s \(--request-timeout\)$`,
	} {
		e, _ := got[name]["error"].(string)
		if !regexp.MustCompile(want).MatchString(e) {
			t.Errorf("%s: error %q; want %s", name, e, want)
		}
		if !regexp.MustCompile(`(?m)^kubectl pleg: ` + name + `: `).MatchString(stderr) {
			t.Errorf("stderr does not name %s:\n%s", name, stderr)
		}
		if got[name]["nodeInfo"].(map[string]any)["kubeletVersion"] != "v1.40.1" {
			t.Errorf("%s: the error row lost the node info: %v", name, got[name])
		}
	}
	// The summary counts the verdicts the reports carry.
	counts := map[string]int{}
	for _, r := range got {
		if r["error"] != nil {
			counts["error"]++
		} else {
			counts[r["verdict"].(string)]++
		}
	}
	if want := summaryLine(counts); !strings.Contains(stderr, want+"\n") {
		t.Errorf("stderr lacks the summary %q:\n%s", want, stderr)
	}
}

// checkSameAsNode runs plegvet.Node on a node's captures written to
// files, and compares its verdict, gate and reasons with the plugin's.
func checkSameAsNode(t *testing.T, fork string, n fakecluster.Node, got map[string]any) {
	t.Helper()
	dir := t.TempDir()
	cfg, _ := json.Marshal(fakecluster.Configz(n.Gate))
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rep, err := plegvet.Node(context.Background(), plegvet.NodeOptions{
		Options: plegvet.Options{Dir: fork},
		NodeFiles: plegvet.NodeFiles{Configz: write("configz.json", cfg), Metrics: write("metrics.txt", []byte(n.Metrics)),
			KubeletVersion: n.KubeletVersion},
	})
	if err != nil {
		t.Fatal(err)
	}
	var gate any
	data, _ := json.Marshal(rep.Gate)
	_ = json.Unmarshal(data, &gate)
	want, _ := json.Marshal(gate)
	have, _ := json.Marshal(got["gate"])
	if !bytes.Equal(want, have) {
		t.Errorf("%s: gate %s; plegvet node says %s", n.Name, have, want)
	}
	// plegvet node had no runtime: its reasons are the plugin's less the
	// runtime's.
	var reasons []nodeverdict.Reason
	data, _ = json.Marshal(got["reasons"])
	_ = json.Unmarshal(data, &reasons)
	var kept []nodeverdict.Reason
	for _, r := range reasons {
		if !strings.Contains(r.Evidence, "status.nodeInfo.containerRuntimeVersion") {
			kept = append(kept, r)
		}
	}
	w, _ := json.Marshal(rep.Reasons)
	h, _ := json.Marshal(kept)
	if !bytes.Equal(w, h) {
		t.Errorf("%s: reasons\n%s\nplegvet node's\n%s", n.Name, h, w)
	}
	if n.Name != "new-2" && got["verdict"] != rep.Verdict {
		t.Errorf("%s: verdict %v; plegvet node says %s", n.Name, got["verdict"], rep.Verdict)
	}
}

func TestTable(t *testing.T) {
	rec := newRecorder(t)
	nodes := mixed()[:3]
	kc := start(t, &fakecluster.Cluster{Nodes: nodes})
	_, js, _ := runMain(t, rec.hooks(), "--kubeconfig", kc, "-o", "json")
	reports := byNode(t, js)
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(nodes)+2 || !regexp.MustCompile(`^NODE +KUBELET +RUNTIME +GATE +VERDICT +HEALTH +READY +REASON$`).MatchString(lines[0]) {
		t.Fatalf("want a header, a row a node and a summary:\n%s", stdout)
	}
	counts := map[string]int{}
	for i, n := range nodes {
		r := reports[n.Name]
		counts[r["verdict"].(string)]++
		g := r["gate"].(map[string]any)
		gate := fmt.Sprint(g["value"])
		if g["explicit"] == false {
			gate = fmt.Sprintf("default %v", g["default"])
		}
		// Relisted a second or two ago: healthy, as the node says; the
		// node that fell back is held to the threshold the fork's health
		// check has once the evented PLEG restores its fallback (1m).
		health, ready := "healthy", "True, agrees"
		want := fmt.Sprintf(`^%s +%s +%s +%s +%s +%s [12]s +%s +`, regexp.QuoteMeta(n.Name), regexp.QuoteMeta(n.KubeletVersion), regexp.QuoteMeta(n.RuntimeVersion), gate, r["verdict"], health, ready)
		if !regexp.MustCompile(want).MatchString(lines[i+1]) {
			t.Errorf("row %q; want %s", lines[i+1], want)
		}
	}
	if lines[len(lines)-1] != summaryLine(counts) {
		t.Errorf("summary %q; want %q", lines[len(lines)-1], summaryLine(counts))
	}
	// Wide and YAML say the same nodes.
	_, wide, _ := runMain(t, rec.hooks(), "--kubeconfig", kc, "-o", "wide")
	if !strings.Contains(strings.Split(wide, "\n")[0], "RELIST") {
		t.Errorf("-o wide has no RELIST column:\n%s", wide)
	}
	_, y, _ := runMain(t, rec.hooks(), "--kubeconfig", kc, "-o", "yaml", "old-1")
	if !strings.HasPrefix(y, "- condition:\n") || !strings.Contains(y, "\n  node: old-1\n") {
		t.Errorf("-o yaml old-1:\n%s", y)
	}
}

func TestForbidden(t *testing.T) {
	rec := newRecorder(t)
	kc := start(t, &fakecluster.Cluster{Nodes: mixed()[:2], ForbidProxy: true, User: "oncall"})
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc)
	if code != 1 {
		t.Errorf("exit code %d; want 1", code)
	}
	for _, n := range []string{"old-1", "new-1"} {
		want := fmt.Sprintf(`(?m)^kubectl pleg: %s: configz: forbidden: missing RBAC permission "get" on "nodes/proxy" .*User "oncall" cannot get resource "nodes/proxy"`, n)
		if !regexp.MustCompile(want).MatchString(stderr) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
		if !regexp.MustCompile(`(?m)^` + n + ` .* error +- +True +configz: forbidden: missing RBAC permission "get" on "nodes/proxy"`).MatchString(stdout) {
			t.Errorf("no error row for %s:\n%s", n, stdout)
		}
	}
	if len(rec.sources) != 0 {
		t.Errorf("sources read for nodes that could not be read: %v", rec.sources)
	}
}

// A cluster of more nodes than a page: every node is listed, through the
// selector, and decided with one read of the source.
func TestManyNodes(t *testing.T) {
	rec := newRecorder(t)
	const n = 1100
	body := fakecluster.Kubelet{Version: "v1.39.4", Gate: &off, Relists: 900, Interval: 2.03, Others: 30}.Body()
	c := &fakecluster.Cluster{N: n, NodeAt: func(i int) fakecluster.Node {
		pool := "a"
		if i%2 == 1 {
			pool = "b"
		}
		return fakecluster.Node{Name: fmt.Sprintf("node-%05d", i), Labels: map[string]string{"pool": pool},
			KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://1.7.27", Metrics: body}
	}}
	kc := start(t, c)
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "-l", "pool=b", "--qps", "5000", "--burst", "5000", "--concurrency", "32")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if got := len(lines) - 2; got != n/2 {
		t.Errorf("%d rows; want the %d nodes of pool b", got, n/2)
	}
	if want := fmt.Sprintf("%d generic", n/2); lines[len(lines)-1] != want {
		t.Errorf("summary %q; want %q", lines[len(lines)-1], want)
	}
	lists, gets, configz, metrics := c.Counts()
	if lists != (n/2+pageSize-1)/pageSize || gets != 0 || configz != n/2 || metrics != n/2 {
		t.Errorf("requests: %d lists, %d gets, %d configz, %d metrics", lists, gets, configz, metrics)
	}
	if rec.sources["v1.39.4"] != 1 {
		t.Errorf("sources %v", rec.sources)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "table"}, `-o "table": want wide, json or yaml`},
		{[]string{"--source-k8s", "v1.36.1", "--source-dir", "."}, "exclude each other"},
		{[]string{"node-1", "-l", "a=b"}, "name nodes or give -l, not both"},
		{[]string{"--concurrency", "0"}, "--concurrency 0: want 1 or more"},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
	} {
		code, _, stderr := runMain(t, nil, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// A list that RBAC forbids stops everything, saying which permission.
func TestListForbidden(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	srv, err := fakecluster.Start(&fakecluster.Cluster{}, "", kc)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// Point the kubeconfig at a path prefix the fake answers 404 for, so
	// that the list fails as a server error the plugin reports in one line.
	code, _, stderr := runMain(t, nil, "--kubeconfig", kc, "--server", srv.URL+"/nowhere")
	if code != 1 || !strings.HasPrefix(stderr, "kubectl pleg: cannot list nodes: ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// inconsistentNode has the gate unset (off by default at v1.39.4), yet its
// kubelet streams events and relists every 2m: the evidence disagrees.
func inconsistentNode() fakecluster.Node {
	return fakecluster.Node{Name: "odd-1", KubeletVersion: "v1.39.4", RuntimeVersion: "containerd://2.0.4",
		Metrics: fakecluster.Kubelet{Version: "v1.39.4", StreamOK: 1, Events: 40, Relists: 12, Interval: 120.5, Others: 10}.Body()}
}

// An inconsistent node exits 3, so that a script tells it from a clean
// answer; a node that cannot be read still exits 1, whatever the others.
func TestExitCodes(t *testing.T) {
	rec := newRecorder(t)
	old1 := mixed()[0]
	unreachable := mixed()[3]
	for _, tc := range []struct {
		name    string
		nodes   []fakecluster.Node
		code    int
		summary string
	}{
		{"clean", []fakecluster.Node{old1}, 0, "1 generic"},
		{"one inconsistent", []fakecluster.Node{old1, inconsistentNode()}, exitInconsistent, "1 generic, 1 inconsistent"},
		{"inconsistent and unreadable", []fakecluster.Node{old1, inconsistentNode(), unreachable}, exitFail, "1 generic, 1 inconsistent, 1 error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := start(t, &fakecluster.Cluster{Nodes: tc.nodes})
			code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s")
			if code != tc.code {
				t.Errorf("exit code %d; want %d\n%s%s", code, tc.code, stdout, stderr)
			}
			if !strings.HasSuffix(stdout, "\n"+tc.summary+"\n") {
				t.Errorf("summary; want %q:\n%s", tc.summary, stdout)
			}
			code, _, _ = runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s", "-o", "json")
			if code != tc.code {
				t.Errorf("-o json: exit code %d; want %d", code, tc.code)
			}
		})
	}
	// The help says so.
	_, help, _ := runMain(t, nil, "--help")
	if !strings.Contains(help, "3 when every node answered and one\nor more is inconsistent") {
		t.Errorf("--help does not give the exit status of an inconsistent node:\n%s", help)
	}
}

// A kubelet built without version ldflags reports component-base's
// default version, which names no release: without a source named, its
// row says to name one; with --source-dir, the gate is read at that
// source, and a reason says so.
func TestUnstampedKubelet(t *testing.T) {
	rec := newRecorder(t)
	const unstamped = "v0.0.0-master+$Format:%H$"
	n := fakecluster.Node{Name: "dev-1", KubeletVersion: unstamped, RuntimeVersion: "containerd://2.0.4",
		Metrics: fakecluster.Kubelet{Version: unstamped, StreamOK: 1, Events: 40, Relists: 12, Interval: 120.5, Others: 10}.Body()}
	kc := start(t, &fakecluster.Cluster{Nodes: []fakecluster.Node{n}})
	code, stdout, _ := runMain(t, rec.hooks(), "--kubeconfig", kc, "-o", "json")
	got := byNode(t, stdout)["dev-1"]
	if e, _ := got["error"].(string); code != exitFail || !strings.Contains(e, "pass --source-k8s v1.X.Y") {
		t.Errorf("no source named: exit %d, error %q; want 1 and a word on --source-k8s", code, e)
	}
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "-o", "json", "--source-dir", rec.fork)
	got = byNode(t, stdout)["dev-1"]
	if code != 0 || got["verdict"] != nodeverdict.Evented {
		t.Fatalf("--source-dir: exit %d, verdict %v; want 0, evented (the fork's newest spec turns the gate on)\n%s", code, got["verdict"], stderr)
	}
	if !strings.Contains(fmt.Sprint(got["reasons"]), "the kubelet does not say which release it was built from: the gate's default is read at the checkout's newest spec (1.40)") {
		t.Errorf("no reason says the version is unknown: %v", got["reasons"])
	}
	if rt := got["runtime"].(map[string]any); rt["apiVersion"] != "" {
		t.Errorf("runtime %v: the CRI version cannot be inferred from an unknown kubelet version", rt)
	}
}

// Installed by krew, with no go command: a kubelet release in plegvet's
// index is answered from it, and its row says so; one the index lacks is
// a row saying why, and the run exits 1; nothing is guessed.
func TestWithoutGoCommand(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	held := plegvet.NodeIndexReleases()
	indexed, older := held[len(held)-1], "v1.24.17"
	off := false
	kc := start(t, &fakecluster.Cluster{Nodes: []fakecluster.Node{
		{Name: "indexed-1", KubeletVersion: indexed, RuntimeVersion: "containerd://2.0.4",
			Metrics: fakecluster.Kubelet{Version: indexed, Gate: &off, Relists: 900, Interval: 1.02, Others: 10}.Body()},
		{Name: "older-1", KubeletVersion: older, RuntimeVersion: "containerd://2.0.4",
			Metrics: fakecluster.Kubelet{Version: older, Gate: &off, Relists: 900, Interval: 1.02, Others: 10}.Body()},
	}})
	code, stdout, stderr := runMain(t, nil, "--kubeconfig", kc, "--skip-runtime-source", "-o", "json")
	if code != exitFail {
		t.Errorf("exit %d, want %d (a node could not be read)\n%s", code, exitFail, stderr)
	}
	rows := byNode(t, stdout)
	src, _ := rows["indexed-1"]["source"].(map[string]any)
	if rows["indexed-1"]["verdict"] != "generic" || src["from"] != answer.FromIndex {
		t.Errorf("indexed-1: verdict %v, source %v; want generic, from the index", rows["indexed-1"]["verdict"], src)
	}
	why, _ := rows["older-1"]["error"].(string)
	if !strings.Contains(why, older+" is not in plegvet's index") || !strings.Contains(why, "no go command on PATH") {
		t.Errorf("older-1: error %q, want why it cannot be read", why)
	}
	_, table, _ := runMain(t, nil, "--kubeconfig", kc, "--skip-runtime-source", "-o", "wide")
	if !strings.Contains(table, "k8s.io/kubernetes@"+indexed+" (index)") {
		t.Errorf("the table does not say the answer came from the index:\n%s", table)
	}
}
