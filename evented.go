package plegvet

import (
	"fmt"
	"go/token"

	"github.com/plegvet/plegvet/plegperiods"
)

// EventedPLEG is what the tree's evented PLEG does, read from its code:
// its role is an extracted fact, not a release number's assumption.
type EventedPLEG struct {
	// Constructed is the evented PLEG's construction in pkg/kubelet.
	Constructed Pos `json:"constructed"`
	// Role is "event-source" (it emits pod lifecycle events), "relist-
	// trigger" (it only asks another PLEG to relist) or "unknown" (the
	// code matches neither; Why says what was found).
	Role string `json:"role"`
	// EmitsLifecycleEvents is the send of a pod lifecycle event on a
	// channel; UpdatesPodCache the write to the pod cache. Null when absent.
	EmitsLifecycleEvents *Pos `json:"emitsLifecycleEvents"`
	UpdatesPodCache      *Pos `json:"updatesPodCache"`
	// RequestsRelist is the call asking another PLEG to relist; null when
	// there is none.
	RequestsRelist *RelistRequest `json:"requestsRelist"`
	// HealthCheck is the health check pkg/kubelet registers on the evented
	// PLEG; null when none is.
	HealthCheck *HealthCheck `json:"healthCheck"`
	// OnStreamFailure is what it does after the last allowed stream failure.
	OnStreamFailure StreamFailure `json:"onStreamFailure"`
	Why             string        `json:"why"`
	// RelistOnStreamError is its call making the generic PLEG relist at
	// once when a stream call returns an error; null when there is none.
	RelistOnStreamError *ForcedRelist `json:"relistOnStreamError"`
}

// ForcedRelist is the evented PLEG's call, in the branch run when its
// stream call returns an error, that runs the generic PLEG's relist.
type ForcedRelist struct {
	// Pos is the call (e.Relist()); Stream the stream call whose error
	// the branch tests.
	Pos    Pos `json:"pos"`
	Stream Pos `json:"stream"`
	// Relist is the generic PLEG's method it runs ("GenericPLEG.Relist"),
	// declared at RelistDecl.
	Relist     string `json:"relist"`
	RelistDecl Pos    `json:"relistDecl"`
	// UpdatesPodCache is that relist's write to the pod cache;
	// EmitsLifecycleEvents its send of pod lifecycle events on the
	// kubelet's channel, null when it sends none.
	UpdatesPodCache      Pos  `json:"updatesPodCache"`
	EmitsLifecycleEvents *Pos `json:"emitsLifecycleEvents"`
}

// RelistRequest is the evented PLEG's call of a relist request.
type RelistRequest struct {
	Pos Pos `json:"pos"`
	// EventTypes are the ContainerEventType values that reach the call;
	// ["all"] when nothing filters them.
	EventTypes []string `json:"eventTypes"`
	// Gate is the feature gate the callee returns early without ("!X":
	// it acts only with X off); null when the request is not gated.
	Gate *string `json:"gate"`
}

// HealthCheck is a health check registered on a PLEG.
type HealthCheck struct {
	Name string `json:"name"`
	Pos  Pos    `json:"pos"`
}

// StreamFailure is what the evented PLEG does after its last allowed
// stream failure.
type StreamFailure struct {
	// After is how many failed streams it tolerates first.
	After *RetryCount `json:"after"`
	// Action is "restore-generic-relist" (it gives the generic PLEG back
	// its gate-off period), "stop-watching" (it just stops) or "unknown".
	Action string `json:"action"`
	Pos    *Pos   `json:"pos"`
}

// eventedPLEG maps the pleg analyzer's role; nil when the tree builds no
// evented PLEG.
func (p positioner) eventedPLEG(r *plegperiods.EventedRole) *EventedPLEG {
	if r == nil || !r.Constructed || r.Role == plegperiods.RoleNone {
		return nil
	}
	out := &EventedPLEG{
		Role: string(r.Role), Why: r.Why,
		EmitsLifecycleEvents: p.optPosition(r.EmitsLifecycleEvents),
		UpdatesPodCache:      p.optPosition(r.UpdatesPodCache),
		OnStreamFailure: StreamFailure{
			After: p.retries(r.Retries), Action: r.OnStreamFailure.Action, Pos: p.optPosition(r.OnStreamFailure.Pos),
		},
	}
	if r.Construction != nil {
		out.Constructed = p.pos(r.Construction.Call.Pos())
	}
	if rr := r.RequestsRelist; rr != nil {
		req := &RelistRequest{Pos: p.position(rr.Pos), EventTypes: append([]string{}, rr.EventTypes...)}
		if rr.Gate != "" {
			g := rr.Gate
			req.Gate = &g
		}
		out.RequestsRelist = req
	}
	if f := r.RelistOnStreamError; f != nil {
		out.RelistOnStreamError = &ForcedRelist{
			Pos: p.position(f.Pos), Stream: p.position(f.Stream),
			Relist: f.Callee, RelistDecl: p.position(f.CalleePos),
			UpdatesPodCache: p.position(f.UpdatesPodCache), EmitsLifecycleEvents: p.optPosition(f.EmitsLifecycleEvents),
		}
	}
	if hc := r.HealthCheck(); hc != nil {
		out.HealthCheck = &HealthCheck{Name: hc.Name, Pos: p.pos(hc.Pos)}
	}
	if out.Why == "" {
		out.Why = roleWhy(out)
	}
	return out
}

// roleWhy says what the role rests on, for a role plegvet recognised.
func roleWhy(e *EventedPLEG) string {
	switch e.Role {
	case "event-source":
		return "its event loop sends pod lifecycle events on the kubelet's channel (" + at(e.EmitsLifecycleEvents) + ")"
	case "relist-trigger":
		if e.RequestsRelist != nil {
			return "its event loop only requests relists of another PLEG (" + at(&e.RequestsRelist.Pos) + "), and emits no pod lifecycle event"
		}
	}
	return ""
}

func at(p *Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

func (p positioner) optPosition(tp token.Position) *Pos {
	if !tp.IsValid() {
		return nil
	}
	pos := p.position(tp)
	return &pos
}
