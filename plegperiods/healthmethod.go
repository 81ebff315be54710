// The pleg package's side of the health rule: what a PLEG's health method
// checks and the errors it returns, read from its body by shape.

package plegperiods

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// HealthRuleKind is what a PLEG's health method checks.
type HealthRuleKind string

const (
	// RelistElapsed: the time since the last successful relist against a
	// threshold (the generic PLEG's).
	RelistElapsed HealthRuleKind = "relist-elapsed"
	// EventChannelFull: the PLEG's event channel is full (the evented PLEG's
	// of v1.26 to v1.36).
	EventChannelFull HealthRuleKind = "event-channel-full"
	// HealthUnknown: the method matches neither shape; Why says what it is.
	HealthUnknown HealthRuleKind = "unknown"
)

// When a health method's (or runtimeErrors') error is returned.
const (
	WhenNeverRelisted     = "never-relisted"     // no successful relist yet (a zero time)
	WhenThresholdExceeded = "threshold-exceeded" // the elapsed time passed the threshold
	WhenChannelFull       = "channel-full"       // the event channel is full
	WhenCheckFailed       = "check-failed"       // a registered check failed (runtimeErrors)
	WhenRuntimeDown       = "runtime-down"       // the runtime's status went unrefreshed too long
	WhenOther             = "other"              // a condition plegvet does not classify
)

// HealthMessage is an error a health rule gives: its format string as
// written and where, and when it is returned.
type HealthMessage struct {
	Format string     `json:"format"`
	Pos    srcpos.Pos `json:"pos"` // the call building the error
	When   string     `json:"when"`
}

// HealthMethod is what a PLEG's health method (func() (bool, error))
// checks, read from its body; it crosses packages in the constructor's
// Shape.
type HealthMethod struct {
	Method   string          // "GenericPLEG.Healthy"
	Decl     srcpos.Pos      // its declaration
	Rule     HealthRuleKind  // what it checks
	Messages []HealthMessage // the errors it returns, in source order
	// Records are its writes of another package's variable (a metric:
	// the method runs each time the kubelet polls its checks).
	Records []CodeStep
	// Channel is the constructor's parameter holding the channel whose
	// fill it checks (event-channel-full); Index -1 otherwise, or when
	// the channel is made inside the constructor.
	Channel ParamRef
	Why     string // for an unknown rule: what the method was found to do
	// Inexact: the method compares durations, but not as the
	// relist-elapsed rule exactly (Why says where and how).
	Inexact bool
}

// isHealthSignature reports whether sig is a health check's: func() (bool, error).
func isHealthSignature(sig *types.Signature) bool {
	if sig == nil || sig.Params().Len() != 0 || sig.Results().Len() != 2 {
		return false
	}
	return sig.Results().At(0).Type() == types.Typ[types.Bool] && types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
}

// readHealthMethod reads the first of a struct's methods with a health
// check's signature; nil when it has none. fields maps the constructor's
// struct literal keys to its parameters.
func readHealthMethod(fset *token.FileSet, info *types.Info, tn *types.TypeName, methods []*ast.FuncDecl, fields map[string]int) *HealthMethod {
	for _, fd := range methods {
		fn, _ := info.Defs[fd.Name].(*types.Func)
		if fn == nil || !isHealthSignature(fn.Signature()) {
			continue
		}
		h := &HealthMethod{Method: tn.Name() + "." + fn.Name(), Decl: srcpos.Of(fset, fd.Pos()), Rule: HealthUnknown, Channel: none}
		recv := receiverObj(info, fd)
		inexact := ""
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && isRecord(info, call) {
				h.Records = append(h.Records, CodeStep{Func: h.Method, Expr: types.ExprString(call), Pos: srcpos.Of(fset, call.Pos())})
			}
			is, ok := n.(*ast.IfStmt)
			if !ok {
				return true
			}
			when, channel := classifyHealthTest(info, recv, is.Cond)
			if when == WhenThresholdExceeded {
				// Any comparison of durations: the relist-elapsed rule
				// only as the releases write it.
				if why := exactRelistTest(fset, info, recv, fd, is); why != "" {
					when = WhenOther
					if inexact == "" {
						inexact = why
					}
				}
			}
			for _, m := range builtErrors(fset, info, is.Body) {
				m.When = when
				h.Messages = append(h.Messages, m)
			}
			switch {
			case when == WhenThresholdExceeded && h.Rule == HealthUnknown:
				h.Rule = RelistElapsed
			case when == WhenChannelFull && h.Rule == HealthUnknown:
				h.Rule = EventChannelFull
				if i, ok := fields[channel]; ok {
					h.Channel = ParamRef{Index: i}
				}
			}
			return true
		})
		switch {
		case inexact != "":
			h.Rule, h.Channel, h.Why, h.Inexact = HealthUnknown, none, inexact, true
		case h.Rule == HealthUnknown:
			h.Why = h.Method + " compares no duration with a threshold and checks no channel's fill"
		}
		return h
	}
	return nil
}

