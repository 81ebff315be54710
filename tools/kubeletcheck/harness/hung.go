package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Hung is issue 41's scenario: the node of Unhealthy (a kubelet of
// Release registered to its API server, EventedPLEG unset, the static
// pod on the containerd built from its module), with containerd's
// daemon process frozen with SIGSTOP instead of stopped: its socket still
// accepts connections and no call is answered, as on a node whose
// runtime hangs. Its shims are left alone. Prometheus scrapes the kubelet
// in kube-prometheus's layout (one job, two endpoints told apart by
// metrics_path) every Every, with a timeout of Every.
type Hung struct {
	Parts                    *Parts
	Release                  string
	KubeletBin, APIServerBin string
	Rules                    string
	Alerts                   []string
	// Every is the round: each endpoint's request, the Node object,
	// Prometheus's alerts and series are read every Every, each request
	// with a client timeout of Every; Prometheus scrapes and evaluates
	// as often, its scrape timeout Every.
	Every  time.Duration
	Before time.Duration
	// Freeze is the least time containerd stays frozen; it is thawed
	// once Freeze has passed, the node's Ready names the PLEG and every
	// alert fired, and Hold more has passed; or at MaxFreeze.
	Freeze, MaxFreeze, Hold time.Duration
	After, MaxRecovery      time.Duration
	// Dumps are the moments after the freeze the kubelet's goroutines are
	// read (/debug/pprof/goroutine?debug=2).
	Dumps []time.Duration
	// Endpoints are the kubelet's paths read every round beside /metrics.
	Endpoints []string
	// KubectlPleg, when set, is a kubectl-pleg binary run in a loop of its
	// own, as EngineerToken's user (Probe at PhaseReady is where a test
	// grants it the README's RBAC), with --request-timeout PlegTimeout.
	KubectlPleg string
	PlegTimeout time.Duration
	// Proxy, when set, runs the kubelet against a CRI proxy in front of
	// containerd (the slow-call scenario) and nothing is frozen: Stall is
	// told the moment the fault begins and ends.
	Proxy *CRIProxy
	Logf  func(string, ...any)
	Probe func(ctx context.Context, n *Node, phase string) error
}

// NewHung is the scenario with the timings CI runs: 3 s rounds, 15 s
// before the freeze, containerd frozen at least 4m (thawed 10 s after
// Ready names the PLEG and every alert fired, at most 7m), 10 s after
// recovery, at most 3m to recover (with rules that have
// AlertRuntimeHung, its alerts and Alerts fired too); goroutine dumps 30 s, 150 s and 230 s
// into the freeze.
func (p *Parts) NewHung(release, kubeletBin, apiserverBin, rules string, logf func(string, ...any)) *Hung {
	h := &Hung{Parts: p, Release: release, KubeletBin: kubeletBin, APIServerBin: apiserverBin, Rules: rules,
		Every: 3 * time.Second, Before: 15 * time.Second, Freeze: 4 * time.Minute, MaxFreeze: 7 * time.Minute,
		Hold: 10 * time.Second, After: 10 * time.Second, MaxRecovery: 3 * time.Minute,
		Dumps:       []time.Duration{30 * time.Second, 150 * time.Second, 230 * time.Second},
		Endpoints:   []string{"/metrics/cadvisor", "/metrics/resource", "/configz", "/healthz"},
		PlegTimeout: 10 * time.Second, Logf: logf}
	// Rules that know a hung runtime are waited for; others may have no
	// sample to fire on while the kubelet's /metrics times out.
	if rules != "" {
		if list, err := ReadRules(rules); err == nil {
			for _, r := range list {
				if r.Alert == AlertRuntimeHung {
					h.Alerts = append(append([]string(nil), Alerts...), AlertRuntimeHung)
				}
			}
		}
	}
	return h
}

// HungRound is one round: the /metrics request (in Observation's
// Capture: its Err is the client's error, with Answer the details), the
// other endpoints, the Node object, Prometheus's alerts, targets and
// series.
type HungRound struct {
	Observation
	MetricsAnswer Answer
	Answers       []Answer
	Node          []byte
	Targets       []Target
	Series        map[string][]Sample // by query
	SeriesErr     string
}

// Answer returns the round's answer of path.
func (r *HungRound) Answer(path string) *Answer {
	if path == "/metrics" {
		return &r.MetricsAnswer
	}
	for i := range r.Answers {
		if r.Answers[i].Path == path {
			return &r.Answers[i]
		}
	}
	return nil
}

// PlegRun is one run of kubectl pleg.
type PlegRun struct {
	Start  time.Time     `json:"start"`
	Took   time.Duration `json:"took"`
	Code   int           `json:"exit"`
	Stdout string        `json:"stdout"`
	Stderr string        `json:"stderr"`
}

