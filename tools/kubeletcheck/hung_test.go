package kubeletcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// TestRuntimeHung registers a kubelet (EventedPLEG unset) to a real API
// server with the static pod running on containerd v2, freezes
// containerd's daemon alone with SIGSTOP for at least 4 minutes while a
// real Prometheus scrapes the kubelet in kube-prometheus's layout with
// the rules `plegvet alerts` writes, thaws it, and requires what the
// runs measured (docs/runtime-hung-measured.md): /metrics times out (it is never
// refused) from the first round after the freeze while the handler
// waits on the runtime; Ready turns False naming the PLEG; the kubelet
// logs "PLEG is not healthy"; everything recovers after SIGCONT.
// PLEGVET_KUBELETCHECK_OUT keeps everything under DIR/RELEASE/runtime-hung.
func TestRuntimeHung(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a kubelet, an API server and Prometheus, and freezes the runtime for 4 minutes")
	}
	run, tl, plegvetBin, withRules := runFault(t, harness.Frozen(), nil)
	checkHung(t, run, tl, withRules)
	checkHungVerdicts(t, run, tl, plegvetBin)
}

// SlowMethod is the CRI method TestRuntimeSlowCall's proxy holds.
const SlowMethod = "/runtime.v1.RuntimeService/ListPodSandbox"

// TestRuntimeSlowCall puts a CRI proxy (raw gRPC frames) between the
// kubelet and containerd and, once the node is Ready, holds every
// ListPodSandbox call until its caller's deadline passes, as a call
// stuck on a hung mount does, for at least 4 minutes; every other call
// is answered. It requires what the runs measured (docs/runtime-hung-measured.md).
func TestRuntimeSlowCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a kubelet, an API server and Prometheus, and holds a CRI call for 4 minutes")
	}
	run, tl, plegvetBin, _ := runFault(t, harness.Held(SlowMethod), nil)
	checkSlowCall(t, run, tl)
	// Seen from outside, one hung call is a hung runtime: plegvet node
	// and kubectl pleg say so (measured: at-risk, then unhealthy, runtime
	// hung).
	checkHungVerdicts(t, run, tl, plegvetBin)
}

// runFault runs the fault scenario with fault (on NewHung's node, then
// changed by adjust when given); it logs what the run saw and keeps it
// under PLEGVET_KUBELETCHECK_OUT/RELEASE/fault's name.
func runFault(t *testing.T, fault harness.Fault, adjust func(*harness.FaultScenario)) (*harness.FaultRun, *harness.FaultTimeline, string, bool) {
	p := prepare(t)
	release := releases()[0]
	kubelet, apiserver := kubernetesBins(t, p, release)
	ctx := context.Background()
	tmp := t.TempDir()
	rules, err := harness.AlertRules(ctx, filepath.Join("..", ".."), release, tmp)
	if err != nil {
		t.Fatal(err)
	}
	h := p.NewHung(release, kubelet, apiserver, rules, t.Logf)
	h.Fault = fault
	// The alerts read the node's Ready condition from kube-state-metrics
	// (kube_node_status_condition), as in kube-prometheus.
	if h.KubeStateMetrics, err = p.Builder.KubeStateMetrics(ctx); err != nil {
		t.Fatal(err)
	}
	h.KubectlPleg = buildKubectlPleg(t)
	h.Probe = kubectlPlegProbe(t, h.KubectlPleg)
	if adjust != nil {
		adjust(h)
	}
	began := time.Now()
	run, err := h.Run(ctx)
	skipOrFail(t, err)
	t.Logf("the scenario took %s", time.Since(began).Round(time.Second))
	tl := run.Timeline(ruleNames(t, rules))
	logHung(t, run, tl, fault.Describe())
	if out := os.Getenv("PLEGVET_KUBELETCHECK_OUT"); out != "" {
		dir := filepath.Join(out, release, fault.Name())
		if err := run.Save(filepath.Join(dir, "all")); err != nil {
			t.Error(err)
		}
		if err := run.Keep(dir, tl, fault.Describe()); err != nil {
			t.Error(err)
		}
	}
	return run, tl, filepath.Join(tmp, "plegvet"), rules != ""
}

