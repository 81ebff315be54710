package plegperiods

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ast/astutil"
)

// EventedRole is the evented PLEG a kubelet package builds and what it is
// for: the pleg package's side (its event loop, from the constructor's
// shape) joined with the kubelet's (the construction, the health checks
// it registers). Positions in the kubelet package are token.Pos; those
// read in the pleg package are file positions.
type EventedRole struct {
	// Constructed says the package builds an evented PLEG; Construction
	// is the call (the gate-on mode's when there is one).
	Constructed  bool
	Construction *Construction
	// Role is what the evented PLEG is for; Why says why it is
	// RoleUnknown or RoleNone.
	Role Role
	Why  string
	// EmitsLifecycleEvents, UpdatesPodCache, RequestsRelist,
	// OnStreamFailure and RelistOnStreamError are the event loop's (see
	// EventLoop).
	EmitsLifecycleEvents token.Position
	UpdatesPodCache      token.Position
	RequestsRelist       *RelistRequest
	OnStreamFailure      StreamFailure
	RelistOnStreamError  *ForcedRelist
	// Retries is how many failed streams the evented PLEG tolerates
	// before OnStreamFailure: the construction's value.
	Retries *Value
	// Loop is the whole reading of the event loop.
	Loop *EventLoop
	// HealthChecks are the PLEG health checks the package registers,
	// in source order.
	HealthChecks []HealthCheck
}

// HealthCheck is a call registering a PLEG's health check: by its shape,
// a call passing a string constant (the check's name) and a method value
// of a PLEG with the signature func() (bool, error)
// (runtimeState.addHealthCheck("EventedPLEG", klet.eventedPleg.Healthy)).
type HealthCheck struct {
	Name string
	Pos  token.Pos // the call
	// Of is the kind of PLEG whose method is registered: the kind of the
	// construction assigned to the receiver's variable or field; "" when
	// the receiver holds a PLEG no construction of the package assigns.
	Of Kind
	// Receiver is the receiver as written (klet.eventedPleg).
	Receiver string
	// Conditions are the feature-gate tests the registration runs under.
	Conditions []Condition
}

// HealthCheck returns the evented PLEG's health check, nil when none is
// registered.
func (r *EventedRole) HealthCheck() *HealthCheck {
	for i := range r.HealthChecks {
		if r.HealthChecks[i].Of == Evented {
			return &r.HealthChecks[i]
		}
	}
	return nil
}

// EventedRoleOf joins a kubelet package's evented construction (from relist)
// with its constructor's event loop, and finds the PLEG health checks
// the package registers.
func EventedRoleOf(files []*ast.File, info *types.Info, relist *Relist) *EventedRole {
	r := &EventedRole{Role: RoleNone, Why: "the package builds no evented PLEG"}
	if relist == nil {
		return r
	}
	var c *Construction
	if relist.On != nil && relist.On.Evented != nil {
		c = relist.On.Evented
	}
	for _, con := range relist.Constructions {
		if c == nil && con.Ctor.Kind == Evented {
			c = con
		}
	}
	r.HealthChecks = HealthChecks(files, info, relist.Constructions)
	if c == nil {
		return r
	}
	r.Constructed, r.Construction, r.Retries = true, c, c.Retries
	l := c.Ctor.EventLoop
	r.Loop = l
	r.Role, r.Why = l.Role()
	if l != nil {
		r.EmitsLifecycleEvents, r.UpdatesPodCache = l.EmitsLifecycleEvents, l.UpdatesPodCache
		r.RequestsRelist, r.OnStreamFailure = l.RequestsRelist, l.OnStreamFailure
		r.RelistOnStreamError = l.RelistOnStreamError
	} else {
		r.OnStreamFailure = StreamFailure{Action: FailureUnknown, Why: r.Why}
	}
	return r
}

// HealthChecks finds the calls registering a PLEG's health check, and
// whose: the receiver of the method value is matched with the variable
// or field a construction is assigned to.
func HealthChecks(files []*ast.File, info *types.Info, cs []*Construction) []HealthCheck {
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
	gates := newGateReader(files, info)
	var out []HealthCheck
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
			recv := ast.Unparen(method.X)
			var obj types.Object
			switch x := recv.(type) {
			case *ast.Ident:
				obj = info.Uses[x]
			case *ast.SelectorExpr:
				obj = info.Uses[x.Sel]
			}
			kind, isHeld := held[obj]
			if !isHeld {
				tn := namedOf(info.TypeOf(recv))
				if tn == nil || !plegPkgs[tn.Pkg()] {
					return true // not a PLEG's method
				}
			}
			hc := HealthCheck{Name: name, Pos: call.Pos(), Of: kind, Receiver: types.ExprString(recv)}
			path, _ := astutil.PathEnclosingInterval(f, call.Pos(), call.End())
			hc.Conditions, _ = gates.conditions(path, false)
			out = append(out, hc)
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
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
	b, ok := sig.Results().At(0).Type().(*types.Basic)
	if !ok || b.Kind() != types.Bool {
		return false
	}
	return types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
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
	if q.Gate != "" {
		s += " gated " + q.Gate
	}
	return s
}
