package harness

import (
	"context"
	"path/filepath"
	"strings"
	"time"
)

// PLEGThreshold is the generic PLEG's relist threshold with EventedPLEG
// off, in every release from v1.25 to v1.37 (relistThreshold in v1.25's
// pleg/generic.go, genericPlegRelistThreshold in kubelet.go after): the
// runtime stays down at least this long.
const PLEGThreshold = 3 * time.Minute

// PLEGUnhealthy is the text the kubelet's runtimeErrors gives a failed
// "PLEG" health check ("%s is not healthy: %v", pkg/kubelet/runtime.go),
// in its log ("Skipping pod synchronization") and in the node's Ready
// condition.
const PLEGUnhealthy = "PLEG is not healthy"

// Unhealthy is issue 33's scenario: a kubelet of Release registered to
// its own API server, EventedPLEG unset, the static pod running on the
// containerd built from its module, watched by a Prometheus server with
// Rules; containerd is stopped alone (its shim and the pod's container
// keep running) until the node's Ready condition names the PLEG and each
// alert of Alerts fires, or PLEGThreshold + MaxExtra, and started again
// until the node is Ready, the kubelet's last-seen gauge moves and no
// alert of Alerts is active, or MaxRecovery.
type Unhealthy struct {
	Parts                    *Parts
	Release                  string
	KubeletBin, APIServerBin string
	// Rules is a Prometheus rules file ("": Prometheus scrapes, with no
	// rules); Alerts are the names of its alerts the run waits for.
	Rules  string
	Alerts []string
	// Every is how often the kubelet is scraped and the node's Ready
	// condition and Prometheus's alerts are read; Prometheus scrapes and
	// evaluates at the same interval.
	Every         time.Duration
	Before, After time.Duration // observed before the stop, and after recovery
	// Hold keeps the runtime down that much longer once the node's Ready
	// names the PLEG, for scrapes of a kubelet that says it is unhealthy.
	Hold                  time.Duration
	MaxExtra, MaxRecovery time.Duration
	Logf                  func(string, ...any)
	// Probe, when set, runs against the live node at two moments: once
	// the node is Ready before the stop (PhaseReady), and once its Ready
	// condition names the PLEG (PhaseUnhealthy), while the runtime is
	// still down; its error ends the run.
	Probe func(ctx context.Context, n *Node, phase string) error
}

// The moments Probe runs at.
const (
	PhaseReady     = "ready"
	PhaseUnhealthy = "pleg-unhealthy"
)

// NewUnhealthy is the scenario with the timings CI runs: the kubelet
// scraped, the node's Ready condition and Prometheus's alerts read every
// 3 s (Prometheus scrapes and evaluates as often), 15 s seen before the
// stop, 10 s held down once Ready names the PLEG, 10 s after recovery, at most 2m past the threshold and 3m to
// recover. With rules, the run waits for Alerts.
func (p *Parts) NewUnhealthy(release, kubeletBin, apiserverBin, rules string, logf func(string, ...any)) *Unhealthy {
	u := &Unhealthy{Parts: p, Release: release, KubeletBin: kubeletBin, APIServerBin: apiserverBin, Rules: rules,
		Every: 3 * time.Second, Before: 15 * time.Second, After: 10 * time.Second, Hold: 10 * time.Second,
		MaxExtra: 2 * time.Minute, MaxRecovery: 3 * time.Minute, Logf: logf}
	if rules != "" {
		u.Alerts = Alerts
	}
	return u
}

// Observation is one round: a scrape of the kubelet, the node's Ready
// condition and the active alerts, each read at its own moment.
type Observation struct {
	Capture
	Ready     Condition
	ReadyErr  error
	Alerts    []Alert
	AlertsAt  time.Time
	AlertsErr error
}

// UnhealthyRun is what a run of Unhealthy saw.
type UnhealthyRun struct {
	Release          string
	Stopped, Started time.Time
	Obs              []Observation
	Log              []LogLine
	Crictl           []byte
	Rules            string
}

