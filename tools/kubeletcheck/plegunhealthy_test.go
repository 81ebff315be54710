package kubeletcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// TestPLEGUnhealthy registers a kubelet (EventedPLEG unset) to a real API
// server with the static pod running, stops containerd alone for longer
// than the PLEG's threshold with a real Prometheus scraping the kubelet
// with the rules `plegvet alerts` writes, starts it again, and requires:
// the node's Ready condition turns False with "PLEG is not healthy" in
// its message, the kubelet's own words, once the last relist is older
// than the threshold; the stall alert fires before that and the unhealthy
// alert after the node turned NotReady, at the threshold; both resolve
// once containerd is back; the node is Ready again. PLEGVET_KUBELETCHECK_OUT
// keeps the run's trimmed captures under DIR/RELEASE/pleg-unhealthy.
func TestPLEGUnhealthy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a kubelet, an API server and Prometheus")
	}
	p := prepare(t)
	for _, release := range releases() {
		t.Run(release, func(t *testing.T) {
			kubelet, apiserver := kubernetesBins(t, p, release)
			ctx := context.Background()
			rules, err := harness.AlertRules(ctx, filepath.Join("..", ".."), release, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if rules == "" {
				t.Logf("plegvet has no alerts subcommand: Prometheus scrapes the kubelet with no rules, and no alert is asserted")
			}
			began := time.Now()
			u := p.NewUnhealthy(release, kubelet, apiserver, rules, t.Logf)
			u.Probe = kubectlPlegProbe(t, buildKubectlPleg(t))
			run, err := u.Run(ctx)
			skipOrFail(t, err)
			t.Logf("the scenario took %s", time.Since(began).Round(time.Second))
			tl := run.GaugeTimeline(harness.Alerts)
			for _, r := range tl.Rows() {
				at := "-"
				if !r.At.IsZero() {
					at = fmt.Sprintf("%+.1fs", r.At.Sub(run.Frozen).Seconds())
				}
				t.Logf("%8s %s: %s", at, r.What, r.Evidence)
			}
			if out := os.Getenv("PLEGVET_KUBELETCHECK_OUT"); out != "" {
				if err := run.KeepScrapes(filepath.Join(out, release, u.Name()), run.Picks(tl), tl); err != nil {
					t.Error(err)
				}
			}
			checkUnhealthyTimeline(t, tl, rules != "")
			src, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release}, release)
			if err != nil {
				t.Fatal(err)
			}
			// The scenario keeps containerd down past the threshold it
			// expects; the kubelet's own words above held it to that
			// threshold, and plegvet must read the same from the source.
			if th := src.HealthRule().GateOff; !th.Known || th.Duration != harness.PLEGThreshold {
				t.Errorf("plegvet reads the gate-off threshold %+v from %s; the kubelet said %s", th, release, harness.PLEGThreshold)
			}
			rt, err := nodeverdict.ReadCrictl("crictl version", run.Crictl)
			if err != nil {
				t.Fatal(err)
			}
			plegvet.JudgeRuntime(ctx, rt)
			asserted := 0
			for i := range run.Rounds {
				if checkHealth(t, src, rt, run, tl, &run.Rounds[i].Observation) {
					asserted++
				}
			}
			if asserted < len(run.Rounds)/2 {
				t.Errorf("plegvet's health asserted on %d of %d scrapes; want at least half", asserted, len(run.Rounds))
			}
		})
	}
}

