// Following a condition to what it tests: through variables, fields and
// helper functions whose body returns a test, down to gate tests.

package plegperiods

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// maxDepth bounds how many variables, fields and helper functions a test
// is followed through.
const maxDepth = 8

// site reads a condition written at an if: its !, && and || as written,
// each operand followed to what it tests.
func (g *gateReader) site(e ast.Expr) *test {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return &test{op: token.NOT, x: g.site(x.X), expr: e, via: e}
		}
	case *ast.BinaryExpr:
		if x.Op == token.LAND || x.Op == token.LOR {
			return &test{op: x.Op, x: g.site(x.X), y: g.site(x.Y), expr: e, via: e}
		}
	}
	t := g.follow(e, 0)
	t.setVia(e)
	return t
}

// follow reads what a boolean expression tests.
func (g *gateReader) follow(e ast.Expr, depth int) *test {
	if e == nil {
		return &test{konst: "false (a zero value)"}
	}
	e = ast.Unparen(e)
	if tv, ok := g.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		return &test{konst: tv.Value.String(), expr: e}
	}
	switch x := e.(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return &test{op: token.NOT, x: g.follow(x.X, depth), expr: e}
		}
	case *ast.BinaryExpr:
		if x.Op == token.LAND || x.Op == token.LOR {
			return &test{op: x.Op, x: g.follow(x.X, depth), y: g.follow(x.Y, depth), expr: e}
		}
		return leaf(e, fmt.Sprintf("%s compares values: it is not a feature-gate test", types.ExprString(e)), false)
	case *ast.CallExpr:
		if name, k, ok := gateArg(g.info, x); ok {
			return &test{gate: &Condition{Gate: name, Const: k, Test: x}, expr: e}
		}
		return g.call(x, depth)
	case *ast.Ident:
		if v, ok := g.info.Uses[x].(*types.Var); ok {
			return g.variable(x, v, depth)
		}
		return leaf(e, fmt.Sprintf("%s is not a variable plegvet can follow", x.Name), true)
	case *ast.SelectorExpr:
		if v, ok := g.info.Uses[x.Sel].(*types.Var); ok {
			return g.variable(x, v, depth)
		}
		return leaf(e, fmt.Sprintf("%s is not a variable or field plegvet can follow", types.ExprString(e)), true)
	}
	return leaf(e, fmt.Sprintf("%s is not a feature-gate test", types.ExprString(e)), false)
}

// call follows a call of a function (or method) of the package whose body
// is a single return of a test.
func (g *gateReader) call(call *ast.CallExpr, depth int) *test {
	what := types.ExprString(call)
	plausible := isBool(g.info.TypeOf(call))
	fn := astobj.Func(g.info, call)
	if fn == nil {
		return leaf(call, fmt.Sprintf("%s calls a function value, not a declared function", what), plausible)
	}
	fn = fn.Origin()
	if why := g.undeclaredGate(call, fn); why != "" {
		return leaf(call, fmt.Sprintf("%s %s", what, why), true)
	}
	if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return leaf(call, fmt.Sprintf("%s calls an interface method: which body runs is decided at run time", what), plausible)
	}
	g.index()
	decl := g.funcs[fn]
	if decl == nil {
		return leaf(call, fmt.Sprintf("%s calls %s of %s, whose body plegvet does not read here", what, fn.Name(), packageOf(fn)), plausible)
	}
	ret := singleReturn(decl)
	if ret == nil {
		return leaf(call, fmt.Sprintf("%s calls %s, whose body is not a single return of a test", what, fn.Name()), plausible)
	}
	if depth >= maxDepth || g.seen[fn] {
		return leaf(call, fmt.Sprintf("%s calls %s, which returns %s: too deep or recursive to follow", what, fn.Name(), types.ExprString(ret)), plausible)
	}
	g.seen[fn] = true
	t := g.follow(ret, depth+1)
	delete(g.seen, fn)
	if w := t.unfollowed(); w != "" {
		return leaf(call, fmt.Sprintf("%s returns %s, and %s", fn.Name(), types.ExprString(ret), w), plausible)
	}
	return t
}

// variable follows a local or package variable, or a struct field, of the
// package: every value it is given must be the same test.
func (g *gateReader) variable(e ast.Expr, v *types.Var, depth int) *test {
	what := types.ExprString(e)
	g.index()
	if fn, ok := g.params[v]; ok {
		return leaf(e, fmt.Sprintf("%s is a parameter of %s: its callers decide it", v.Name(), fn), true)
	}
	if !g.declaredHere(v) {
		return leaf(e, fmt.Sprintf("%s is declared in %s, whose assignments plegvet does not read here", what, packageOf(v)), true)
	}
	name := v.Name()
	if v.IsField() {
		name = "field " + v.Name()
	}
	a := g.sets[v]
	switch {
	case a == nil || len(a.values) == 0 && a.why == "":
		return leaf(e, fmt.Sprintf("%s is never assigned in this package", name), true)
	case a.why != "":
		return leaf(e, a.why, true)
	case depth >= maxDepth || g.seen[v]:
		return leaf(e, fmt.Sprintf("%s is too deep or recursive to follow", name), true)
	}
	g.seen[v] = true
	defer delete(g.seen, v)
	var first *test
	for _, val := range a.values {
		t := g.follow(val, depth+1)
		if w := t.unfollowed(); w != "" {
			return leaf(e, fmt.Sprintf("%s is assigned %s, and %s", name, valueString(val), w), true)
		}
		if first == nil {
			first = t
		} else if t.key() != first.key() {
			return leaf(e, fmt.Sprintf("%s is assigned different values: %s and %s", name, valueString(a.values[0]), valueString(val)), true)
		}
	}
	return first
}

func leaf(e ast.Expr, why string, plausible bool) *test {
	return &test{why: why, plausible: plausible, expr: e}
}

// packageOf is "package PATH" of obj's package, or "another package".
func packageOf(obj types.Object) string {
	if obj.Pkg() == nil {
		return "another package"
	}
	return "package " + obj.Pkg().Path()
}

func singleReturn(fd *ast.FuncDecl) ast.Expr {
	if len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	return ret.Results[0]
}

func valueString(e ast.Expr) string {
	if e == nil {
		return "its zero value"
	}
	return types.ExprString(e)
}

func isBool(t types.Type) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// undeclaredGate says why call tests a gate declared nowhere: an argument
// for a feature-gate parameter that is an undefined name (the type
// checker's error); "" when there is none.
func (g *gateReader) undeclaredGate(call *ast.CallExpr, fn *types.Func) string {
	params := fn.Signature().Params()
	for i, a := range call.Args {
		if i >= params.Len() || !isFeature(params.At(i).Type()) {
			continue
		}
		if id := astobj.Ident(a); id != nil && g.info.Uses[id] == nil {
			at := g.fset.Position(a.Pos())
			return fmt.Sprintf("tests the gate %s, which is declared nowhere (%s:%d:%d: undefined name %s)", types.ExprString(a), filepath.Base(at.Filename), at.Line, at.Column, id.Name)
		}
	}
	return ""
}