// Run runs the scenario and returns what it saw; it stops everything it
// started.
func (u *Unhealthy) Run(ctx context.Context) (*UnhealthyRun, error) {
	n, err := u.Parts.StartNode(ctx, NodeSpec{Release: u.Release, KubeletBin: u.KubeletBin, APIServerBin: u.APIServerBin, Runtime: "built", WithPod: true})
	if err != nil {
		return nil, err
	}
	defer n.Stop()
	run := &UnhealthyRun{Release: u.Release}
	if run.Rules, run.Crictl, err = ready(ctx, n, u.Rules); err != nil {
		return nil, err
	}
	// The layout `plegvet alerts` writes its rules for by default: in
	// another, its rules' up{metrics_path="/metrics"} never matches and
	// no PLEG alert can fire.
	prom, err := StartKubePrometheus(ctx, filepath.Join(n.Dir, "prometheus"), u.Rules, u.Every)
	if err != nil {
		return nil, err
	}
	defer prom.Stop()

	watched := watch(n, u.Every, u.Logf, func(i int) Observation {
		o := Observation{}
		sc, err := n.Kubelet.Scrape(ctx)
		o.Err = err
		if sc != nil {
			o.Scrape = *sc
		} else {
			o.Start, o.End = time.Now(), time.Now()
		}
		o.Ready, o.ReadyErr = n.Ready(ctx)
		o.AlertsAt = time.Now()
		o.Alerts, o.AlertsErr = prom.Alerts(ctx)
		o.Index = i
		return o
	})
	defer watched.stop()
	until := watched.until
	if err := until(u.Before+time.Minute, "the node Ready", func(obs []Observation) bool {
		return len(obs) > 0 && obs[len(obs)-1].Ready.Status == "True" && obs[len(obs)-1].Start.Sub(obs[0].Start) >= u.Before
	}); err != nil {
		return nil, err
	}
	if u.Probe != nil {
		if err := u.Probe(ctx, n, PhaseReady); err != nil {
			return nil, err
		}
	}
	run.Stopped = time.Now()
	u.Logf("%s: containerd stopped (its shim and the pod's container keep running)", u.Release)
	if err := n.Runtime.StopDaemon(); err != nil {
		return nil, err
	}
	if err := until(PLEGThreshold+u.MaxExtra, "Ready to name the PLEG and every alert to fire", func(obs []Observation) bool {
		last := obs[len(obs)-1]
		if !strings.Contains(last.Ready.Message, PLEGUnhealthy) {
			return false
		}
		for _, a := range u.Alerts {
			if !firing(obs, a) {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, err
	}
	if u.Probe != nil {
		if err := u.Probe(ctx, n, PhaseUnhealthy); err != nil {
			return nil, err
		}
	}
	time.Sleep(u.Hold)
	run.Started = time.Now()
	u.Logf("%s: containerd started again", u.Release)
	if err := n.Runtime.Start(ctx); err != nil {
		return nil, err
	}
	var recovered time.Time
	if err := until(u.MaxRecovery, "recovery", func(obs []Observation) bool {
		last := obs[len(obs)-1]
		if last.Ready.Status != "True" || !last.Ready.At.After(run.Started) || activeOf(last.Alerts, u.Alerts) {
			return false
		}
		if recovered.IsZero() {
			recovered = time.Now()
		}
		return time.Since(recovered) >= u.After
	}); err != nil {
		return nil, err
	}
	watched.stop()
	run.Obs = watched.all()
	if run.Log, err = ReadLog(n.Kubelet.Log()); err != nil {
		return nil, err
	}
	return run, nil
}

// firing says whether an observation has shown the alert firing.
func firing(obs []Observation, name string) bool {
	for _, o := range obs {
		for _, a := range o.Alerts {
			if a.Name == name && a.State == "firing" {
				return true
			}
		}
	}
	return false
}

// activeOf says whether any of names is among the active alerts.
func activeOf(active []Alert, names []string) bool {
	for _, a := range active {
		for _, n := range names {
			if a.Name == n {
				return true
			}
		}
	}
	return false
}
