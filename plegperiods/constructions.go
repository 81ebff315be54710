package plegperiods

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// Construction is one call of a PLEG constructor.
type Construction struct {
	Call *ast.CallExpr
	Func *types.Func
	Ctor *Shape
	// Period and Threshold are the relist loop's values; Retries and
	// Fallback (with FallbackThreshold) the evented PLEG's. nil when the
	// constructor takes no such value.
	Period, Threshold           *Value
	Retries                     *Value
	Fallback, FallbackThreshold *Value
	// Literal is the RelistDuration literal the period came from, nil
	// for a bare duration.
	Literal *ast.CompositeLit
	// Conditions are the feature-gate tests the call runs under.
	Conditions []Condition
	// Holder is the variable or struct field the constructed PLEG is
	// assigned to (kl.eventedPleg), nil when it is not assigned to one.
	Holder types.Object
	// Unfollowed are the conditions on the path that could not be
	// followed to gate tests. For an evented construction, every such
	// enclosing if counts; otherwise (a generic construction, an early
	// return) only a name, a field or a bool call, or its negation: an
	// err != nil must not read as a hidden gate.
	Unfollowed []UnfollowedTest
}

// Condition is a feature-gate test a construction runs under.
type Condition struct {
	Gate  string        // the gate's name (its constant's value)
	Const *types.Const  // the gate's constant
	On    bool          // the call runs when the gate is on (else: off)
	If    token.Pos     // the if statement (or early return) deciding it
	Test  *ast.CallExpr // the Enabled(...) call
	// Via is the expression at If that carries the test: Test itself when
	// written inline, else the variable, field or helper call followed
	// to it (Test may then be in another function).
	Via ast.Expr
}

// Constructions finds the calls of PLEG constructors in a package. ctor
// tells which functions are constructors (from the pleg package's facts).
func Constructions(fset *token.FileSet, files []*ast.File, info *types.Info, ctor func(*types.Func) *Shape) []*Construction {
	res := newResolver(fset, files, info)
	gates := newGateReader(fset, files, info)
	var out []*Construction
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := astobj.Func(info, call)
			if fn == nil {
				return true
			}
			c := ctor(fn)
			if c == nil {
				return true
			}
			con := &Construction{Call: call, Func: fn, Ctor: c}
			path, _ := astutil.PathEnclosingInterval(f, call.Pos(), call.End())
			body := enclosingBody(path)
			con.Period, con.Literal = res.arg(call, c.Period, body)
			con.Threshold, _ = res.arg(call, c.Threshold, body)
			if !c.Threshold.ok() {
				con.Threshold = c.ThresholdConst
			}
			con.Retries, _ = res.arg(call, c.Retries, body)
			if e := c.Evented; e != nil && e.OnStreamFailure.Action == FailureUnknown && e.OnStreamFailure.Pos != nil {
				// What it does once the stream has failed for good is a
				// call plegvet could not follow: a period read from its
				// parameters, or none, would be a guess.
				con.Fallback = &Value{Pos: call.Pos(), Unresolved: fmt.Sprintf("what the evented PLEG does once its stream has failed for good (%s) could not be followed%s", srcpos.Line(e.OnStreamFailure.Pos), whyOf(e.OnStreamFailure.Why))}
			} else if c.Fallback.ok() {
				// The evented PLEG hands back a whole relist duration: its
				// period and threshold are the generic constructor's fields.
				period, threshold := c.Fallback.Field, ""
				if period == "" {
					period, threshold = c.PeriodField, c.ThresholdField
				}
				con.Fallback, _ = res.arg(call, ParamRef{Index: c.Fallback.Index, Field: period}, body)
				if threshold != "" {
					con.FallbackThreshold, _ = res.arg(call, ParamRef{Index: c.Fallback.Index, Field: threshold}, body)
				}
				if c.FallbackThreshold.ok() { // handed back beside a bare period
					con.FallbackThreshold, _ = res.arg(call, c.FallbackThreshold, body)
				}
			} else if c.FallbackConst != nil {
				con.Fallback, con.FallbackThreshold = c.FallbackConst, c.FallbackThresholdConst
			} else if e := c.Evented; e != nil && e.OnStreamFailure.Action == RestoreGenericRelist {
				// It restores a period, but not one its constructor is
				// handed: saying it restores none would be a guess.
				con.Fallback = &Value{Pos: call.Pos(), Unresolved: fmt.Sprintf("the evented PLEG restores a period (%s) that does not come from a parameter of %s", srcpos.Line(e.OnStreamFailure.Pos), fn.Name())}
			}
			con.Holder = holder(info, path)
			con.Conditions, con.Unfollowed = gates.conditions(path, c.Kind == Evented)
			out = append(out, con)
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Call.Pos() < out[j].Call.Pos() })
	return out
}

