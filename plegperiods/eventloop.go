// The answers about an evented PLEG's event loop: its role, the relist
// it forces on a stream error, the relist it requests, and what it does
// once its stream has failed too often.

package plegperiods

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

// Role is what an evented PLEG is for, read from what its event loop does.
// Releases differ: up to v1.36 it is a source of pod lifecycle events
// beside the generic PLEG; from v1.37 it only asks the generic PLEG to
// relist. A tree that does neither is unknown, never forced into either.
type Role string

const (
	// EventSource: the evented PLEG sends pod lifecycle events itself.
	EventSource Role = "event-source"
	// RelistTrigger: it sends none, but asks the generic PLEG to relist.
	RelistTrigger Role = "relist-trigger"
	// RoleUnknown: it does neither, or it could not be read; a Why says.
	RoleUnknown Role = "unknown"
)

// What the evented PLEG does once its stream has failed as often as its
// retries allow (StreamFailure.Action).
const (
	// RestoreGenericRelist: it hands a relist duration back to the
	// generic PLEG (EventedPLEG.Update(e.relistDuration)).
	RestoreGenericRelist = "restore-generic-relist"
	// StopWatching: it returns (or breaks out of its loop) without one.
	StopWatching = "stop-watching"
	// FailureUnknown: neither was found; StreamFailure.Why says why.
	FailureUnknown = "unknown"
)

// AllEventTypes is RelistRequest.EventTypes' only entry when no test of
// the container event's type guards the request: every type reaches it.
const AllEventTypes = "all"

// EventLoop is what an evented PLEG's methods do, read from the methods
// reachable from its Start: method calls and method values on the
// evented PLEG, functions of the package, go statements and function
// literals, to a bounded depth. Its EventedRole, the part the kubelet's
// answer is made of, crosses packages inside a ConstructorFact.
type EventLoop struct {
	// Reached are the functions read, in the order reached
	// ("EventedPLEG.Start", "EventedPLEG.watchEventsChannel", ...);
	// empty when the struct has no Start method.
	Reached []string
	// EventType is the pod lifecycle event type, as go/types prints it
	// (*pleg.PodLifecycleEvent): the element type of the channel a PLEG
	// interface's (or the generic PLEG's) Watch-like method returns. ""
	// when none was found.
	EventType string
	// EventedRole holds what the loop does: Role and Why, and the
	// positions they rest on. EmitsLifecycleEvents is its first send of a
	// lifecycle event on a channel; UpdatesPodCache its first call of Set
	// on the pod cache (a value of the type whose Set the generic PLEG
	// calls on its own field, or of a type Cache of a package
	// .../pkg/kubelet/container); RequestsRelist its first call asking
	// the generic PLEG to relist (a method of the generic PLEG, called
	// directly or through an interface it implements, that enqueues a
	// request on a channel of its own that another of its methods
	// receives from); RelistOnStreamError the first call, in a branch run
	// when a stream call returns an error, that makes the generic PLEG
	// relist at once. The kubelet's side (Constructed, HealthCheck,
	// OnStreamFailure.After) is left empty.
	EventedRole
}

// ForcedRelist is a call of the evented PLEG that runs the generic PLEG's
// relist at once when a stream call fails (e.Relist() in the
// "if err != nil" after GetContainerEvents). The callee is recognised by
// type and by what it does: a method of the generic PLEG, called directly,
// through an interface the generic PLEG implements, or through a method
// of the evented PLEG (or a function of the package) that calls it, whose
// own calls, before it returns, write the pod cache. A method that only
// enqueues a request (RelistRequest) is not one.
type ForcedRelist struct {
	Pos srcpos.Pos `json:"pos"` // the call in the stream-error branch
	// Stream is the stream call whose error the branch tests.
	Stream srcpos.Pos `json:"stream"`
	// Relist is the generic PLEG's relist, as "GenericPLEG.Relist";
	// RelistDecl its declaration.
	Relist     string     `json:"relist"`
	RelistDecl srcpos.Pos `json:"relistDecl"`
	// UpdatesPodCache is the relist's first write to the pod cache, and
	// EmitsLifecycleEvents its first send of a pod lifecycle event (nil
	// when it sends none), reached from Relist through calls of the
	// generic PLEG's methods and the package's functions, not through go
	// statements or function literals.
	UpdatesPodCache      srcpos.Pos  `json:"updatesPodCache"`
	EmitsLifecycleEvents *srcpos.Pos `json:"emitsLifecycleEvents"`
}

// RelistRequest is the evented PLEG's call asking the generic PLEG for a
// relist.
type RelistRequest struct {
	Pos srcpos.Pos `json:"pos"` // the call
	// Callee is the generic PLEG's method that enqueues the request,
	// as "GenericPLEG.RequestRelist".
	Callee string `json:"-"`
	// EventTypes are the container event types (values of a type named
	// ContainerEventType, by their constants' names without the
	// "ContainerEventType_" prefix) that reach the call, read from the
	// tests guarding it and every call leading to it from Start: an
	// if ... { continue } before it, an if or a switch case around it.
	// [AllEventTypes] when no such test guards it; an empty list when the
	// tests let no type through.
	EventTypes []string `json:"eventTypes"`
	// Guard is a test of the event type that guards the call (its own
	// first, else one around a call leading to it); the zero Pos when
	// unguarded.
	Guard srcpos.Pos `json:"-"`
	// Gate is the feature gate the callee tests before it enqueues (an
	// early "if !Enabled(gate) { return }"), "!NAME" when it enqueues
	// only with the gate off, nil when it tests none. GatePos is the test.
	Gate    *string    `json:"gate"`
	GatePos srcpos.Pos `json:"-"`
	// GateUnresolved says why a test before the enqueue that may be a
	// gate test could not be followed; "" otherwise.
	GateUnresolved string `json:"-"`
}

// StreamFailure is what the evented PLEG does once its failed-stream
// count reaches its retries: in the branch of the if comparing them that
// runs then (or, after a loop running while retries remain, what follows
// the loop).
type StreamFailure struct {
	// After is how many failed streams it tolerates first: the kubelet's
	// construction's value.
	After  *RetryCount `json:"after"`
	Action string      `json:"action"` // RestoreGenericRelist, StopWatching or FailureUnknown
	// Pos is the call handing over the relist duration, or the return
	// (or break), or the function's closing brace when it just ends.
	Pos  *srcpos.Pos `json:"pos"`
	Test srcpos.Pos  `json:"-"` // the if (or loop) comparing the count with the retries
	Why  string      `json:"-"` // set when Action is FailureUnknown
	// Unfollowed is the call handing over durations plegvet could not
	// follow to the generic PLEG (Why says why); NoPos otherwise.
	Unfollowed token.Pos `json:"-"`
	// At is Pos in the package read: the restoring call; NoPos otherwise.
	At token.Pos `json:"-"`
}

// role is the evented PLEG's role, and why when it is unknown.
func (l *EventLoop) role() (Role, string) {
	switch {
	case l.EmitsLifecycleEvents != nil:
		return EventSource, ""
	case l.RequestsRelist != nil:
		return RelistTrigger, ""
	case len(l.Reached) == 0:
		return RoleUnknown, "the evented PLEG has no Start method: plegvet found no event loop to read"
	}
	what := "sends no " + l.EventType
	if l.EventType == "" {
		what = "sends no pod lifecycle event (no Watch-like method of a PLEG returns a channel, so their type is not known)"
	}
	return RoleUnknown, fmt.Sprintf("its event loop (%s) %s and asks the generic PLEG for no relist", strings.Join(l.Reached, ", "), what)
}
