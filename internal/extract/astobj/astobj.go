// Package astobj answers, for the extractors, which object an expression
// names: the one question every reading of typed syntax starts with.
package astobj

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// Ident returns the identifier that names what e refers to: e itself, or
// the selected name of pkg.Name / x.Field; nil for other expressions.
func Ident(e ast.Expr) *ast.Ident {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// Of returns the object e refers to (Uses), or nil.
func Of(info *types.Info, e ast.Expr) types.Object {
	if id := Ident(e); id != nil {
		return info.Uses[id]
	}
	return nil
}

// Const returns the constant e refers to, or nil.
func Const(info *types.Info, e ast.Expr) *types.Const {
	c, _ := Of(info, e).(*types.Const)
	return c
}

// Func returns the function or method a call calls by name, or nil: the
// static callee (typeutil.StaticCallee, the generic function or method for
// an instantiated one), or else the interface method a call through an
// interface names. StaticCallee leaves interface methods out, the
// dynamic calls; the extractors want them (a call of the runtime
// service's GetContainerEvents, an interface method the generic PLEG
// implements, a gate test that calls one). A call of a function value (a
// variable, a method value held in one) is nil, as for StaticCallee.
func Func(info *types.Info, call *ast.CallExpr) *types.Func {
	if fn := typeutil.StaticCallee(info, call); fn != nil {
		return fn
	}
	fn, _ := Of(info, call.Fun).(*types.Func)
	return fn
}

// Leaves reports whether a block ends by leaving the function (its last
// statement a return or a call of panic) or, with next, by skipping to
// the next iteration of its loop.
func Leaves(b *ast.BlockStmt, next bool) bool {
	if len(b.List) == 0 {
		return false
	}
	switch s := b.List[len(b.List)-1].(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return next && s.Tok == token.CONTINUE
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}
