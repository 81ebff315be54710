package harness

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// FaultKind names what a fault does to the node's runtime.
type FaultKind string

// The faults the shared round loop (FaultScenario.Run) runs. One more
// fault of the harness is not on it: a container killed (Scenario,
// scraped half a second apart without a control plane).
const (
	// FaultStopped stops containerd's daemon alone (SIGTERM): every
	// call fails at once, the runtime is dead.
	FaultStopped FaultKind = "stopped"
	// FaultFrozen freezes containerd's daemon alone with SIGSTOP.
	FaultFrozen FaultKind = "frozen"
	// FaultHeld has the CRI proxy hold every call of one method until
	// its caller's deadline.
	FaultHeld FaultKind = "held"
	// FaultLatency has the CRI proxy delay every unary call by Latency.
	FaultLatency FaultKind = "latency"
)

// Fault is what a scenario does to the runtime once the node is Ready,
// and how long, as data: the round loop, the timeline, the kept captures
// and the table command are the same for every fault.
type Fault struct {
	Kind    FaultKind     `json:"kind"`
	Method  string        `json:"method,omitempty"`  // FaultHeld: the method held
	Latency time.Duration `json:"latency,omitempty"` // FaultLatency: each unary call's delay
	// Pods static pods are started at once as the fault begins (the
	// overload: every one of them changes in the next relists, each
	// inspected one after another).
	Pods int `json:"pods,omitempty"`
	// Least is the least time the fault lasts and Most the most. With
	// UntilPLEG it ends once Least has passed, the node's Ready has named
	// the PLEG, the awaited alerts fired, and Hold more has passed (or at
	// Most); without, at Least.
	Least     time.Duration `json:"least"`
	Most      time.Duration `json:"most"`
	Hold      time.Duration `json:"hold,omitempty"`
	UntilPLEG bool          `json:"untilPLEG,omitempty"`
}

// Frozen is the hung-runtime fault CI runs, past the 3m threshold of a
// kubelet with EventedPLEG off: FrozenPast(3m).
func Frozen() Fault { return FrozenPast(3 * time.Minute) }

// FrozenPast freezes containerd past a PLEG threshold: at least a minute
// more, ended 10 s after Ready names the PLEG and every alert fired, at
// most four minutes more.
func FrozenPast(threshold time.Duration) Fault {
	return Fault{Kind: FaultFrozen, Least: threshold + time.Minute, Most: threshold + 4*time.Minute, Hold: 10 * time.Second, UntilPLEG: true}
}

// Stopped stops containerd past a PLEG threshold: ended 10 s after Ready
// names the PLEG and every alert fired, at most two minutes past the
// threshold.
func Stopped(threshold time.Duration) Fault {
	return Fault{Kind: FaultStopped, Most: threshold + 2*time.Minute, Hold: 10 * time.Second, UntilPLEG: true}
}

// Held is Frozen's timing with method held by the proxy instead.
func Held(method string) Fault {
	f := Frozen()
	f.Kind, f.Method = FaultHeld, method
	return f
}

// Latency delays every unary call by l for d.
func Latency(l, d time.Duration) Fault {
	return Fault{Kind: FaultLatency, Latency: l, Least: d, Most: d}
}

// Overload is Latency(l, d) with n static pods started at once as it
// begins.
func Overload(l, d time.Duration, n int) Fault {
	f := Latency(l, d)
	f.Pods = n
	return f
}

// Proxied says whether the kubelet talks to the runtime through the CRI
// proxy for this fault.
func (f Fault) Proxied() bool { return f.Kind == FaultHeld || f.Kind == FaultLatency }

// Name is the fault's name in paths (captures, documents).
func (f Fault) Name() string {
	switch f.Kind {
	case FaultStopped:
		return "pleg-unhealthy"
	case FaultFrozen:
		return "runtime-hung"
	case FaultHeld:
		return "runtime-slow-call"
	case FaultLatency:
		if f.Pods > 0 {
			return fmt.Sprintf("runtime-slow-%s-%dpods", f.Latency, f.Pods)
		}
		return fmt.Sprintf("runtime-slow-%s", f.Latency)
	}
	return string(f.Kind)
}

// Describe is the fault's moment as a row names it.
func (f Fault) Describe() string {
	switch f.Kind {
	case FaultStopped:
		return "containerd stopped (SIGTERM; its shim and the pod's container keep running)"
	case FaultFrozen:
		return "containerd's daemon frozen with SIGSTOP (its shim and the pod's container run on)"
	case FaultHeld:
		return "the CRI proxy starts holding " + f.Method
	case FaultLatency:
		s := fmt.Sprintf("the CRI proxy starts delaying every unary CRI call by %s (%s passes)", f.Latency, EventStream)
		if f.Pods > 0 {
			s += fmt.Sprintf(", and %d static pods are started at once", f.Pods)
		}
		return s
	}
	return string(f.Kind)
}