// holder is what a call's first result is assigned to: a variable or a
// field, by an assignment, a declaration or a struct literal's key.
func holder(info *types.Info, path []ast.Node) types.Object {
	call := path[0] // path[1] exists: the file, at least
	switch p := path[1].(type) {
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r == call && (len(p.Lhs) == len(p.Rhs) || i == 0) {
				return defOrUse(info, p.Lhs[i])
			}
		}
	case *ast.ValueSpec:
		for i, v := range p.Values {
			if v == call && (len(p.Names) == len(p.Values) || i == 0) {
				return defOrUse(info, p.Names[i])
			}
		}
	case *ast.KeyValueExpr:
		if p.Value == call {
			if k, ok := p.Key.(*ast.Ident); ok {
				return info.Uses[k]
			}
		}
	}
	return nil
}

// defOrUse is the object e (x, or x.f) declares or refers to, or nil.
func defOrUse(info *types.Info, e ast.Expr) types.Object {
	id := astobj.Ident(e)
	if id == nil {
		return nil
	}
	if o := info.Defs[id]; o != nil {
		return o
	}
	return info.Uses[id]
}

func enclosingBody(path []ast.Node) *ast.BlockStmt {
	for _, n := range path {
		switch n := n.(type) {
		case *ast.FuncLit:
			return n.Body
		case *ast.FuncDecl:
			return n.Body
		}
	}
	return nil
}

// arg resolves a constructor argument: the value, or the field of the
// RelistDuration literal it is, following a local variable and &; nil
// when the constructor takes no such value.
func (r *resolver) arg(call *ast.CallExpr, p ParamRef, body *ast.BlockStmt) (*Value, *ast.CompositeLit) {
	switch {
	case !p.ok():
		return nil, nil
	case p.Index >= len(call.Args):
		return &Value{Unresolved: fmt.Sprintf("the call passes %d arguments; the constructor takes this value as argument %d", len(call.Args), p.Index+1), Pos: call.Pos()}, nil
	}
	e := call.Args[p.Index]
	if p.Field == "" {
		return r.Value(e), nil
	}
	lit, why := follow(e, call.Pos(), body, r.Info)
	if lit == nil {
		return &Value{Unresolved: why, Pos: e.Pos()}, nil
	}
	if v := r.reassigned(e, lit, call, p.Field, body); v != nil {
		return v, lit
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == p.Field {
				return r.Value(kv.Value), lit
			}
		}
	}
	return &Value{Unresolved: fmt.Sprintf("%s is not set in %s: it is zero", p.Field, types.ExprString(lit.Type)), Pos: lit.Pos()}, lit
}

