package harness

import (
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

// The moments Probe runs at.
const (
	PhaseReady     = "ready"
	PhaseUnhealthy = "pleg-unhealthy"
)

// NewUnhealthy is issue 33's scenario on the shared round loop: the
// node of NewHung, read every 3 s (Prometheus scrapes and evaluates as
// often), 15 s before the stop, containerd stopped alone (its shim and
// the pod's container keep running) until the node's Ready names the
// PLEG and every alert of Alerts fired, held 10 s more (at most 2m past
// PLEGThreshold), then started again; 10 s after recovery, at most 3m
// to recover. With rules, the run waits for Alerts.
func (p *Parts) NewUnhealthy(release, kubeletBin, apiserverBin, rules string, logf func(string, ...any)) *FaultScenario {
	h := &FaultScenario{Parts: p, Release: release, KubeletBin: kubeletBin, APIServerBin: apiserverBin, Rules: rules,
		Every: 3 * time.Second, Before: 15 * time.Second, Fault: Stopped(PLEGThreshold), After: 10 * time.Second, MaxRecovery: 3 * time.Minute,
		Endpoints: []string{"/configz"}, PlegTimeout: 10 * time.Second, Logf: logf}
	if rules != "" {
		h.Alerts = Alerts
	}
	return h
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