// checkSlowCall asserts what the slow-call runs measured: the proxy
// held calls until the kubelet gave up on them; the node's Ready named
// the PLEG while it did; everything recovered after.
func checkSlowCall(t *testing.T, run *harness.FaultRun, tl *harness.FaultTimeline) {
	t.Helper()
	gaveUp := 0
	for _, s := range run.Stall {
		if strings.Contains(s, "the caller gave up") {
			gaveUp++
		}
	}
	if gaveUp == 0 {
		t.Errorf("the proxy held no %s call until the kubelet gave up on it", SlowMethod)
	}
	if tl.ReadyPLEG == nil {
		t.Errorf("the node's Ready never named %q while %s was held", harness.PLEGUnhealthy, SlowMethod)
	}
	// The runtime's Status and Version answer: Ready turns False for the
	// PLEG alone, once its last relist is 3m old.
	if f := tl.ReadyFalse; f != nil && (harness.PLEGMessage(f.Ready.Message) == "" || strings.Contains(f.Ready.Message, "container runtime is down")) {
		t.Errorf("Ready turned False with %q; want the PLEG's message alone", f.Ready.Message)
	}
	if l := tl.Logged["container runtime is down"]; l != nil {
		t.Errorf("the kubelet logged the runtime down while only %s was held: %s", SlowMethod, l.Raw)
	}
	// /metrics waits on the held call (the stats collectors list the
	// sandboxes); /configz answers.
	if tl.FirstTimeout == nil || tl.FirstRefused != nil {
		t.Errorf("/metrics while %s was held: first timeout %v, first refusal %v; want timeouts, no refusal", SlowMethod, tl.FirstTimeout != nil, tl.FirstRefused != nil)
	}
	for _, e := range run.Endpoints() {
		if n := e.OK + e.TimedOut + e.Refused + e.Other; e.Path == "/configz" && e.OK < n*9/10 {
			t.Errorf("/configz while %s was held: %d of %d answered", SlowMethod, e.OK, n)
		}
	}
	if tl.ReadyTrue == nil {
		t.Errorf("the node did not turn Ready again after the hold ended")
	}
}

// ruleNames are the alert names of a rules file, every one timed.
func ruleNames(t *testing.T, rules string) []string {
	if rules == "" {
		return nil
	}
	list, err := harness.ReadRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list {
		names = append(names, r.Alert)
	}
	return names
}

// logHung logs the run's moments, seconds after the fault, each
// endpoint's sums, the patient scrapes, kubectl pleg's changes and the
// blocked stacks.
func logHung(t *testing.T, run *harness.FaultRun, tl *harness.FaultTimeline, fault string) {
	t.Helper()
	for _, r := range tl.Rows(fault) {
		at := "-"
		if !r.At.IsZero() {
			at = fmt.Sprintf("%+.1fs", r.At.Sub(run.Frozen).Seconds())
		}
		t.Logf("%8s %s: %s", at, r.What, r.Evidence)
	}
	for _, e := range run.Endpoints() {
		t.Logf("during the fault %s: %d answered (slowest %s), %d timed out, %d refused, %d other; first error %s %q; first answer after the fault %s",
			e.Path, e.OK, e.MaxOK.Round(time.Millisecond), e.TimedOut, e.Refused, e.Other, since(e.FirstFailAt, run.Frozen), e.FirstErr, since(e.FirstBack, run.Frozen))
	}
	for _, a := range run.Patient {
		t.Logf("patient GET /metrics at %+.1fs: took %s, status %d, error %q", a.Start.Sub(run.Frozen).Seconds(), a.Took.Round(time.Millisecond), a.Status, a.Err)
	}
	prev := ""
	for _, p := range run.Pleg {
		if s := p.Says(); s != prev {
			t.Logf("kubectl pleg at %+.1fs (took %s): %s", p.Start.Sub(run.Frozen).Seconds(), p.Took.Round(time.Millisecond), s)
			prev = s
		}
	}
	for _, d := range run.Dumps {
		t.Logf("goroutine dump %+.1fs: status %d, took %s, error %q\n%s", d.Start.Sub(run.Frozen).Seconds(), d.Status, d.Took.Round(time.Millisecond), d.Err, harness.Cut(run.BlockedText(d), 6000))
	}
	for _, s := range run.Stall {
		t.Logf("proxy: %s", s)
	}
	// Prometheus's view, once per change.
	prev = ""
	for _, r := range run.Rounds {
		s := fmt.Sprintf("up %v scrape_duration_seconds %v", r.Up(), r.Durations())
		key := fmt.Sprint(r.Up())
		if key != prev {
			t.Logf("prometheus at %+.1fs: %s; errors %q %q", r.Start.Sub(run.Frozen).Seconds(), s, r.TargetError("/metrics"), r.TargetError("/metrics/cadvisor"))
			prev = key
		}
	}
}