// isRecord reports whether call is a method call, with one numeric
// argument, on a package-level variable of another package
// (metrics.PLEGLastSeen.Set(...)).
func isRecord(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if _, isPkg := astobj.Of(info, inner.X).(*types.PkgName); !isPkg {
		return false
	}
	if b, ok := info.TypeOf(call.Args[0]).(*types.Basic); ok && b.Info()&types.IsNumeric != 0 {
		return true
	}
	// A conversion to float64 keeps its type when its operand's package was stubbed.
	conv, ok := ast.Unparen(call.Args[0]).(*ast.CallExpr)
	return ok && len(conv.Args) == 1 && info.TypeOf(conv.Fun) != nil && info.Types[conv.Fun].IsType()
}

// classifyHealthTest says when an if's condition holds: a zero time
// (t.IsZero()), a duration compared with another (elapsed > threshold),
// or a channel field's length equal to its capacity (then the field).
func classifyHealthTest(info *types.Info, recv types.Object, cond ast.Expr) (string, string) {
	switch c := ast.Unparen(cond).(type) {
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok && isTimeType(info.TypeOf(sel.X), "Time") {
			if fn := astobj.Func(info, c); fn != nil && fn.Signature().Results().Len() == 1 && fn.Signature().Results().At(0).Type() == types.Typ[types.Bool] && len(c.Args) == 0 {
				return WhenNeverRelisted, ""
			}
		}
	case *ast.BinaryExpr:
		switch c.Op {
		case token.GTR, token.GEQ, token.LSS, token.LEQ:
			// One side may be untyped (its package stubbed): one duration will do.
			if isDuration(info.TypeOf(c.X)) || isDuration(info.TypeOf(c.Y)) {
				return WhenThresholdExceeded, ""
			}
		case token.EQL:
			x, y := builtinOf(info, c.X), builtinOf(info, c.Y)
			if x != nil && y != nil && x.name != y.name && types.ExprString(x.arg) == types.ExprString(y.arg) && chanElem(info.TypeOf(x.arg)) != nil {
				if p, ok := receiverPath(info, recv, x.arg); ok && p.sub == "" {
					return WhenChannelFull, p.field
				}
				return WhenChannelFull, ""
			}
		}
	}
	return WhenOther, ""
}

type builtinCall struct {
	name string
	arg  ast.Expr
}

// builtinOf is len(x) or cap(x), or nil.
func builtinOf(info *types.Info, e ast.Expr) *builtinCall {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil
	}
	name := builtinName(info, call.Fun)
	if name != "len" && name != "cap" {
		return nil
	}
	return &builtinCall{name: name, arg: call.Args[0]}
}

// builtinName is the name of the builtin fun refers to, or "".
func builtinName(info *types.Info, fun ast.Expr) string {
	if b, ok := astobj.Of(info, fun).(*types.Builtin); ok {
		return b.Name()
	}
	return ""
}

// errorMessage reads a call building an error from a constant string.
func errorMessage(fset *token.FileSet, info *types.Info, e ast.Expr) (HealthMessage, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return HealthMessage{}, false
	}
	// An untyped call is one of a stubbed package (fmt, errors): its
	// constant first argument still is the message.
	if t := info.TypeOf(call); !untyped(t) && !types.Identical(t, types.Universe.Lookup("error").Type()) {
		return HealthMessage{}, false
	}
	tv, ok := info.Types[call.Args[0]]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return HealthMessage{}, false
	}
	return HealthMessage{Format: constant.StringVal(tv.Value), Pos: srcpos.Of(fset, call.Pos())}, true
}