// reassigned is the value of field set on the local variable holding lit
// (e, as passed, or through &) after the literal and before call: the
// last such assignment when it runs on the way to the call (its block
// holds the call), unresolved when it is made in a block the call is
// not in (a condition decides it); nil when none is made.
func (r *resolver) reassigned(e ast.Expr, lit *ast.CompositeLit, call *ast.CallExpr, field string, body *ast.BlockStmt) *Value {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	id, ok := e.(*ast.Ident)
	if !ok || body == nil {
		return nil
	}
	v, ok := r.Info.Uses[id].(*types.Var)
	if !ok {
		return nil
	}
	var found *Value
	var blocks []*ast.BlockStmt
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		if n == nil {
			return false
		}
		if b, ok := n.(*ast.BlockStmt); ok {
			blocks = append(blocks, b)
			for _, st := range b.List {
				ast.Inspect(st, walk)
			}
			blocks = blocks[:len(blocks)-1]
			return false
		}
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() < lit.End() || as.Pos() > call.Pos() || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, l := range as.Lhs {
			sel, ok := ast.Unparen(l).(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != field {
				continue
			}
			if x, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || r.Info.Uses[x] != v {
				continue
			}
			at := r.Fset.Position(as.Pos())
			if b := blocks[len(blocks)-1]; call.Pos() < b.Pos() || call.End() > b.End() {
				found = &Value{Unresolved: fmt.Sprintf("%s.%s is reassigned at %s:%d under a condition the call is not under: which value is in force depends on it", id.Name, field, filepath.Base(at.Filename), at.Line), Pos: as.Pos()}
				continue
			}
			if as.Tok != token.ASSIGN {
				found = &Value{Unresolved: fmt.Sprintf("%s.%s is changed at %s:%d (%s)", id.Name, field, filepath.Base(at.Filename), at.Line, as.Tok), Pos: as.Pos()}
				continue
			}
			found = r.Value(as.Rhs[i])
		}
		return true
	}
	walk(body)
	return found
}

// follow finds the composite literal an argument holds: written in place,
// through &, or assigned to a local variable before the call.
func follow(e ast.Expr, before token.Pos, body *ast.BlockStmt, info *types.Info) (*ast.CompositeLit, string) {
	for range 8 {
		switch x := ast.Unparen(e).(type) {
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil, fmt.Sprintf("%s is not a relist-duration literal", types.ExprString(x))
			}
			e = x.X
		case *ast.CompositeLit:
			return x, ""
		case *ast.Ident:
			v, ok := info.Uses[x].(*types.Var)
			if !ok || body == nil {
				return nil, fmt.Sprintf("%s is not a local variable plegvet can follow", x.Name)
			}
			init := lastAssignment(body, v, before, info)
			if init == nil {
				return nil, fmt.Sprintf("%s is not assigned a literal before the call", x.Name)
			}
			e = init
		default:
			return nil, fmt.Sprintf("%s is computed at run time, not a literal", types.ExprString(x))
		}
	}
	return nil, "too many indirections"
}

func lastAssignment(body *ast.BlockStmt, v *types.Var, before token.Pos, info *types.Info) ast.Expr {
	var found ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || n.Pos() >= before {
			return false
		}
		switch s := n.(type) {
		case *ast.AssignStmt:
			if len(s.Lhs) != len(s.Rhs) {
				return true
			}
			for i, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok && (info.Defs[id] == v || info.Uses[id] == v) {
					found = s.Rhs[i]
				}
			}
		case *ast.ValueSpec:
			for i, id := range s.Names {
				if info.Defs[id] == v && i < len(s.Values) {
					found = s.Values[i]
				}
			}
		}
		return true
	})
	return found
}

// gateArg recognises a test of one feature gate: a call whose only
// argument is a constant of type featuregate.Feature (Enabled(features.X)).
func gateArg(info *types.Info, call *ast.CallExpr) (string, *types.Const, bool) {
	if len(call.Args) != 1 {
		return "", nil, false
	}
	a := ast.Unparen(call.Args[0])
	tv, ok := info.Types[a]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String || !isFeature(tv.Type) {
		return "", nil, false
	}
	return constant.StringVal(tv.Value), astobj.Const(info, a), true
}

func isFeature(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Feature" && featuregates.IsAPI(n.Obj().Pkg())
}

// whyOf is ": why", or nothing when why is empty.
func whyOf(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}
