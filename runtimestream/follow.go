// Following values: from a registration (or, without one, every
// implementation) through variables, fields, calls and parameters to the
// concrete types the registered server may be.

package runtimestream

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

// run follows every registration; without one, every implementation
// found is a server.
func (r *reader) run() {
	for _, reg := range r.registered {
		via := []Step{r.step(reg.call.Pos(), fmt.Sprintf("registered with %s", types.ExprString(reg.call.Fun)))}
		r.fromValues([]valueSrc{{reg.call.Args[1], reg.pkg, -1}}, nil, via, map[any]bool{}, "the value registered")
	}
	if len(r.registered) > 0 {
		return
	}
	r.everyImplementation(nil, map[any]bool{}, "no RegisterRuntimeServiceServer call of the CRI v1 API was found: every implementation in the module counts")
}

// callCtx records, for the functions whose results a value was followed
// through, the call it was followed from: their parameters then hold that
// call's arguments only. next is the context of the caller.
type callCtx struct {
	fn   *types.Func
	call *ast.CallExpr
	pkg  *Package
	next *callCtx
}

func (c *callCtx) lookup(fn *types.Func) *callCtx {
	for ; c != nil; c = c.next {
		if c.fn == fn {
			return c
		}
	}
	return nil
}

// found is a concrete type a value may hold, with the calls it was
// followed through.
type found struct {
	t   types.Type
	ctx *callCtx
}

type seenKey struct {
	e   ast.Expr
	ctx *callCtx
}

// fromValues follows values (what they are, for a reason) to the
// concrete types they may hold and judges each; when it cannot, every
// implementation counts.
func (r *reader) fromValues(srcs []valueSrc, ctx *callCtx, via []Step, seen map[any]bool, what string) {
	var fs []found
	for _, s := range srcs {
		fs = addFound(fs, r.concretes(s, ctx, map[seenKey]bool{}, 0)...)
	}
	if len(fs) == 0 {
		s := srcs[0]
		r.everyImplementation(via, seen, fmt.Sprintf("plegvet could not follow %s (%s at %s) to a concrete type: every implementation in the module counts", what, exprString(s.e), r.at(s.e.Pos())))
		return
	}
	for _, f := range fs {
		r.fromType(f.t, f.ctx, via, seen)
	}
}

// everyImplementation counts every candidate method and every type that
// inherits the generated one.
func (r *reader) everyImplementation(via []Step, seen map[any]bool, why string) {
	step := Step{What: why}
	if len(via) > 0 {
		step.Pos = via[len(via)-1].Pos
	}
	via = append(slices.Clip(via), step)
	for _, fi := range r.candidates {
		// A wrapper is not an implementation: what it hands the stream
		// to is one of the others.
		if r.classified(fi).target == nil {
			r.fromMethod(fi, nil, via, seen)
		}
	}
	for _, tn := range r.inheritors {
		r.fromType(tn.Type(), nil, via, seen)
	}
}

// maxDepth bounds how many links one value is followed through.
const maxDepth = 24

// concretes are the concrete types the value may hold.
func (r *reader) concretes(src valueSrc, ctx *callCtx, seen map[seenKey]bool, depth int) []found {
	r.budget--
	key := seenKey{src.e, ctx}
	if r.budget < 0 || depth > maxDepth || seen[key] && src.index < 0 {
		return nil
	}
	seen[key] = true
	info := src.pkg.Info
	e := ast.Unparen(src.e)
	if src.index >= 0 {
		if tup, ok := info.TypeOf(e).(*types.Tuple); ok && src.index < tup.Len() && concrete(tup.At(src.index).Type()) {
			return []found{{tup.At(src.index).Type(), ctx}}
		}
		if call, ok := e.(*ast.CallExpr); ok {
			return r.returns(call, src.pkg, src.index, ctx, seen, depth)
		}
		return nil
	}
	if t := info.TypeOf(e); concrete(t) {
		return []found{{t, ctx}}
	}
	var srcs []valueSrc
	switch e := e.(type) {
	case *ast.CallExpr:
		return r.returns(e, src.pkg, 0, ctx, seen, depth)
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		if !ok {
			return nil
		}
		if p, ok := r.params[v]; ok {
			return r.arguments(p, ctx, seen, depth)
		}
		srcs = r.varSrc[v]
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			srcs = r.fieldSrc[sel.Obj().(*types.Var)]
		} else if v, ok := info.Uses[e.Sel].(*types.Var); ok {
			srcs = r.varSrc[v]
		}
	}
	return r.union(srcs, ctx, seen, depth)
}

