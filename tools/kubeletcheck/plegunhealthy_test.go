package kubeletcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
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
			run, err := p.NewUnhealthy(release, kubelet, apiserver, rules, t.Logf).Run(ctx)
			skipOrFail(t, err)
			t.Logf("the scenario took %s", time.Since(began).Round(time.Second))
			tl := run.Timeline(harness.Alerts)
			for _, r := range tl.Rows() {
				at := "-"
				if !r.At.IsZero() {
					at = fmt.Sprintf("%+.1fs", r.At.Sub(run.Stopped).Seconds())
				}
				t.Logf("%8s %s: %s", at, r.What, r.Evidence)
			}
			if out := os.Getenv("PLEGVET_KUBELETCHECK_OUT"); out != "" {
				if err := run.Keep(filepath.Join(out, release, "pleg-unhealthy"), run.Picks(tl), tl); err != nil {
					t.Error(err)
				}
			}
			checkUnhealthyTimeline(t, tl, rules != "")
			src, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release}, release)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := nodeverdict.ReadCrictl("crictl version", run.Crictl)
			if err != nil {
				t.Fatal(err)
			}
			plegvet.JudgeRuntime(ctx, rt)
			for i := range run.Obs {
				checkHealth(t, src, rt, run, &run.Obs[i])
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
	if unhealthy.Firing != nil && tl.ReadyFalse != nil && !unhealthy.Firing.AlertsAt.After(tl.ReadyFalse.Ready.At) {
		t.Errorf("%s fired at %s, not after the node turned NotReady (%s)", harness.AlertUnhealthy, unhealthy.Firing.AlertsAt.Format(time.TimeOnly), tl.ReadyFalse.Ready.At.Format(time.TimeOnly))
	}
	// The gauge holds whole seconds: time() minus it runs up to a second
	// ahead of the kubelet's own elapsed time.
	if unhealthy.Firing != nil && !tl.LastRelist.IsZero() && unhealthy.ActiveAt.Before(tl.LastRelist.Add(harness.PLEGThreshold-time.Second)) {
		t.Errorf("%s went active at %s, before the last relist (%s) was %s old", harness.AlertUnhealthy, unhealthy.ActiveAt.Format(time.TimeOnly), tl.LastRelist.Format(time.TimeOnly), harness.PLEGThreshold)
	}
}

// checkHealth is the per-scrape health assertion.
//
// TODO(merge): with nodehealth's health decision (rep.Health), assert on
// each scrape: rep.Health.State is "healthy" before the stop and after
// tl.Advances; "at-risk" or "unhealthy" from the first scrape after
// kubeletLine (the kubelet's last "PLEG is not healthy" line by the
// scrape's start, current while at most harness.SyncLoopMaxBackoff + 1s
// old and before containerd's start: the kubelet logs nothing when it
// recovers) until recovery; and rep.Health.Message equals kubeletMessage up to
// the elapsed time ("pleg was last seen active ...; threshold is 3m0s").
// Until then it logs what that assertion needs.
func checkHealth(t *testing.T, src *plegvet.NodeSource, rt *nodeverdict.Runtime, run *harness.UnhealthyRun, o *harness.Observation) {
	t.Helper()
	if o.Err != nil {
		t.Logf("scrape %d: %v", o.Index, o.Err)
		return
	}
	rep := decide(t, src, rt, o.Scrape, fmt.Sprintf("scrape %d", o.Index))
	kubeletLine, kubeletMessage := run.KubeletSays(o.Start)
	current := kubeletLine != nil && o.Start.Sub(kubeletLine.Time) <= harness.SyncLoopMaxBackoff+time.Second && o.Start.Before(run.Started)
	said := "nothing"
	if kubeletLine != nil {
		said = fmt.Sprintf("%q at %s (current %t)", kubeletMessage, kubeletLine.Time.Format("15:04:05.000"), current)
	}
	t.Logf("scrape %d (%+.0fs): last seen %.0fs ago; Ready=%s; verdict %s; the kubelet's PLEG message: %s",
		o.Index, o.Start.Sub(run.Stopped).Seconds(), float64(o.Start.Unix())-o.LastSeen(), o.Ready.Status, rep.Verdict, said)
}