func since(t, ref time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%+.1fs", t.Sub(ref).Seconds())
}

// checkHung asserts what the hung runs measured.
func checkHung(t *testing.T, run *harness.FaultRun, tl *harness.FaultTimeline, withRules bool) {
	t.Helper()
	if tl.FirstTimeout == nil {
		t.Errorf("no /metrics request timed out while containerd was frozen")
	}
	if tl.FirstRefused != nil {
		t.Errorf("the kubelet refused /metrics at %+.1fs: it should still listen", tl.FirstRefused.Start.Sub(run.Frozen).Seconds())
	}
	if tl.ReadyPLEG == nil {
		t.Errorf("the node's Ready never named %q while containerd was frozen", harness.PLEGUnhealthy)
	} else if c := tl.ReadyPLEG.Ready; c.Status != "False" {
		t.Errorf("Ready=%s %q: want False", c.Status, c.Message)
	}
	if tl.Logged[harness.PLEGUnhealthy] == nil {
		t.Errorf("the kubelet never logged %q while containerd was frozen", harness.PLEGUnhealthy)
	}
	// Ready turns False first for the runtime's status check (its Status
	// call waits the whole runtimeRequestTimeout, 2m), and names the PLEG
	// only at the node status update after that (each waits 2m in the
	// runtime's Version).
	if f := tl.ReadyFalse; f == nil {
		t.Errorf("the node's Ready never turned False while containerd was frozen")
	} else {
		if !strings.Contains(f.Ready.Message, "container runtime is down") {
			t.Errorf("Ready turned False with %q; want \"container runtime is down\"", f.Ready.Message)
		}
		if d := f.Ready.At.Sub(run.Frozen); d < 110*time.Second {
			t.Errorf("Ready turned False %.1fs after the freeze; want no sooner than the 2m runtimeRequestTimeout", d.Seconds())
		}
		if tl.ReadyPLEG != nil && tl.ReadyPLEG.Ready.At.Before(f.Ready.At) {
			t.Errorf("Ready named the PLEG before it turned False for the runtime")
		}
	}
	// Each endpoint: /metrics and /metrics/resource wait on the runtime,
	// the others answer (a loaded machine may miss one in ten).
	for _, e := range run.Endpoints() {
		n := e.OK + e.TimedOut + e.Refused + e.Other
		switch e.Path {
		case "/metrics", "/metrics/resource":
			if e.TimedOut < n*9/10 || e.Refused > 0 {
				t.Errorf("%s during the freeze: %d timed out, %d refused of %d; want timeouts, none refused", e.Path, e.TimedOut, e.Refused, n)
			}
		default:
			if e.OK < n*9/10 {
				t.Errorf("%s during the freeze: %d of %d answered; want it to answer", e.Path, e.OK, n)
			}
		}
	}
	// Prometheus: the /metrics endpoint down with a scrape that ran to
	// its timeout; /metrics/cadvisor up (a loaded machine may miss one
	// scrape in ten).
	downSeen := false
	rounds, cadvisorDown := 0, 0
	for _, r := range run.Rounds {
		if r.Start.Before(run.Frozen.Add(10*time.Second)) || !r.Start.Before(run.Thawed) {
			continue
		}
		rounds++
		up, dur := r.Up(), r.Durations()
		if v, ok := up["/metrics/cadvisor"]; ok && v == 0 {
			cadvisorDown++
			t.Logf("round %d: up{metrics_path=\"/metrics/cadvisor\"} 0 during the freeze (scrape_duration_seconds %v): %q", r.Index, dur["/metrics/cadvisor"], r.TargetError("/metrics/cadvisor"))
		}
		if v, ok := up["/metrics"]; ok && v == 0 {
			downSeen = true
			if dur["/metrics"] < 2.5 || !strings.Contains(r.TargetError("/metrics"), "deadline exceeded") {
				t.Errorf("round %d: up{metrics_path=\"/metrics\"} 0 with scrape_duration_seconds %v, error %q; want a scrape that ran to its timeout", r.Index, dur["/metrics"], r.TargetError("/metrics"))
			}
		}
	}
	if cadvisorDown > rounds/10 {
		t.Errorf("up{metrics_path=\"/metrics/cadvisor\"} 0 in %d of %d rounds of the freeze; want it up", cadvisorDown, rounds)
	}
	if !downSeen {
		t.Errorf("Prometheus never showed up{metrics_path=\"/metrics\"} 0 during the freeze")
	}
	// A request that waits gets its answer once the collectors' CRI
	// calls run out of the 2m runtimeRequestTimeout.
	if len(run.Patient) == 0 {
		t.Errorf("no patient /metrics request")
	} else if a := run.Patient[0]; a.Status != 200 || a.Took < 110*time.Second || a.Took > 140*time.Second {
		t.Errorf("the first patient /metrics request: status %d after %s (%q); want 200 after about 2m", a.Status, a.Took, a.Err)
	}
	if tl.MetricsBack == nil {
		t.Errorf("/metrics did not answer again after the thaw")
	}
	if tl.ReadyTrue == nil {
		t.Errorf("the node did not turn Ready again after the thaw")
	}
	blocked := false
	for _, d := range run.Dumps {
		if c, g, _ := harness.BlockedMetrics(d.Text); len(c) > 0 && len(g) > 0 {
			blocked = true
		}
	}
	if !blocked {
		t.Errorf("no goroutine dump showed a metrics collector waiting on a CRI call and a handler waiting in Gather")
	}
	if !withRules {
		return
	}
	// Rules that know a hung runtime (KubeletRuntimeHung among them) are
	// the switch for what today's rules cannot do: a scrape that times
	// out leaves kubelet_pleg_last_seen_seconds stale, and the rules
	// that read it have no sample.
	hungRules := false
	var first *harness.AlertTimes
	for i, a := range tl.Alerts {
		if a.Name == harness.AlertRuntimeHung {
			hungRules = true
		}
		if a.Firing != nil && a.Firing.AlertsAt.Before(tl.Thawed) && (first == nil || a.Firing.AlertsAt.Before(first.Firing.AlertsAt)) {
			first = &tl.Alerts[i]
		}
	}
	for _, a := range tl.Alerts {
		// Every alert that fired resolves; only KubeletMetricsDark before
		// the thaw, yielding to KubeletRuntimeHung once Ready is False.
		switch {
		case a.Firing == nil:
		case a.Resolved == nil:
			t.Errorf("alert %s fired and did not resolve", a.Name)
		case a.Resolved.AlertsAt.Before(tl.Thawed) && (a.Name != harness.AlertMetricsDark || tl.ReadyFalse == nil || a.Resolved.AlertsAt.Before(turnedFalse(&tl.ReadyFalse.Observation))):
			t.Errorf("alert %s resolved at %s, before the thaw and not for Ready turning False", a.Name, a.Resolved.AlertsAt.Format(time.TimeOnly))
		}
		if a.Firing != nil && !a.Firing.AlertsAt.Before(tl.Thawed) {
			t.Errorf("alert %s first fired at %s, after the thaw", a.Name, a.Firing.AlertsAt.Format(time.TimeOnly))
		}
		if !hungRules {
			continue
		}
		if a.Name == harness.AlertUnhealthy && (a.Firing == nil || !a.Firing.AlertsAt.Before(tl.Thawed)) {
			t.Errorf("alert %s did not fire while containerd was frozen", a.Name)
		}
		if a.Name == harness.AlertRuntimeHung && (a.Firing == nil || !a.Firing.AlertsAt.Before(tl.Thawed)) {
			t.Errorf("alert %s did not fire while containerd was frozen", a.Name)
		}
	}
	if !hungRules {
		t.Logf("the rules have no %s: the alerts during the hang are logged, not asserted", harness.AlertRuntimeHung)
		return
	}
	if first == nil || tl.ReadyFalse == nil || !first.Firing.AlertsAt.Before(tl.ReadyFalse.Ready.At) {
		t.Errorf("no alert fired before the node's Ready turned False (first firing %+v)", first)
	}
}

