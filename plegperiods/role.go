package plegperiods

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// EventedRole is what a tree's evented PLEG does, read from its code:
// its role is an extracted fact, not a release number's assumption. The
// pleg package's side (its event loop, see EventLoop) is joined with the
// kubelet's (the construction, the health check it registers).
type EventedRole struct {
	// Constructed is the evented PLEG's construction in pkg/kubelet.
	Constructed srcpos.Pos `json:"constructed"`
	// Role is "event-source" (it emits pod lifecycle events), "relist-
	// trigger" (it only asks another PLEG to relist) or "unknown" (the
	// code matches neither; Why says what was found).
	Role Role `json:"role"`
	// EmitsLifecycleEvents is the send of a pod lifecycle event on a
	// channel; UpdatesPodCache the write to the pod cache. Null when absent.
	EmitsLifecycleEvents *srcpos.Pos `json:"emitsLifecycleEvents"`
	UpdatesPodCache      *srcpos.Pos `json:"updatesPodCache"`
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
	// RelistOnStreamErrorUnfollowed says why a call in a stream-error
	// branch, which may make the generic PLEG relist, could not be
	// followed (a call of a function value); "" when none was met.
	// ForcedUnfollowed is that call, for the package's diagnostics.
	RelistOnStreamErrorUnfollowed string    `json:"relistOnStreamErrorUnfollowed,omitempty"`
	ForcedUnfollowed              token.Pos `json:"-"`
}

// HealthCheck is a health check registered on a PLEG.
type HealthCheck struct {
	Name string     `json:"name"`
	Pos  srcpos.Pos `json:"pos"` // the call
}

// HealthCheckCall is a call registering a PLEG's health check: by its
// shape, a call passing a string constant (the check's name) and a method
// value of a PLEG with the signature func() (bool, error)
// (runtimeState.addHealthCheck("EventedPLEG", klet.eventedPleg.Healthy)).
type HealthCheckCall struct {
	HealthCheck
	// Of is the kind of PLEG whose method is registered: the kind of the
	// construction assigned to the receiver's variable or field; "" when
	// the receiver holds a PLEG no construction of the package assigns.
	Of Kind
	// Conditions are the feature-gate tests the registration runs under.
	Conditions []Condition
	// Register is the function called (runtimeState.addHealthCheck).
	Register *types.Func
	// At is the call, in the package's file set.
	At token.Pos
}

// EventedRoleOf joins a kubelet package's evented construction (from
// relist) with its constructor's event loop and the health check
// registered on it (one of calls); nil when the package builds
// no evented PLEG.
func EventedRoleOf(fset *token.FileSet, relist *Relist, calls []HealthCheckCall) *EventedRole {
	if relist == nil {
		return nil
	}
	var c *Construction
	if relist.GateOn != nil && relist.GateOn.EventedCall != nil {
		c = relist.GateOn.EventedCall
	}
	for _, con := range relist.Constructions {
		if c == nil && con.Ctor.Kind == Evented {
			c = con
		}
	}
	if c == nil {
		return nil
	}
	why := "the evented PLEG's methods were not read"
	r := &EventedRole{Role: RoleUnknown, Why: why, OnStreamFailure: StreamFailure{Action: FailureUnknown, Why: why}}
	if c.Ctor.Evented != nil {
		r = new(*c.Ctor.Evented) // a copy: the kubelet's side is filled in below
	}
	r.Constructed, r.OnStreamFailure.After = srcpos.Of(fset, c.Call.Pos()), c.Retries.Count()
	for i := range calls {
		if calls[i].Of == Evented && r.HealthCheck == nil {
			r.HealthCheck = &calls[i].HealthCheck
		}
	}
	switch {
	case r.Why != "":
	case r.Role == EventSource:
		r.Why = "its event loop sends pod lifecycle events on the kubelet's channel (" + srcpos.Line(r.EmitsLifecycleEvents) + ")"
	case r.Role == RelistTrigger:
		r.Why = "its event loop only requests relists of another PLEG (" + srcpos.Line(&r.RequestsRelist.Pos) + "), and emits no pod lifecycle event"
	}
	return r
}