// checkUnhealthyTimeline asserts the order of the run's moments.
func checkUnhealthyTimeline(t *testing.T, tl *harness.Timeline, withRules bool) {
	t.Helper()
	if tl.Frozen == nil {
		t.Errorf("kubelet_pleg_last_seen_seconds was not seen to stop advancing after containerd stopped")
	}
	if tl.ReadyPLEG == nil {
		t.Fatalf("the node's Ready condition never named %q while containerd was down", harness.PLEGUnhealthy)
	}
	if c := tl.ReadyPLEG.Ready; c.Status != "False" || harness.PLEGMessage(c.Message) == "" {
		t.Errorf("Ready=%s %q: want False with the kubelet's %q message", c.Status, c.Message, harness.PLEGUnhealthy)
	}
	if tl.PLEGLogged == nil {
		t.Errorf("the kubelet never logged %q after containerd stopped", harness.PLEGUnhealthy)
	} else if msg := harness.PLEGMessage(tl.PLEGLogged.Text); !strings.HasSuffix(msg, "threshold is "+harness.PLEGThreshold.String()) {
		t.Errorf("the kubelet's first %q line after the stop gives %q; want the threshold %s", harness.PLEGUnhealthy, msg, harness.PLEGThreshold)
	} else if !tl.LastRelist.IsZero() && tl.PLEGLogged.Time.Before(tl.LastRelist.Add(harness.PLEGThreshold)) {
		t.Errorf("the kubelet logged %q at %s, before its last relist (%s) was %s old", harness.PLEGUnhealthy, tl.PLEGLogged.Time.Format(time.TimeOnly), tl.LastRelist.Format(time.TimeOnly), harness.PLEGThreshold)
	}
	if tl.Advances == nil {
		t.Errorf("kubelet_pleg_last_seen_seconds did not advance again after containerd started")
	}
	if tl.ReadyTrue == nil {
		t.Errorf("the node did not turn Ready again after containerd started")
	}
	if !withRules {
		return
	}
	byName := map[string]harness.AlertTimes{}
	for _, a := range tl.Alerts {
		byName[a.Name] = a
		if a.Firing == nil {
			t.Errorf("alert %s never fired while containerd was down", a.Name)
			continue
		}
		if a.Resolved == nil || a.Resolved.AlertsAt.Before(tl.Started) {
			t.Errorf("alert %s did not resolve after containerd started", a.Name)
		}
	}
	stalled, unhealthy := byName[harness.AlertStalled], byName[harness.AlertUnhealthy]
	if stalled.Firing != nil && !stalled.Firing.AlertsAt.Before(tl.ReadyPLEG.Ready.At) {
		t.Errorf("%s fired at %s, not before the node's Ready named the PLEG (%s)", harness.AlertStalled, stalled.Firing.AlertsAt.Format(time.TimeOnly), tl.ReadyPLEG.Ready.At.Format(time.TimeOnly))
	}
	if unhealthy.Firing != nil && tl.ReadyFalse != nil && !unhealthy.Firing.AlertsAt.After(turnedFalse(tl.ReadyFalse)) {
		t.Errorf("%s fired at %s, not after the node turned NotReady (%s)", harness.AlertUnhealthy, unhealthy.Firing.AlertsAt.Format(time.TimeOnly), turnedFalse(tl.ReadyFalse).Format(time.TimeOnly))
	}
	// The gauge holds whole seconds: time() minus it runs up to a second
	// ahead of the kubelet's own elapsed time.
	if unhealthy.Firing != nil && !tl.LastRelist.IsZero() && unhealthy.ActiveAt.Before(tl.LastRelist.Add(harness.PLEGThreshold-time.Second)) {
		t.Errorf("%s went active at %s, before the last relist (%s) was %s old", harness.AlertUnhealthy, unhealthy.ActiveAt.Format(time.TimeOnly), tl.LastRelist.Format(time.TimeOnly), harness.PLEGThreshold)
	}
}

// checkHealth decides one scrape's PLEG health with plegvet, at the
// scrape's time, and requires it to be what the kubelet says at that
// moment: healthy while the gauge is fresh before the stop and once it
// advanced after the start; unhealthy, with the kubelet's own message up
// to the elapsed time, while the kubelet's last "PLEG is not healthy"
// line is current (at most its sync loop's backoff old, and before
// containerd's start: the kubelet logs nothing when it recovers); never
// healthy while the last relist is older than the threshold; and at-risk
// while the relist is stalled short of it.
func checkHealth(t *testing.T, src *plegvet.NodeSource, rt *nodeverdict.Runtime, run *harness.FaultRun, tl *harness.Timeline, o *harness.Observation) (asserted bool) {
	t.Helper()
	if o.Err != nil {
		t.Logf("scrape %d: %v", o.Index, o.Err)
		return false
	}
	rep := decideAt(t, src, rt, o.Scrape, o.Start, fmt.Sprintf("scrape %d", o.Index))
	h := rep.Health
	kubeletLine, kubeletMessage := run.KubeletSays(o.Start)
	current := kubeletLine != nil && o.Start.Sub(kubeletLine.Time) <= harness.SyncLoopMaxBackoff+time.Second &&
		o.Start.Before(run.Thawed) && strings.Contains(kubeletMessage, "last seen active")
	elapsed := o.Start.Sub(time.Unix(int64(o.LastSeen()), 0))
	th := src.HealthRule().GateOff.Duration
	where := fmt.Sprintf("scrape %d (%+.0fs after the stop, last seen %s ago)", o.Index, o.Start.Sub(run.Frozen).Seconds(), elapsed.Round(time.Second))
	t.Logf("%s: plegvet says %s %q; the kubelet's current PLEG message: %t %q", where, h.State, h.Message, current, kubeletMessage)
	switch {
	case current:
		if h.State != answer.Unhealthy {
			t.Errorf("%s: plegvet says %s; the kubelet says %q", where, h.State, kubeletMessage)
		}
		if sameUpToElapsed(h.Message) != sameUpToElapsed(kubeletMessage) {
			t.Errorf("%s: plegvet's message %q; the kubelet's %q (elapsed times aside)", where, h.Message, kubeletMessage)
		}
	case elapsed > th+time.Second && o.Start.Before(run.Thawed):
		if h.State == answer.Healthy {
			t.Errorf("%s: plegvet says healthy past the threshold %s", where, th)
		}
	case elapsed > 10*time.Second && elapsed < th-time.Second && o.Start.After(run.Frozen) && o.Start.Before(run.Thawed):
		// Stalled, not yet past the threshold: the kubelet says nothing
		// of its PLEG yet, and plegvet warns (well past five relist
		// periods behind) without calling it unhealthy.
		if h.State != answer.AtRisk {
			t.Errorf("%s: plegvet says %s; want at-risk before the threshold %s", where, h.State, th)
		}
	case elapsed < 5*time.Second && (o.Start.Before(run.Frozen) || tl.Advances != nil && !o.Start.Before(tl.Advances.Start)):
		if h.State != answer.Healthy {
			t.Errorf("%s: plegvet says %s (%q) on a fresh gauge", where, h.State, h.Evidence)
		}
	default:
		return false
	}
	return true
}

