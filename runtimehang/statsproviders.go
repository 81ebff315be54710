// Which stats provider the collectors' registered methods reach: the
// assignments of the kubelet's field, their constructors, and the
// condition and feature gates each runs under.

package runtimehang

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// statsProviders are the assignments of the fields whose methods the
// collectors are registered with (kl.StatsProvider, of
// kl.StatsProvider.ListPodStats), and the conditions they run under.
func (p *prog) statsProviders(k *Package) []StatsProvider {
	fieldsWanted := p.registeredFields
	out := []StatsProvider{}
	for _, f := range k.Files {
		ast.PreorderStack(f, nil, func(n ast.Node, stack []ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			lhs, ok := ast.Unparen(as.Lhs[0]).(*ast.SelectorExpr)
			if !ok || !fieldsWanted[k.Info.Uses[lhs.Sel]] {
				return true
			}
			stack = append(slices.Clip(stack), as) // the assignment's enclosing nodes, itself the innermost
			call := p.definingCall(k, stack, as.Rhs[0])
			if call == nil {
				return true
			}
			sp := StatsProvider{Constructor: types.ExprString(call.Fun), Pos: srcpos.Of(p.fset, as.Pos()), Gates: gatesIn(k.Info, call)}
			if fn := astobj.Func(k.Info, call); fn != nil {
				sp.Decl = srcpos.At(p.fset, fn.Pos())
			}
			var cond ast.Expr
			sp.When, sp.WhenPos, cond = condition(p.fset, stack)
			sp.WhenSet, sp.WhenSetPos = p.fieldSet(k, cond)
			out = append(out, sp)
			return true
		})
	}
	slices.SortFunc(out, func(a, b StatsProvider) int { return comparePos(a.Pos, b.Pos) })
	return out
}

// definingCall is the call e is: e itself, or the call defining the
// local variable e names in the enclosing function.
func (p *prog) definingCall(k *Package, stack []ast.Node, e ast.Expr) *ast.CallExpr {
	e = ast.Unparen(e)
	if c, ok := e.(*ast.CallExpr); ok {
		return c
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	v := k.Info.Uses[id]
	body := enclosingBody(stack)
	if v == nil || body == nil {
		return nil
	}
	var out *ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || out != nil || len(as.Lhs) != len(as.Rhs) {
			return out == nil
		}
		for i, l := range as.Lhs {
			if lid, ok := l.(*ast.Ident); ok && k.Info.Defs[lid] == v {
				out, _ = ast.Unparen(as.Rhs[i]).(*ast.CallExpr)
			}
		}
		return out == nil
	})
	return out
}

// fieldSet is the value assigned, in k, to the field cond reads (x.f, or
// !x.f), as written, and where; "" when cond reads no field or k does not
// assign it.
func (p *prog) fieldSet(k *Package, cond ast.Expr) (string, *srcpos.Pos) {
	if u, ok := ast.Unparen(cond).(*ast.UnaryExpr); ok && u.Op == token.NOT {
		cond = u.X
	}
	sel := asSelector(ast.Unparen(cond))
	if sel == nil {
		return "", nil
	}
	fv, ok := k.Info.Uses[sel.Sel].(*types.Var)
	if !ok || !fv.IsField() {
		return "", nil
	}
	var val string
	var at *srcpos.Pos
	for _, f := range k.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || at != nil || len(as.Lhs) != len(as.Rhs) {
				return at == nil
			}
			for i, l := range as.Lhs {
				if ls := asSelector(ast.Unparen(l)); ls != nil && k.Info.Uses[ls.Sel] == fv {
					val, at = types.ExprString(as.Rhs[i]), srcpos.At(p.fset, as.Pos())
				}
			}
			return at == nil
		})
	}
	return val, at
}

// gatesIn are the feature gates (constants of a features package) n
// names, in order, each once.
func gatesIn(info *types.Info, n ast.Node) []string {
	out := []string{}
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if c, ok := info.Uses[id].(*types.Const); ok && c.Pkg() != nil && strings.HasSuffix(c.Pkg().Path(), "/pkg/features") && !slices.Contains(out, c.Name()) {
				out = append(out, c.Name())
			}
		}
		return true
	})
	return out
}

// enclosingBody is the body of the innermost function (a declaration or
// a literal) among stack's nodes; nil when none.
func enclosingBody(stack []ast.Node) *ast.BlockStmt {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			return f.Body
		case *ast.FuncLit:
			return f.Body
		}
	}
	return nil
}
