package harness

import (
	"fmt"
	"strings"
	"time"
)

// FaultKind names what a fault does to the node's runtime.
type FaultKind string

// The faults the shared round loop (FaultScenario.Run) runs. Two more
// faults of the harness are not on it yet: containerd stopped
// (Unhealthy, its loop and timeline of its own) and a container killed
// (Scenario, scraped half a second apart without a control plane).
const (
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
	Kind    FaultKind
	Method  string        // FaultHeld: the method held
	Latency time.Duration // FaultLatency: each unary call's delay
	// Least is the least time the fault lasts and Most the most. With
	// UntilPLEG it ends once Least has passed, the node's Ready has named
	// the PLEG, the awaited alerts fired, and Hold more has passed (or at
	// Most); without, at Least.
	Least, Most, Hold time.Duration
	UntilPLEG         bool
}

// Frozen is the hung-runtime fault CI runs: at least 4m, ended 10 s
// after Ready names the PLEG and every alert fired, at most 7m.
func Frozen() Fault {
	return Fault{Kind: FaultFrozen, Least: 4 * time.Minute, Most: 7 * time.Minute, Hold: 10 * time.Second, UntilPLEG: true}
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

// Proxied says whether the kubelet talks to the runtime through the CRI
// proxy for this fault.
func (f Fault) Proxied() bool { return f.Kind == FaultHeld || f.Kind == FaultLatency }

// Name is the fault's name in paths (captures, documents).
func (f Fault) Name() string {
	switch f.Kind {
	case FaultFrozen:
		return "runtime-hung"
	case FaultHeld:
		return "runtime-slow-call"
	case FaultLatency:
		return fmt.Sprintf("runtime-slow-%s", f.Latency)
	}
	return string(f.Kind)
}

// Describe is the fault's moment as a row names it.
func (f Fault) Describe() string {
	switch f.Kind {
	case FaultFrozen:
		return "containerd's daemon frozen with SIGSTOP (its shim and the pod's container run on)"
	case FaultHeld:
		return "the CRI proxy starts holding " + f.Method
	case FaultLatency:
		return fmt.Sprintf("the CRI proxy starts delaying every unary CRI call by %s (%s passes)", f.Latency, EventStream)
	}
	return string(f.Kind)
}

// begin starts the fault on the node (through proxy when Proxied).
func (f Fault) begin(n *Node, proxy *CRIProxy) error {
	switch f.Kind {
	case FaultFrozen:
		return n.Runtime.Freeze()
	case FaultHeld:
		proxy.Hold(true)
	case FaultLatency:
		proxy.SetLatency(f.Latency)
	default:
		return fmt.Errorf("fault %q: want %s, %s or %s", f.Kind, FaultFrozen, FaultHeld, FaultLatency)
	}
	return nil
}

// end ends it.
func (f Fault) end(n *Node, proxy *CRIProxy) error {
	switch f.Kind {
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