// sameUpToElapsed is a PLEG message with its elapsed time left out.
var elapsedTime = regexp.MustCompile(`active [0-9.a-zµ]+ ago`)

func sameUpToElapsed(msg string) string { return elapsedTime.ReplaceAllString(msg, "active _ ago") }

// kubectlPlegProbe runs kubectl pleg, with the README's RBAC, against the
// live node through the harness's real API server: once Ready before the
// stop, its HEALTH must be healthy and agree with the node's Ready
// condition; once the condition names the PLEG, unhealthy, agreeing with
// the condition, which it must read as the kubelet's PLEG error.
func kubectlPlegProbe(t *testing.T, plugin string) func(ctx context.Context, n *harness.Node, phase string) error {
	var kubeconfig string
	return func(ctx context.Context, n *harness.Node, phase string) error {
		if kubeconfig == "" {
			var err error
			if kubeconfig, err = n.Control.Kubeconfig("engineer", harness.EngineerToken); err != nil {
				return err
			}
			role, binding := readmeRBAC(t)
			apply(t, n.Control, "/apis/rbac.authorization.k8s.io/v1/clusterroles", role)
			apply(t, n.Control, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)
		}
		var rows []struct {
			Node   string `json:"node"`
			Error  string `json:"error"`
			Health struct {
				State   string `json:"state"`
				Message string `json:"message"`
			} `json:"health"`
			Condition *struct {
				Status        string `json:"status"`
				Message       string `json:"message"`
				PLEGUnhealthy *bool  `json:"plegUnhealthy"`
				Agrees        *bool  `json:"agrees"`
				Why           string `json:"why"`
			} `json:"condition"`
		}
		var out, stderr string
		var code int
		waitFor(t, 30*time.Second, "kubectl pleg to read the node", func() (bool, string) {
			out, stderr, code = run(t, plugin, "--kubeconfig", kubeconfig, "--skip-runtime-source", "-o", "json")
			rows = nil
			json.Unmarshal([]byte(out), &rows)
			return len(rows) == 1 && rows[0].Error == "" && rows[0].Condition != nil, fmt.Sprintf("exit %d\n%s\n%s", code, out, stderr)
		})
		r := rows[0]
		t.Logf("kubectl pleg at %s: exit %d, HEALTH %s %q; Ready %s %q, agrees %v: %s", phase, code, r.Health.State, r.Health.Message, r.Condition.Status, r.Condition.Message, r.Condition.Agrees, r.Condition.Why)
		agrees := r.Condition.Agrees != nil && *r.Condition.Agrees
		switch phase {
		case harness.PhaseReady:
			if r.Health.State != answer.Healthy || r.Condition.Status != "True" || !agrees {
				t.Errorf("kubectl pleg on the Ready node: HEALTH %s, Ready %s, agrees %v (%s); want healthy, True, agreeing\n%s", r.Health.State, r.Condition.Status, r.Condition.Agrees, r.Condition.Why, out)
			}
		case harness.PhaseUnhealthy:
			named := r.Condition.PLEGUnhealthy != nil && *r.Condition.PLEGUnhealthy
			if r.Health.State != answer.Unhealthy || r.Condition.Status != "False" || !named || !agrees || code != 3 {
				t.Errorf("kubectl pleg once Ready names the PLEG: exit %d, HEALTH %s, Ready %s (PLEG named %v), agrees %v (%s); want exit 3, unhealthy, False naming the PLEG, agreeing\n%s", code, r.Health.State, r.Condition.Status, r.Condition.PLEGUnhealthy, r.Condition.Agrees, r.Condition.Why, out)
			}
		}
		return nil
	}
}
