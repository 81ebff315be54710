package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// FaultScenario is the one round loop every fault of the shared model
// runs on (Fault): a kubelet of Release registered to its API server,
// its feature gates Gates (none: EventedPLEG unset), the static pod on the containerd built from its
// module (behind the CRI proxy when the fault needs one), read every
// round from the node's Ready on; the fault begins once the node is
// Ready, ends as the fault says, and the run ends once the node has
// recovered. Prometheus scrapes the kubelet in kube-prometheus's layout
// (one job, two endpoints told apart by metrics_path) every Every, with
// a timeout of Every, and kube-state-metrics when KubeStateMetrics is
// set.
type FaultScenario struct {
	Parts                    *Parts
	Release                  string
	KubeletBin, APIServerBin string
	// Gates are the kubelet's feature gates, set in its configuration.
	Gates  map[string]bool
	Rules  string
	Alerts []string
	// Every is the round: each endpoint's request, the Node object,
	// Prometheus's alerts and series are read every Every, each request
	// with a client timeout of Every; Prometheus scrapes and evaluates
	// as often, its scrape timeout Every.
	Every  time.Duration
	Before time.Duration
	// Fault is what is done to the runtime, and how long.
	Fault              Fault
	After, MaxRecovery time.Duration
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
	// KubeStateMetrics, when set, is a kube-state-metrics binary run
	// against the API server (StartKubeStateMetrics) and scraped by
	// Prometheus as job kube-state-metrics.
	KubeStateMetrics string
	Logf             func(string, ...any)
	Probe            func(ctx context.Context, n *Node, phase string) error
}

// Round is one round: the /metrics request (in Observation's
// Capture: its Err is the client's error, with Answer the details), the
// other endpoints, the Node object, Prometheus's alerts, targets and
// series.
type Round struct {
	Observation
	MetricsAnswer Answer
	Answers       []Answer
	Node          []byte
	Targets       []Target
	Series        map[string][]Sample // by query
	SeriesErr     string
}