// begin starts the fault on the node (through proxy when Proxied).
func (f Fault) begin(n *Node, proxy *CRIProxy) error {
	switch f.Kind {
	case FaultStopped:
		return n.Runtime.StopDaemon()
	case FaultFrozen:
		return n.Runtime.Freeze()
	case FaultHeld:
		proxy.Hold(true)
	case FaultLatency:
		proxy.SetLatency(f.Latency)
	default:
		return fmt.Errorf("fault %q: want %s, %s, %s or %s", f.Kind, FaultStopped, FaultFrozen, FaultHeld, FaultLatency)
	}
	if f.Pods > 0 {
		return n.Kubelet.AddStaticPods(f.Pods)
	}
	return nil
}

// end ends it.
func (f Fault) end(ctx context.Context, n *Node, proxy *CRIProxy) error {
	switch f.Kind {
	case FaultStopped:
		return n.Runtime.Start(ctx)
	case FaultFrozen:
		return n.Runtime.Thaw()
	case FaultHeld:
		proxy.Hold(false)
	case FaultLatency:
		proxy.SetLatency(0)
	}
	return nil
}

// over says whether the fault may end, since began, given the rounds so
// far and the alerts awaited.
func (f Fault) over(began time.Time, rs []Round, alerts []string) bool {
	if time.Since(began) < f.Least {
		return false
	}
	if !f.UntilPLEG {
		return true
	}
	var named time.Time
	for _, r := range rs {
		if r.Start.After(began) && strings.Contains(r.Ready.Message, PLEGUnhealthy) {
			named = r.Start
			break
		}
	}
	if named.IsZero() || time.Since(named) < f.Hold {
		return false
	}
	obs := make([]Observation, len(rs))
	for i := range rs {
		obs[i] = rs[i].Observation
	}
	for _, a := range alerts {
		if !firing(obs, a) {
			return false
		}
	}
	return true
}

// Name is the run's name in paths (captures, documents): the fault's,
// and each gate set on after it, lower case (runtime-hung-eventedpleg).
func (h *FaultScenario) Name() string {
	name := h.Fault.Name()
	var on []string
	for g, v := range h.Gates {
		if v {
			on = append(on, strings.ToLower(g))
		}
	}
	sort.Strings(on)
	for _, g := range on {
		name += "-" + g
	}
	return name
}

// NewHung is the hung-runtime scenario with the timings CI runs: 3 s
// rounds, 15 s before the fault, Frozen (with rules that have
// AlertRuntimeHung, its alerts and Alerts awaited too), 10 s after
// recovery, at most 3m to recover; goroutine dumps 30 s, 150 s and
// 230 s into the fault.
func (p *Parts) NewHung(release, kubeletBin, apiserverBin, rules string, logf func(string, ...any)) *FaultScenario {
	h := &FaultScenario{Parts: p, Release: release, KubeletBin: kubeletBin, APIServerBin: apiserverBin, Rules: rules,
		Every: 3 * time.Second, Before: 15 * time.Second, Fault: Frozen(), After: 10 * time.Second, MaxRecovery: 3 * time.Minute,
		Dumps:       []time.Duration{30 * time.Second, 150 * time.Second, 230 * time.Second},
		Endpoints:   []string{"/metrics/cadvisor", "/metrics/resource", "/configz", "/healthz"},
		PlegTimeout: 10 * time.Second, Logf: logf}
	// Rules that know a hung runtime are waited for; others may have no
	// sample to fire on while the kubelet's /metrics times out.
	if rules != "" {
		if list, err := ReadRules(rules); err == nil {
			for _, r := range list {
				if r.Alert == AlertRuntimeHung {
					// PLEGRelistStalled reads the gauge only on an
					// answering /metrics, which a hang darkens: the
					// kubelet's own word (Ready False) is what the rules
					// that fire during it read.
					h.Alerts = []string{AlertUnhealthy, AlertRuntimeHung}
				}
			}
		}
	}
	return h
}

// NewLatencyScenario is the slow-runtime scenario: the node of NewHung,
// the CRI proxy delaying every unary call by l for d, read every 10 s
// with 10 s client timeouts, Prometheus scraping every 10 s with a 10 s
// timeout as kube-prometheus does, no goroutine dumps.
func (p *Parts) NewLatencyScenario(release, kubeletBin, apiserverBin, rules string, l, d time.Duration, logf func(string, ...any)) *FaultScenario {
	h := p.NewHung(release, kubeletBin, apiserverBin, rules, logf)
	h.Fault, h.Every, h.Dumps, h.Alerts = Latency(l, d), 10*time.Second, nil, nil
	return h
}