// Dump is the kubelet's goroutines, read at a moment of the freeze.
type Dump struct {
	Answer
	Text string
}

// HungRun is what a run of Hung saw.
type HungRun struct {
	Release        string
	Frozen, Thawed time.Time
	Rounds         []HungRound
	Pleg           []PlegRun
	Dumps          []Dump
	// Patient are /metrics requests with no timeout short of 5m, one
	// after the other from the freeze on: how long a scrape that waits
	// waits.
	Patient []Answer
	Log     []LogLine
	Crictl  []byte
	Rules   string
	Configz []byte
	// Stall is the fault's own account (the proxy's), when there is one.
	Stall []string
}

// Queries are the series read every round: per metrics_path.
var Queries = []string{`up{job="kubelet"}`, `scrape_duration_seconds{job="kubelet"}`}

// Run runs the scenario and returns what it saw; it stops everything it
// started, and thaws containerd whatever happens.
func (h *Hung) Run(ctx context.Context) (*HungRun, error) {
	spec := NodeSpec{Release: h.Release, KubeletBin: h.KubeletBin, APIServerBin: h.APIServerBin, Runtime: "built", WithPod: true, Profiling: true}
	if h.Proxy != nil {
		spec.CRIEndpoint = h.Proxy.Endpoint()
		spec.BeforeKubelet = h.Proxy.Start
	}
	n, err := h.Parts.StartNode(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer n.Stop()
	if h.Proxy != nil {
		defer h.Proxy.Stop()
	}
	run := &HungRun{Release: h.Release}
	if run.Rules, run.Crictl, err = ready(ctx, n, h.Rules); err != nil {
		return nil, err
	}
	prom, err := StartKubePrometheus(ctx, filepath.Join(n.Dir, "prometheus"), h.Rules, h.Every)
	if err != nil {
		return nil, err
	}
	defer prom.Stop()

	// The loops' requests end with the run, a patient one included.
	ctx, cancelLoops := context.WithCancel(ctx)
	defer cancelLoops()
	watched := watch(n, h.Every, h.Logf, func(i int) HungRound {
		r := h.round(ctx, n, prom)
		r.Index = i
		return r
	})
	// A round in flight ends at its client timeouts; a patient request
	// is cancelled.
	watched.onStop = func() {
		go func() {
			time.Sleep(2 * h.Every)
			cancelLoops()
		}()
	}
	defer watched.stop()
	until := watched.until
	if err := until(h.Before+time.Minute, "the node Ready", func(rs []HungRound) bool {
		last := rs[len(rs)-1]
		return last.Ready.Status == "True" && last.Start.Sub(rs[0].Start) >= h.Before
	}); err != nil {
		return nil, err
	}
	for rs := watched.all(); len(rs) > 0; rs = rs[:len(rs)-1] {
		if last := rs[len(rs)-1]; last.Err == nil {
			run.Configz = last.Configz
			break
		}
	}
	if h.Probe != nil {
		if err := h.Probe(ctx, n, PhaseReady); err != nil {
			return nil, err
		}
	}
	if h.KubectlPleg != "" {
		kubeconfig, err := n.Control.Kubeconfig("engineer", EngineerToken)
		if err != nil {
			return nil, err
		}
		watched.goLoop(func(done <-chan struct{}) {
			for {
				pr := h.kubectlPleg(ctx, kubeconfig)
				watched.Lock()
				run.Pleg = append(run.Pleg, pr)
				watched.Unlock()
				select {
				case <-done:
					return
				case <-time.After(time.Until(pr.Start.Add(h.Every))):
				}
			}
		})
	}

	// The fault.
	run.Frozen = time.Now()
	if h.Proxy != nil {
		h.Logf("%s: the CRI proxy holds %s", h.Release, h.Proxy.Method)
		h.Proxy.Hold(true)
	} else {
		h.Logf("%s: containerd (pid %d) frozen with SIGSTOP (its shim and the pod's container run on)", h.Release, n.Runtime.Pid())
		if err := n.Runtime.Freeze(); err != nil {
			return nil, err
		}
	}
	thawed := false
	thaw := func() error {
		if thawed {
			return nil
		}
		thawed = true
		if h.Proxy != nil {
			h.Proxy.Hold(false)
			return nil
		}
		return n.Runtime.Thaw()
	}
	defer thaw()
	// The patient scraper and the goroutine dumps, beside the rounds.
	watched.goLoop(func(done <-chan struct{}) {
		for {
			a := n.Kubelet.Get(ctx, "/metrics", 5*time.Minute)
			a.Body = nil
			watched.Lock()
			run.Patient = append(run.Patient, a)
			over := !run.Thawed.IsZero() && a.Start.After(run.Thawed)
			watched.Unlock()
			select {
			case <-done:
				return
			default:
			}
			if over {
				return
			}
			time.Sleep(h.Every)
		}
	})
	watched.goLoop(func(done <-chan struct{}) {
		for _, d := range h.Dumps {
			select {
			case <-done:
				return
			case <-time.After(time.Until(run.Frozen.Add(d))):
			}
			a := n.Kubelet.Get(ctx, "/debug/pprof/goroutine?debug=2", 30*time.Second)
			dump := Dump{Answer: a, Text: string(a.Body)}
			dump.Body = nil
			watched.Lock()
			run.Dumps = append(run.Dumps, dump)
			watched.Unlock()
		}
	})
	if err := until(h.MaxFreeze, "the freeze's end", func(rs []HungRound) bool {
		if time.Since(run.Frozen) < h.Freeze {
			return false
		}
		var named time.Time
		for _, r := range rs {
			if r.Start.After(run.Frozen) && strings.Contains(r.Ready.Message, PLEGUnhealthy) {
				named = r.Start
				break
			}
		}
		if named.IsZero() || time.Since(named) < h.Hold {
			return false
		}
		obs := make([]Observation, len(rs))
		for i := range rs {
			obs[i] = rs[i].Observation
		}
		for _, a := range h.Alerts {
			if !firing(obs, a) {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, err
	}
	watched.Lock()
	run.Thawed = time.Now()
	watched.Unlock()
	h.Logf("%s: the fault ends after %s", h.Release, run.Thawed.Sub(run.Frozen).Round(time.Second))
	if err := thaw(); err != nil {
		return nil, err
	}
	var recovered time.Time
	if err := until(h.MaxRecovery, "recovery", func(rs []HungRound) bool {
		last := rs[len(rs)-1]
		active := activeOf(last.Alerts, h.Alerts) || activeOf(last.Alerts, []string{AlertRuntimeHung})
		if last.Ready.Status != "True" || !last.Ready.At.After(run.Thawed) || active || last.Err != nil {
			return false
		}
		if recovered.IsZero() {
			recovered = time.Now()
		}
		return time.Since(recovered) >= h.After
	}); err != nil {
		return nil, err
	}
	watched.stop()
	run.Rounds = watched.all()
	if h.Proxy != nil {
		run.Stall = h.Proxy.Account()
	}
	if run.Log, err = ReadLog(n.Kubelet.Log()); err != nil {
		return nil, err
	}
	return run, nil
}

// round reads everything once, each read beside the others.
func (h *Hung) round(ctx context.Context, n *Node, prom *Prometheus) HungRound {
	var r HungRound
	var wg sync.WaitGroup
	answers := make([]Answer, len(h.Endpoints))
	for i, p := range h.Endpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = n.Kubelet.Get(ctx, p, h.Every)
			if p != "/configz" {
				answers[i].Body = nil
			}
		}()
	}
	wg.Add(3)
	go func() {
		defer wg.Done()
		r.MetricsAnswer = n.Kubelet.Get(ctx, "/metrics", h.Every)
	}()
	go func() {
		defer wg.Done()
		r.Ready, r.Node, r.ReadyErr = n.ReadyObject(ctx)
	}()
	go func() {
		defer wg.Done()
		r.AlertsAt = time.Now()
		r.Alerts, r.AlertsErr = prom.Alerts(ctx)
		r.Targets, _ = prom.Targets(ctx)
		r.Series = map[string][]Sample{}
		for _, q := range Queries {
			s, err := prom.Query(ctx, q)
			if err != nil {
				r.SeriesErr = err.Error()
			}
			r.Series[q] = s
		}
	}()
	wg.Wait()
	r.Answers = answers
	a := r.MetricsAnswer
	r.Start, r.End = a.Start, a.Start.Add(a.Took)
	if a.OK() {
		r.Metrics = a.Body
		if c := r.Answer("/configz"); c != nil && c.OK() {
			r.Configz = c.Body
		}
	} else {
		r.Err = errors.New(a.Err)
		if a.Err == "" {
			r.Err = fmt.Errorf("GET /metrics: %d", a.Status)
		}
	}
	r.MetricsAnswer.Body = nil
	return r
}

// kubectlPleg runs kubectl pleg once, its output as JSON.
func (h *Hung) kubectlPleg(ctx context.Context, kubeconfig string) PlegRun {
	pr := PlegRun{Start: time.Now()}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var o, e bytes.Buffer
	cmd := exec.CommandContext(ctx, h.KubectlPleg, "--kubeconfig", kubeconfig, "--skip-runtime-source",
		"--request-timeout", h.PlegTimeout.String(), "-o", "json")
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	pr.Took = time.Since(pr.Start)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		pr.Code = exit.ExitCode()
	default:
		pr.Code = -1
		e.WriteString(err.Error())
	}
	pr.Stdout, pr.Stderr = o.String(), e.String()
	return pr
}

// AlertRuntimeHung is the alert for a runtime that answers no call (a
// scrape of the kubelet's /metrics timing out), when the rules have it.
const AlertRuntimeHung = "KubeletRuntimeHung"

// Goroutine is one goroutine of a debug=2 dump: its header line and its
// frames, each a function and its file:line.
type Goroutine struct {
	Header string
	Frames []Frame
}

// Frame is one frame of a goroutine's stack.
type Frame struct {
	Func, File string
}

var (
	goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[`)
	createdIn       = regexp.MustCompile(` in goroutine \d+$`)
)

// ParseGoroutines reads a /debug/pprof/goroutine?debug=2 dump.
func ParseGoroutines(text string) []Goroutine {
	var gs []Goroutine
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	var cur *Goroutine
	for sc.Scan() {
		l := sc.Text()
		switch {
		case goroutineHeader.MatchString(l):
			gs = append(gs, Goroutine{Header: l})
			cur = &gs[len(gs)-1]
		case cur == nil || strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "\t"):
			if n := len(cur.Frames); n > 0 && cur.Frames[n-1].File == "" {
				f := strings.TrimSpace(l)
				if i := strings.LastIndex(f, " +0x"); i > 0 {
					f = f[:i]
				}
				cur.Frames[n-1].File = f
			}
		default:
			cur.Frames = append(cur.Frames, Frame{Func: createdIn.ReplaceAllString(l, "")})
		}
	}
	return gs
}

// Holds says whether any of the goroutine's frames' functions holds s.
func (g Goroutine) Holds(s string) bool {
	for _, f := range g.Frames {
		if strings.Contains(f.Func, s) {
			return true
		}
	}
	return false
}

// Trimmed is the goroutine with the frames a reader needs: those of
// Kubernetes, the CRI client, gRPC's invoke, Prometheus's client and
// net/http's ServeHTTP, each function without its arguments, deepest
// first.
func (g Goroutine) Trimmed() string {
	var b strings.Builder
	b.WriteString(g.Header + "\n")
	args := regexp.MustCompile(`\([^()]*\)$`)
	for _, f := range g.Frames {
		fn := f.Func
		if strings.Contains(fn, "k8s.io/apimachinery/pkg/util/wait.") || strings.Contains(fn, "go-restful") || strings.Contains(fn, "otelrestful") {
			continue
		}
		keep := strings.Contains(fn, "k8s.io/") || strings.Contains(fn, "google.golang.org/grpc") ||
			strings.Contains(fn, "prometheus/client_golang") || strings.Contains(fn, "ServeHTTP") ||
			strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "internal/sync.") || strings.HasPrefix(fn, "created by")
		if !keep {
			continue
		}
		fn = args.ReplaceAllString(fn, "")
		fmt.Fprintf(&b, "  %s\n      %s\n", fn, shortFile(f.File))
	}
	return b.String()
}

// shortFile cuts a frame's file to the path from the module on.
func shortFile(f string) string {
	for _, m := range []string{"/k8s.io/", "/google.golang.org/", "/github.com/"} {
		if i := strings.LastIndex(f, m); i >= 0 {
			return f[i+1:]
		}
	}
	if i := strings.LastIndex(f, "/src/"); i >= 0 {
		return f[i+5:]
	}
	return f
}

// BlockedMetrics returns the dump's goroutines that wait on a CRI call
// for a kubelet endpoint (a metrics collector's, which an endpoint's
// Gather runs in a goroutine of its own), the endpoint handlers that
// wait in Gather for them, and the other goroutines that wait on a CRI
// call (the relist, the node status, the runtime's status check, ...).
func BlockedMetrics(text string) (collectors, gathers, others []Goroutine) {
	for _, g := range ParseGoroutines(text) {
		cri := g.Holds("cri-client") || g.Holds("cri-api") || g.Holds("grpc.invoke")
		switch {
		case cri && (g.Holds("metrics/collectors") || g.Holds("net/http")):
			collectors = append(collectors, g)
		case cri:
			others = append(others, g)
		case g.Holds("prometheus.(*Registry).Gather") && g.Holds("promhttp"):
			gathers = append(gathers, g)
		}
	}
	return collectors, gathers, others
}