// Answer returns the round's answer of path.
func (r *Round) Answer(path string) *Answer {
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

// FaultRun is what a run of a FaultScenario saw; Frozen and Thawed are
// when its fault began and ended, whatever the fault.
type FaultRun struct {
	Release string
	Fault   Fault
	// Gates and Every are the scenario's: the kubelet's feature gates
	// and the round.
	Gates map[string]bool
	Every time.Duration
	// Took is how long the run took, from the control plane's start to
	// the last round.
	Took           time.Duration
	Frozen, Thawed time.Time
	Rounds         []Round
	Pleg           []PlegRun
	Dumps          []Dump
	// Patient are /metrics requests with no timeout short of 5m, one
	// after the other from the fault on: how long a scrape that waits
	// waits, and what the answers said of the relist.
	Patient []Patient
	// PatientPaths are the same on the server's other paths that ask the
	// runtime (PatientServedPaths), each path's requests one after the
	// other, beside /metrics'.
	PatientPaths []Answer
	Log          []LogLine
	Crictl       []byte
	Rules        string
	Configz      []byte
	// Stall is the fault's own account (the proxy's), when there is one;
	// Delays the latency mode's, by method.
	Stall  []string
	Delays []Delays
}

// Queries are the series read every round: per metrics_path.
// kube_node_status_condition is read when kube-state-metrics runs.
var Queries = []string{`up{job="kubelet"}`, `scrape_duration_seconds{job="kubelet"}`, QueryReady}

// QueryReady is the node's Ready condition as kube-state-metrics shows it.
const QueryReady = `kube_node_status_condition{job="kube-state-metrics",condition="Ready"}`

// Run runs the scenario and returns what it saw; it stops everything it
// started, and ends the fault whatever happens.
func (h *FaultScenario) Run(ctx context.Context) (*FaultRun, error) {
	began := time.Now()
	spec := NodeSpec{Release: h.Release, KubeletBin: h.KubeletBin, APIServerBin: h.APIServerBin, Runtime: "built", WithPod: true, Profiling: true, Gates: h.Gates}
	if h.Fault.Pods+1 > 110 {
		// The default maxPods, 110, would leave the fault's last pods
		// unadmitted: room for them, the static pod and ten more.
		spec.MaxPods = h.Fault.Pods + 11
	}
	var proxy *CRIProxy
	if h.Fault.Proxied() {
		var err error
		if proxy, err = NewCRIProxy(h.Fault.Method); err != nil {
			return nil, err
		}
		defer proxy.Stop()
		spec.CRIEndpoint = proxy.Endpoint()
		spec.BeforeKubelet = proxy.Start
	}
	n, err := h.Parts.StartNode(ctx, spec)
	if err != nil {
		return nil, err
	}
	defer n.Stop()
	run := &FaultRun{Release: h.Release, Fault: h.Fault, Gates: h.Gates, Every: h.Every}
	if run.Rules, run.Crictl, err = ready(ctx, n, h.Rules); err != nil {
		return nil, err
	}
	layout := PromLayout{Interval: h.Every, KubePrometheus: true}
	if h.KubeStateMetrics != "" {
		ksm, err := StartKubeStateMetrics(ctx, h.KubeStateMetrics, n.Control, filepath.Join(n.Dir, "kube-state-metrics"))
		if err != nil {
			return nil, err
		}
		defer ksm.Stop()
		layout.KubeStateMetrics = ksm.Addr()
	}
	prom, err := StartPrometheusLayout(ctx, filepath.Join(n.Dir, "prometheus"), h.Rules, layout)
	if err != nil {
		return nil, err
	}
	defer prom.Stop()

	// The loops' requests end with the run, a patient one included.
	ctx, cancelLoops := context.WithCancel(ctx)
	defer cancelLoops()
	watched := watch(n, h.Every, h.Logf, func(i int) Round {
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
	if err := until(h.Before+time.Minute, "the node Ready", func(rs []Round) bool {
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
	h.Logf("%s: %s (containerd pid %d)", h.Release, h.Fault.Describe(), n.Runtime.Pid())
	watched.Lock()
	run.Frozen = time.Now()
	watched.Unlock()
	if err := h.Fault.begin(n, proxy); err != nil {
		return nil, err
	}
	ended := false
	end := func() error {
		if ended {
			return nil
		}
		ended = true
		return h.Fault.end(ctx, n, proxy)
	}
	defer end()
	// The patient requests and the goroutine dumps, beside the rounds.
	h.patient(ctx, n, run, watched)
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
	// A fault of fixed length ends at Least (= Most): a little slack
	// keeps its end from being logged as a wait that ran out.
	within := h.Fault.Most
	if !h.Fault.UntilPLEG {
		within += 5 * time.Second
	}
	if err := until(within, "the fault's end", func(rs []Round) bool {
		return h.Fault.over(run.Frozen, rs, h.Alerts)
	}); err != nil {
		return nil, err
	}
	if h.Fault.UntilPLEG && h.Probe != nil {
		if err := h.Probe(ctx, n, PhaseUnhealthy); err != nil {
			return nil, err
		}
	}
	watched.Lock()
	run.Thawed = time.Now()
	watched.Unlock()
	h.Logf("%s: the fault ends after %s", h.Release, run.Thawed.Sub(run.Frozen).Round(time.Second))
	if err := end(); err != nil {
		return nil, err
	}
	var recovered time.Time
	if err := until(h.MaxRecovery, "recovery", func(rs []Round) bool {
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
	if proxy != nil {
		run.Stall, run.Delays = proxy.Account(), proxy.Delays()
	}
	if run.Log, err = ReadLog(n.Kubelet.Log()); err != nil {
		return nil, err
	}
	run.Took = time.Since(began)
	return run, nil
}

// MetricRelists is the relist's duration histogram's count: one more per
// relist that listed the pods.
const MetricRelists = "kubelet_pleg_relist_duration_seconds_count"

// metricValue is Metric's value as a number; 0 when absent.
func metricValue(metrics []byte, name string) float64 {
	v, ok := Metric(metrics, name)
	if !ok {
		return 0
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// Relists is the round's kubelet_pleg_relist_duration_seconds_count, 0
// when its /metrics did not answer.
func (r *Round) Relists() float64 {
	if r.Err != nil {
		return 0
	}
	return metricValue(r.Metrics, MetricRelists)
}

// round reads everything once, each read beside the others.
func (h *FaultScenario) round(ctx context.Context, n *Node, prom *Prometheus) Round {
	var r Round
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
func (h *FaultScenario) kubectlPleg(ctx context.Context, kubeconfig string) PlegRun {
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

// AlertsLag is how long after the kubelet changes its Ready condition
// an alert that reads Ready through kube-state-metrics may still show
// the old state: kube-state-metrics' next scrape, then the rule's next
// evaluation, each up to Every apart, and one second more because the
// condition's transition time is in whole seconds.
func (run *FaultRun) AlertsLag() time.Duration { return 2*run.Every + time.Second }

// ReadySettled says whether the round saw the node Ready and Ready had
// been True for longer than lag when the round read the alerts: only
// then does an alert still firing on Ready False contradict the node.
func (r *Round) ReadySettled(lag time.Duration) bool {
	if r.Ready.Status != "True" {
		return false
	}
	at := r.AlertsAt
	if at.IsZero() {
		at = r.Ready.At
	}
	return r.Ready.Transition.IsZero() || at.Sub(r.Ready.Transition) > lag
}