// HealthChecks finds the calls registering a PLEG's health check, and
// whose: the receiver of the method value is matched with the variable
// or field a construction is assigned to.
func HealthChecks(fset *token.FileSet, files []*ast.File, info *types.Info, cs []*Construction) []HealthCheckCall {
	held := map[types.Object]Kind{}
	plegPkgs := map[*types.Package]bool{}
	for _, c := range cs {
		if c.Holder != nil {
			if k, ok := held[c.Holder]; ok && k != c.Ctor.Kind {
				held[c.Holder] = "" // holds either kind
			} else {
				held[c.Holder] = c.Ctor.Kind
			}
		}
		if c.Func != nil && c.Func.Pkg() != nil {
			plegPkgs[c.Func.Pkg()] = true
		}
	}
	gates := newGateReader(fset, files, info)
	var out []HealthCheckCall
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			name, hasName := "", false
			var method *ast.SelectorExpr
			for _, a := range call.Args {
				a = ast.Unparen(a)
				if tv, ok := info.Types[a]; ok && tv.Value != nil && tv.Value.Kind() == constant.String && !hasName {
					name, hasName = constant.StringVal(tv.Value), true
					continue
				}
				if sel, ok := a.(*ast.SelectorExpr); ok && method == nil && isHealthMethod(info, sel) {
					method = sel
				}
			}
			if !hasName || method == nil {
				return true
			}
			kind, isHeld := held[astobj.Of(info, method.X)]
			if tn := namedOf(info.TypeOf(method.X)); !isHeld && (tn == nil || !plegPkgs[tn.Pkg()]) {
				return true // not a PLEG's method
			}
			hc := HealthCheckCall{HealthCheck: HealthCheck{Name: name, Pos: srcpos.Of(fset, call.Pos())}, Of: kind, Register: astobj.Func(info, call), At: call.Pos()}
			path, _ := astutil.PathEnclosingInterval(f, call.Pos(), call.End())
			hc.Conditions, _ = gates.conditions(path, false)
			out = append(out, hc)
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.Before(out[j].Pos) })
	return out
}

// isHealthMethod reports whether sel is a method value (not called here)
// with the signature of a health check: func() (bool, error).
func isHealthMethod(info *types.Info, sel *ast.SelectorExpr) bool {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false
	}
	sig, ok := s.Type().(*types.Signature)
	if !ok || sig.Params().Len() != 0 || sig.Results().Len() != 2 {
		return false
	}
	return sig.Results().At(0).Type() == types.Typ[types.Bool] && types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
}

// String is "event-source (emits at evented.go:325, ...)", for tests and
// messages.
func (r *EventedRole) String() string {
	if r == nil {
		return "none"
	}
	s := string(r.Role)
	if r.Why != "" {
		s += ": " + r.Why
	}
	return s
}

// String is "GenericPLEG.RequestRelist for [CONTAINER_STOPPED_EVENT] gated PLEGOnDemandRelist".
func (q *RelistRequest) String() string {
	s := fmt.Sprintf("%s for %v", q.Callee, q.EventTypes)
	if q.Gate != nil {
		s += " gated " + *q.Gate
	}
	return s
}

// Files visits the file names of the evented PLEG's positions (an
// answer's Files).
func (e *EventedRole) Files(visit srcpos.FileVisitor) {
	if e == nil {
		return
	}
	srcpos.Files(visit, &e.Constructed, e.EmitsLifecycleEvents, e.UpdatesPodCache)
	if r := e.RequestsRelist; r != nil {
		srcpos.Files(visit, &r.Pos)
	}
	if h := e.HealthCheck; h != nil {
		srcpos.Files(visit, &h.Pos)
	}
	e.OnStreamFailure.After.Files(visit)
	srcpos.Files(visit, e.OnStreamFailure.Pos)
	if f := e.RelistOnStreamError; f != nil {
		srcpos.Files(visit, &f.Pos, &f.Stream, &f.RelistDecl, &f.UpdatesPodCache, f.EmitsLifecycleEvents)
	}
}