func (r *reader) union(srcs []valueSrc, ctx *callCtx, seen map[seenKey]bool, depth int) []found {
	var out []found
	for _, s := range srcs {
		out = addFound(out, r.concretes(s, ctx, seen, depth+1)...)
	}
	return out
}

func addFound(out []found, fs ...found) []found {
next:
	for _, f := range fs {
		for _, o := range out {
			if o.ctx == f.ctx && types.Identical(o.t, f.t) {
				continue next
			}
		}
		out = append(out, f)
	}
	return out
}

// returns are the concrete types the index-th result of a call of a
// loaded function may hold.
func (r *reader) returns(call *ast.CallExpr, pkg *Package, index int, ctx *callCtx, seen map[seenKey]bool, depth int) []found {
	fn := typeutil.StaticCallee(pkg.Info, call)
	fi := r.funcs[fn]
	if fi == nil || fi.decl.Body == nil {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	n := sig.Results().Len()
	var srcs []valueSrc
	inspectOwn(fi.decl.Body, func(node ast.Node) {
		ret, ok := node.(*ast.ReturnStmt)
		if !ok {
			return
		}
		switch {
		case len(ret.Results) == n && index < n:
			srcs = append(srcs, valueSrc{ret.Results[index], fi.pkg, -1})
		case len(ret.Results) == 1 && n > 1:
			srcs = append(srcs, valueSrc{ret.Results[0], fi.pkg, index})
		case len(ret.Results) == 0 && index < n:
			if v := sig.Results().At(index); v.Name() != "" {
				srcs = append(srcs, r.varSrc[v]...)
			}
		}
	})
	return r.union(srcs, &callCtx{fn, call, pkg, ctx}, seen, depth)
}

// arguments are the concrete types the callers of a loaded function pass
// for a parameter: the call the value was followed from when there is
// one, every call otherwise.
func (r *reader) arguments(p paramRef, ctx *callCtx, seen map[seenKey]bool, depth int) []found {
	calls := r.calls[p.fn]
	callerCtx := ctx
	if c := ctx.lookup(p.fn); c != nil {
		calls, callerCtx = []callIn{{c.call, c.pkg}}, c.next
	}
	var srcs []valueSrc
	for _, c := range calls {
		switch {
		case p.index < 0:
			if sel, ok := ast.Unparen(c.call.Fun).(*ast.SelectorExpr); ok {
				srcs = append(srcs, valueSrc{sel.X, c.pkg, -1})
			}
		case p.index < len(c.call.Args):
			srcs = append(srcs, valueSrc{c.call.Args[p.index], c.pkg, -1})
		}
	}
	return r.union(srcs, callerCtx, seen, depth)
}

// inspectOwn visits the nodes of a function body that belong to it, not
// to the function literals inside it.
func inspectOwn(body ast.Node, f func(ast.Node)) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n != nil {
			f(n)
		}
		return true
	})
}

func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func derefUnder(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return derefType(t).Underlying()
}

// concrete reports whether t is a type whose methods can be looked up:
// a named non-interface type, or a pointer to one.
func concrete(t types.Type) bool {
	if t == nil {
		return false
	}
	n, ok := types.Unalias(derefType(t)).(*types.Named)
	return ok && !types.IsInterface(n) && n.Underlying() != types.Typ[types.Invalid]
}