// hungAware says whether the plegvet built from this repository reads a
// failed scrape (plegvet node -metrics-error): the switch for the
// assertions of a verdict during the hang.
func hungAware(t *testing.T, plegvetBin string) bool {
	out, _ := exec.Command(plegvetBin, "node", "-h").CombinedOutput()
	return strings.Contains(string(out), "-metrics-error")
}

// kubectlPlegAware says whether the kubectl-pleg of this repository
// hands a failed metrics request to the verdict (its fleet package
// names nodeverdict's MetricsFailure): the switch for the assertions of
// its rows during the hang.
func kubectlPlegAware() bool {
	files, _ := filepath.Glob(filepath.Join("..", "kubectl-pleg", "fleet", "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), "MetricsFailure") {
			return true
		}
	}
	return false
}

// checkHungVerdicts asserts kubectl pleg's rows during the fault, and,
// once plegvet reads a failed scrape, plegvet node's: at-risk from the
// first timed-out scrape, unhealthy once Ready is False, never healthy
// and never an error row while the runtime is hung. Until then it logs
// what they say.
func checkHungVerdicts(t *testing.T, run *harness.FaultRun, tl *harness.FaultTimeline, plegvetBin string) {
	t.Helper()
	aware, pluginAware := hungAware(t, plegvetBin), kubectlPlegAware()
	if !aware {
		t.Logf("plegvet node has no -metrics-error: its verdicts during the hang are not asserted")
	}
	if !pluginAware {
		t.Logf("kubectl-pleg does not hand a failed metrics request to the verdict (no MetricsFailure in its fleet package): its rows during the hang are logged, not asserted")
	}
	if tl.FirstTimeout == nil {
		return
	}
	for _, p := range run.Pleg {
		if p.Start.Before(tl.FirstTimeout.Start) || !p.Start.Add(p.Took).Before(tl.Thawed) {
			continue
		}
		rows := p.Rows()
		where := fmt.Sprintf("kubectl pleg at %+.1fs", p.Start.Sub(run.Frozen).Seconds())
		if !pluginAware {
			continue
		}
		if len(rows) != 1 || rows[0].Error != "" {
			t.Errorf("%s: %s; want one row without an error", where, p.Says())
			continue
		}
		h := rows[0].Health
		// The Node object turned False between the last round that read
		// True and the first that read False: a row read within that
		// window may say either.
		var trueAt, falseAt time.Time
		if tl.ReadyFalse != nil {
			falseAt = tl.ReadyFalse.Ready.At
			trueAt = falseAt
			if i := tl.ReadyFalse.Index - 1; i >= 0 {
				trueAt = run.Rounds[i].Ready.At
			}
		}
		end := p.Start.Add(p.Took)
		// Dark is not dead: while /metrics times out the PLEG's health is
		// the Node's Ready condition's, never the last scrape's age; a
		// timeout through the API server's proxy does not say it reached
		// the kubelet, so the row claims no runtime state.
		want := []string{"at-risk"}
		switch {
		case !falseAt.IsZero() && p.Start.After(falseAt):
			want = []string{"unhealthy"}
		case !falseAt.IsZero() && end.After(trueAt):
			want = []string{"at-risk", "unhealthy"}
		}
		if !slices.Contains(want, h.State) || h.Runtime != "unknown" {
			t.Errorf("%s: %s; want %s, runtime unknown", where, p.Says(), strings.Join(want, " or "))
		}
	}
	if !aware {
		return
	}
	// plegvet node on each round's failed scrape: the configz, the
	// metrics error, the round's time, the Node object, the last good
	// scrape.
	dir := t.TempDir()
	last := filepath.Join(dir, "last-good.txt")
	configz := filepath.Join(dir, "configz.json")
	os.WriteFile(configz, run.Configz, 0o644)
	var lastGood time.Time
	for i := range run.Rounds {
		o := &run.Rounds[i]
		if o.Err == nil {
			os.WriteFile(last, harness.TrimMetrics(o.Metrics, o.Start), 0o644)
			lastGood = o.Start
			continue
		}
		if o.Start.Before(tl.FirstTimeout.Start) || !o.Start.Before(tl.Thawed) {
			continue
		}
		if o.ReadyErr != nil || len(o.Node) == 0 {
			t.Logf("round %d: no Node object read (%v): plegvet node not run", o.Index, o.ReadyErr)
			continue
		}
		node := filepath.Join(dir, "node.json")
		os.WriteFile(node, o.Node, 0o644)
		out, err := exec.Command(plegvetBin, "node", "-k8s", run.Release, "-configz", configz, "-metrics-error", o.Err.Error(), "-metrics-waited", o.MetricsAnswer.Took.String(),
			"-at", o.Start.UTC().Format(time.RFC3339Nano), "-node", node, "-last-metrics", last, "-json").Output()
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, harness.Cut(string(ee.Stderr), 500))
		}
		where := fmt.Sprintf("plegvet node on round %d (%+.1fs)", o.Index, o.Start.Sub(run.Frozen).Seconds())
		state, runtime := jsonField(out, "health", "state"), jsonField(out, "health", "runtime")
		// The state is the Ready condition's: unhealthy once it is
		// False, at-risk while True, however old the last scrape's relist.
		want := "at-risk"
		if o.Ready.Status == "False" {
			want = "unhealthy"
		}
		// The runtime: hung once Ready is False for it within the
		// ladder's window after the last scrape that answered (2m0s to
		// 2m10s on v1.37.2); unanswered while Ready is True within that
		// window; past it with Ready True (a held call leaves the
		// runtime's own status calls answered) slow.
		wantRuntime := []string{"unanswered"}
		switch {
		case o.Ready.Status == "False" && strings.Contains(o.Ready.Message, "container runtime is down"):
			wantRuntime = []string{"hung"}
		case o.Ready.Status == "False":
			wantRuntime = []string{"unanswered", "slow"}
		case !lastGood.IsZero() && o.Start.Sub(lastGood) > hangWindow-10*time.Second:
			wantRuntime = []string{"unanswered", "slow"}
		}
		if state != want || !slices.Contains(wantRuntime, runtime) {
			t.Errorf("%s: health %q runtime %q (%v); want %s, %s\n%s", where, state, runtime, err, want, strings.Join(wantRuntime, " or "), harness.Cut(string(out), 2000))
		}
	}
}

// hangWindow is the ladder's bound for a hung runtime's Ready False on
// v1.37.2 (plegvet report -k8s v1.37.2: 2m0s to 2m10s after the hang).
const hangWindow = 2*time.Minute + 10*time.Second

// jsonField digs a string out of a JSON object by its keys; "" when
// absent.
func jsonField(data []byte, keys ...string) string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// turnedFalse is when the kubelet turned Ready False: the condition's
// lastTransitionTime (whole seconds, so never after the moment), else the
// round that read it. A round reads the alerts and the Node object side
// by side, each stamped with its own time, so an alert resolved for Ready
// False may be stamped a few milliseconds before the round's Ready (CI, 2026-12-07:
// KubeletMetricsDark resolved at 11:44:13 in the round that read the
// transition of 11:44:10).
func turnedFalse(o *harness.Observation) time.Time {
	if t := o.Ready.Transition; !t.IsZero() {
		return t
	}
	return o.Ready.At
}
