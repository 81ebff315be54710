package plegperiods

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/runtimehang"
	"github.com/plegvet/plegvet/srcpos"
)

// Health is the kubelet's PLEG health rule, read from the tree's code:
// the checks it registers and what each checks, how the kubelet words a
// failed check, and what it then does.
type Health struct {
	// Checks are the PLEG health checks registered, in source order.
	Checks []HealthRule `json:"checks"`
	// RuntimeErrors is how the kubelet words a failed check ("%s is not
	// healthy: %v", with the check's name and its error); null when not found.
	RuntimeErrors *HealthMessage `json:"runtimeErrors"`
	// RuntimeDown is the error given when the runtime's status went
	// unrefreshed longer than its threshold; null when not found.
	RuntimeDown *RuntimeDown `json:"runtimeDown"`
	// SyncLoopSkip is where the sync loop skips pod synchronisation while
	// a check fails; null when not found.
	SyncLoopSkip *SyncLoopSkip `json:"syncLoopSkip"`
	// ReadyCondition is where the kubelet hands the failed checks to the
	// node's Ready condition; null when not found.
	ReadyCondition *ReadyWiring `json:"readyCondition"`
	// Reconcile is how the generic PLEG's relist reconciles: it lists all
	// and compares with the previous listing; null when not found.
	Reconcile *Reconcile `json:"reconcile"`
	// RuntimeHang is what a runtime that stops answering does to the
	// node (runtimehang): the collectors /metrics then waits on, the CRI
	// call's deadline, the runtime Status loop and the node status
	// update's runtime call. The report fills it in from the packages read
	// beside pkg/kubelet; null (absent) in an answer that does not read them.
	RuntimeHang *runtimehang.Hang `json:"runtimeHang,omitempty"`
	// Ladder is the latency ladder computed from RuntimeHang and the
	// relist's period and threshold (gate off): the per-call latency at
	// which /metrics goes dark, Ready flaps for the runtime, the PLEG
	// passes its threshold and calls reach their deadline. The report
	// fills it in; null (absent) where RuntimeHang is.
	Ladder *ladder.Ladder `json:"ladder,omitempty"`
	// Unknown says why the health rule matches no known shape; "" when it does.
	Unknown string `json:"unknown,omitempty"`
	// Consequence is what the rule means for a node, in one sentence,
	// worded from the values above (the report fills it in).
	Consequence string `json:"consequence"`
}

// HealthRule is one registered health check and what it checks.
type HealthRule struct {
	Name       string      `json:"name"`       // the name registered ("PLEG")
	Registered srcpos.Pos  `json:"registered"` // the registering call
	Gate       *HealthGate `json:"gate"`       // the gate test it is registered under; null: always
	// PLEG is the kind of PLEG whose method is registered: "generic",
	// "evented", or "" when no construction was matched.
	PLEG   Kind           `json:"pleg"`
	Method string         `json:"method,omitempty"` // "GenericPLEG.Healthy"
	Decl   *srcpos.Pos    `json:"decl,omitempty"`   // the method's declaration
	Rule   HealthRuleKind `json:"rule"`
	// Threshold is the relist-elapsed threshold in force in each mode.
	Threshold *HealthThreshold `json:"threshold,omitempty"`
	// Capacity is the event channel's capacity for event-channel-full.
	Capacity *Value          `json:"capacity,omitempty"`
	Messages []HealthMessage `json:"messages"`
	// Records are the method's writes of another package's variable (a
	// metric such as PLEGLastSeen), done each time the checks are polled.
	Records []CodeStep `json:"records"`
	Why     string     `json:"why,omitempty"` // for an unknown rule
	// Fails: an unknown rule whose method can fail (it builds an error,
	// or compares durations): not a check that always passes. Kept in
	// JSON, so that an answer read back from the answer cache exits as
	// the one computed.
	Fails bool `json:"fails,omitempty"`
}

// HealthGate is the gate test a check is registered under.
type HealthGate struct {
	Name string     `json:"name"`
	Test srcpos.Pos `json:"test"`
	On   bool       `json:"on"` // registered when the gate is on
}

// HealthThreshold is the relist-elapsed threshold with the gate off, on
// (null without a gate) and restored by the evented PLEG's fallback
// (null when it restores none).
type HealthThreshold struct {
	GateOff  *Value `json:"gateOff"`
	GateOn   *Value `json:"gateOn"`
	Fallback *Value `json:"fallback"`
}

// RuntimeDown is the runtime-down error and its threshold.
type RuntimeDown struct {
	HealthMessage
	Threshold *Value `json:"threshold"`
}

