// Relist as level-triggered reconciliation: the generic PLEG lists the
// whole state from the runtime and derives events from the difference
// with the previous listing. Both steps are found by shape.

package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// Reconcile is the evidence that the generic PLEG's relist reconciles
// levels, not edges: the call listing every pod from the runtime, and the
// comparison of a container's state with the previous listing's from
// which events are generated. Either is null when not found.
type Reconcile struct {
	List    *CodeStep `json:"list"`
	Compare *CodeStep `json:"compare"`
}

// CodeStep is a step of the code: the function it is in, the expression
// as written and its position.
type CodeStep struct {
	Func string     `json:"func"`
	Expr string     `json:"expr"`
	Pos  srcpos.Pos `json:"pos"`
}

// readReconcile finds the relist (a method of the generic PLEG that the
// function holding its relist loop, at loop, calls or hands over) and in
// it the list call: the first call on one of the receiver's fields,
// typed as an interface (or not typed: its package was stubbed), whose
// two results are assigned (the pods and the error), the first a slice
// when typed. In the package's functions it finds the comparison of two
// parameters of the same named type (the old and the new state) in a
// function returning a slice (the events generated).
func readReconcile(fset *token.FileSet, files []*ast.File, info *types.Info, methods []*ast.FuncDecl, loop token.Pos) *Reconcile {
	r := &Reconcile{}
	for _, fd := range relistCandidates(info, methods, loop) {
		recv := receiverObj(info, fd)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || r.List != nil || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
				return r.List == nil
			}
			call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if p, ok := receiverPath(info, recv, sel.X); !ok || p.sub != "" || !(isInterface(info.TypeOf(sel.X)) || untyped(info.TypeOf(sel.X))) {
				return true
			}
			if sig, ok := info.TypeOf(call.Fun).(*types.Signature); ok && (sig.Results().Len() != 2 || !isSlice(sig.Results().At(0).Type())) {
				return true
			}
			r.List = &CodeStep{Func: fd.Name.Name, Expr: types.ExprString(call), Pos: srcpos.Of(fset, call.Pos())}
			return false
		})
	}
	for _, fd := range funcDecls(files) {
		if r.Compare != nil {
			break
		}
		fn, _ := info.Defs[fd.Name].(*types.Func)
		if fn == nil || !returnsSlice(fn.Signature()) {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			b, ok := n.(*ast.BinaryExpr)
			if !ok || r.Compare != nil || b.Op != token.EQL {
				return r.Compare == nil
			}
			x, _ := astobj.Of(info, b.X).(*types.Var)
			y, _ := astobj.Of(info, b.Y).(*types.Var)
			if x != nil && y != nil && x != y && isParam(fn, x) && isParam(fn, y) && namedOf(x.Type()) != nil && types.Identical(x.Type(), y.Type()) {
				r.Compare = &CodeStep{Func: fd.Name.Name, Expr: types.ExprString(b), Pos: srcpos.Of(fset, b.Pos())}
			}
			return true
		})
	}
	if r.List == nil && r.Compare == nil {
		return nil
	}
	return r
}

// relistCandidates are the methods that the method holding the relist
// loop (at loop) calls or hands over as a method value, in source order.
func relistCandidates(info *types.Info, methods []*ast.FuncDecl, loop token.Pos) []*ast.FuncDecl {
	byFunc := map[*types.Func]*ast.FuncDecl{}
	var holder *ast.FuncDecl
	for _, fd := range methods {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			byFunc[fn] = fd
		}
		if fd.Body.Pos() <= loop && loop < fd.Body.End() {
			holder = fd
		}
	}
	if holder == nil {
		return nil
	}
	var out []*ast.FuncDecl
	seen := map[*ast.FuncDecl]bool{}
	ast.Inspect(holder.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if s, ok := info.Selections[sel]; ok && s.Kind() == types.MethodVal {
				if fd := byFunc[s.Obj().(*types.Func)]; fd != nil && fd != holder && !seen[fd] {
					seen[fd] = true
					out = append(out, fd)
				}
			}
		}
		return true
	})
	return out
}

func untyped(t types.Type) bool { return t == nil || t == types.Typ[types.Invalid] }

func isInterface(t types.Type) bool {
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

func isSlice(t types.Type) bool {
	_, ok := t.Underlying().(*types.Slice)
	return ok
}

func returnsSlice(sig *types.Signature) bool {
	for v := range sig.Results().Variables() {
		if isSlice(v.Type()) {
			return true
		}
	}
	return false
}

func isParam(fn *types.Func, v *types.Var) bool {
	for p := range fn.Signature().Params().Variables() {
		if p == v {
			return true
		}
	}
	return false
}