// SyncLoopSkip is the sync loop's test of the failed checks: it logs
// Message and goes round again without synchronising pods.
type SyncLoopSkip struct {
	Func    string      `json:"func"`    // the function holding the loop
	Message string      `json:"message"` // what it logs
	Pos     srcpos.Pos  `json:"pos"`     // the call logging it
	Backoff *srcpos.Pos `json:"backoff"` // the sleep before going round again; null: none
}

// ReadyWiring is the call handing the failed checks to the Ready condition.
type ReadyWiring struct {
	Func string      `json:"func"` // the callee as written (nodestatus.ReadyCondition)
	Pos  srcpos.Pos  `json:"pos"`  // the call
	Decl *srcpos.Pos `json:"decl"` // the callee's declaration, when its package was read
}

// RelistCheck is the check comparing the time since the last successful
// relist with a threshold; nil when h registers none (or h is nil).
func (h *Health) RelistCheck() *HealthRule {
	if h == nil {
		return nil
	}
	for i := range h.Checks {
		if c := &h.Checks[i]; c.Rule == RelistElapsed || c.Threshold != nil {
			return c
		}
	}
	return nil
}

// LastSeenHider is the check that leaves kubelet_pleg_last_seen_seconds
// showing something else than the last relist: the Overwriter of the
// relist check, read from both checks' code; nil when none.
func (h *Health) LastSeenHider() *HealthRule {
	later, _, _ := h.Overwriter(h.RelistCheck())
	return later
}

// Overwriter is a check registered after c that, on each poll, calls the
// same method as one of c's records (the last-seen gauge's Set, say):
// what that variable shows is the later check's value. It returns the
// later check and both calls; nil when no check does.
func (h *Health) Overwriter(c *HealthRule) (later *HealthRule, mine, theirs *CodeStep) {
	if h == nil || c == nil {
		return nil, nil, nil
	}
	after := false
	for i := range h.Checks {
		o := &h.Checks[i]
		if o == c {
			after = true
			continue
		}
		if !after {
			continue
		}
		for j := range c.Records {
			for k := range o.Records {
				if c.Records[j].Callee() == o.Records[k].Callee() {
					return o, &c.Records[j], &o.Records[k]
				}
			}
		}
	}
	return nil, nil, nil
}

// Callee is the function or method a step calls, as written
// (metrics.PLEGLastSeen.Set).
func (s *CodeStep) Callee() string {
	callee, _, _ := strings.Cut(s.Expr, "(")
	return callee
}

// HealthOf reads the health rule of a kubelet package: the checks calls
// register (HealthChecks), each joined with the construction of its PLEG
// (relist's) and the health method its constructor's Shape read.
func HealthOf(fset *token.FileSet, files []*ast.File, info *types.Info, relist *Relist, calls []HealthCheckCall) *Health {
	h := &Health{Checks: []HealthRule{}}
	res := newResolver(fset, files, info)
	var cs []*Construction
	if relist != nil {
		cs = relist.Constructions
	}
	var register *types.Func
	for _, call := range calls {
		h.Checks = append(h.Checks, healthRule(fset, files, res, relist, cs, call))
		if register == nil {
			register = call.Register
		}
	}
	for _, c := range cs {
		if c.Ctor.Kind == Generic && h.Reconcile == nil {
			h.Reconcile = c.Ctor.Reconcile
		}
	}
	if fn, fd := runtimeErrorsOf(fset, files, info, register, h); fn != nil {
		h.RuntimeDown = runtimeDown(fset, files, info, res, fd)
		h.SyncLoopSkip = syncLoopSkip(fset, files, info, fn)
		h.ReadyCondition = readyWiring(fset, files, info, fn)
	}
	switch {
	case len(h.Checks) == 0:
		h.Unknown = "pkg/kubelet registers no PLEG health check: no call passes a name and a PLEG's func() (bool, error) method"
	case !knownRule(h.Checks):
		h.Unknown = "no registered PLEG health check matches a known rule: " + h.Checks[0].Why
	}
	return h
}

func knownRule(rs []HealthRule) bool {
	for _, r := range rs {
		if r.Rule != HealthUnknown {
			return true
		}
	}
	return false
}

func healthRule(fset *token.FileSet, files []*ast.File, res *resolver, relist *Relist, cs []*Construction, call HealthCheckCall) HealthRule {
	r := HealthRule{Name: call.Name, Registered: call.Pos, PLEG: call.Of, Rule: HealthUnknown, Messages: []HealthMessage{}, Records: []CodeStep{}}
	if len(call.Conditions) > 0 {
		c := call.Conditions[0]
		r.Gate = &HealthGate{Name: c.Gate, Test: srcpos.Of(fset, c.If), On: c.On}
	}
	var con *Construction
	for _, c := range cs {
		if c.Ctor.Kind == call.Of && con == nil {
			con = c
		}
	}
	switch {
	case call.Of == "" || con == nil:
		r.Why = "the method registered belongs to a PLEG no construction of pkg/kubelet assigns"
		return r
	case con.Ctor.Health == nil:
		r.Why = fmt.Sprintf("the %s PLEG's health method was not read in the pleg package", call.Of)
		return r
	}
	m := con.Ctor.Health
	r.Method, r.Decl, r.Rule, r.Why = m.Method, new(m.Decl), m.Rule, m.Why
	r.Fails = m.Rule == HealthUnknown && (m.Inexact || len(m.Messages) > 0)
	r.Messages = append(r.Messages, m.Messages...)
	r.Records = append(r.Records, m.Records...)
	switch m.Rule {
	case RelistElapsed:
		t := &HealthThreshold{GateOff: relist.GateOff.Threshold}
		if on := relist.GateOn; on != nil {
			t.GateOn, t.Fallback = on.Threshold, on.FallbackThreshold
		}
		r.Threshold = t
	case EventChannelFull:
		r.Capacity = channelCapacity(files, res, con, m.Channel)
	}
	return r
}

// channelCapacity follows the constructor's channel argument to the make
// that creates it, and resolves its capacity.
func channelCapacity(files []*ast.File, res *resolver, con *Construction, p ParamRef) *Value {
	call := con.Call
	switch {
	case !p.ok():
		return &Value{Unresolved: "the channel checked is not one the constructor takes"}
	case p.Index >= len(call.Args):
		return &Value{Unresolved: fmt.Sprintf("the call passes %d arguments; the channel is argument %d", len(call.Args), p.Index+1)}
	}
	e := ast.Unparen(call.Args[p.Index])
	if id, ok := e.(*ast.Ident); ok {
		v, isVar := res.Info.Uses[id].(*types.Var)
		var body *ast.BlockStmt
		for _, f := range files {
			if f.Pos() <= call.Pos() && call.End() <= f.End() {
				path, _ := astutil.PathEnclosingInterval(f, call.Pos(), call.End())
				body = enclosingBody(path)
			}
		}
		if isVar && body != nil {
			if init := lastAssignment(body, v, call.Pos(), res.Info); init != nil {
				e = ast.Unparen(init)
			}
		}
	}
	mk, ok := e.(*ast.CallExpr)
	if !ok || builtinName(res.Info, mk.Fun) != "make" {
		return &Value{Unresolved: fmt.Sprintf("%s is not a channel made before the call", types.ExprString(call.Args[p.Index]))}
	}
	if len(mk.Args) < 2 {
		return &Value{Unresolved: fmt.Sprintf("%s makes an unbuffered channel", types.ExprString(mk))}
	}
	return res.Value(mk.Args[1])
}

// runtimeErrorsOf finds the method of register's receiver type that calls
// each registered check in a loop and words its failure: its error is
// h.RuntimeErrors.
func runtimeErrorsOf(fset *token.FileSet, files []*ast.File, info *types.Info, register *types.Func, h *Health) (*types.Func, *ast.FuncDecl) {
	if register == nil || register.Signature().Recv() == nil {
		return nil, nil
	}
	tn := namedOf(register.Signature().Recv().Type())
	for _, fd := range methodsOf(files, info)[tn] {
		var found *HealthMessage
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			rs, ok := n.(*ast.RangeStmt)
			if !ok || found != nil || !callsHealthCheck(info, rs.Body) {
				return found == nil
			}
			ast.Inspect(rs.Body, func(n ast.Node) bool {
				if e, ok := n.(ast.Expr); ok && found == nil {
					if m, ok := errorMessage(fset, info, e); ok {
						m.When = WhenCheckFailed
						found = &m
					}
				}
				return found == nil
			})
			return false
		})
		if found != nil {
			h.RuntimeErrors = found
			fn, _ := info.Defs[fd.Name].(*types.Func)
			return fn, fd
		}
	}
	return nil, nil
}

// callsHealthCheck reports whether n calls a func() (bool, error) value.
func callsHealthCheck(info *types.Info, n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if t := info.TypeOf(call.Fun); t != nil {
				if sig, ok := t.Underlying().(*types.Signature); ok && isHealthSignature(sig) {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// builtErrors are the errors built from a constant message in body,
// outside the ifs nested in it (each read on its own) and function literals.
func builtErrors(fset *token.FileSet, info *types.Info, body *ast.BlockStmt) []HealthMessage {
	var out []HealthMessage
	for _, st := range body.List {
		ast.Inspect(st, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.IfStmt, *ast.FuncLit:
				return false
			case ast.Expr:
				if m, ok := errorMessage(fset, info, n); ok {
					out = append(out, m)
					return false
				}
			}
			return true
		})
	}
	return out
}
