// What the generic PLEG offers the evented one: its pod cache and the
// methods that enqueue a relist request, recognised by type.

package plegperiods

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// readGeneric finds, in the generic PLEG's methods, the pod cache (the
// type of the field it calls Set on) and the methods that enqueue a
// relist request: a send, on a channel field of the receiver that is not
// a lifecycle event channel, that another of its methods receives from.
func (r *loopReader) readGeneric(methods []*ast.FuncDecl) {
	slices.SortFunc(methods, func(a, b *ast.FuncDecl) int { return cmp.Compare(a.Pos(), b.Pos()) })
	received := map[string]*ast.FuncDecl{} // channel fields received from, and where
	type send struct {
		field string
		fd    *ast.FuncDecl
	}
	var sends []send
	for _, fd := range methods {
		recv := receiverObj(r.info, fd)
		field := func(e ast.Expr) string { // the receiver's field e is (g.f), or ""
			if p, ok := receiverPath(r.info, recv, e); ok && p.sub == "" {
				return p.field
			}
			return ""
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Set" {
					if v := fieldVar(r.generic, field(sel.X)); v != nil {
						if k := r.varKey(v); k != "" {
							r.caches[k] = true
						}
					}
				}
			case *ast.UnaryExpr:
				if f := field(n.X); n.Op == token.ARROW && f != "" {
					received[f] = fd
				}
			case *ast.RangeStmt:
				if f := field(n.X); f != "" && chanElem(r.info.TypeOf(n.X)) != nil {
					received[f] = fd
				}
			case *ast.SendStmt:
				if f := field(n.Chan); f != "" && !r.isEvent(chanElem(r.info.TypeOf(n.Chan))) {
					sends = append(sends, send{f, fd})
				}
			}
			return true
		})
	}
	for _, s := range sends {
		if by, ok := received[s.field]; ok && by != s.fd {
			if fn, ok := r.info.Defs[s.fd.Name].(*types.Func); ok {
				r.requests[fn.Name()] = fn
			}
		}
	}
}

// fieldVar is tn's field called name, or nil.
func fieldVar(tn *types.TypeName, name string) *types.Var {
	if st, ok := tn.Type().Underlying().(*types.Struct); ok {
		for v := range st.Fields() {
			if v.Name() == name {
				return v
			}
		}
	}
	return nil
}

// typeKey names a named type (or a pointer to one) by its package path
// and name: "k8s.io/kubernetes/pkg/kubelet/container.Cache".
func typeKey(t types.Type) string {
	tn := namedOf(t)
	if tn == nil || tn.Pkg() == nil {
		return ""
	}
	return tn.Pkg().Path() + "." + tn.Name()
}

// varKey is the key of a variable's type; for a field whose type did not
// type-check (its package was stubbed) it is read from the field's
// declaration: the import path its package name stands for, and the name.
func (r *loopReader) varKey(v *types.Var) string {
	if t := v.Type(); t != nil && t != types.Typ[types.Invalid] {
		return typeKey(t)
	}
	e := r.fieldExpr[v]
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if pn, ok := astobj.Of(r.info, x.X).(*types.PkgName); ok {
			return pn.Imported().Path() + "." + x.Sel.Name
		}
	case *ast.Ident:
		if tn, ok := r.info.Uses[x].(*types.TypeName); ok && tn.Pkg() != nil {
			return tn.Pkg().Path() + "." + tn.Name()
		}
	}
	return ""
}

// isPodCache reports whether a type key is the pod cache: the generic
// PLEG writes it, or it is Cache of the kubelet's container package.
func (r *loopReader) isPodCache(key string) bool {
	return key != "" && (r.caches[key] || strings.HasSuffix(key, "/pkg/kubelet/container.Cache") || key == "pkg/kubelet/container.Cache")
}

// cacheSet reports whether call is Set on the pod cache.
func (r *loopReader) cacheSet(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Set" {
		return false
	}
	if k := typeKey(r.info.TypeOf(sel.X)); k != "" {
		return r.isPodCache(k)
	}
	if v, ok := astobj.Of(r.info, sel.X).(*types.Var); ok {
		return r.isPodCache(r.varKey(v))
	}
	return false
}

// relistCallee returns the generic PLEG's relist-request method a call
// reaches: the method itself, or an interface method the generic PLEG
// implements with it.
func (r *loopReader) relistCallee(call *ast.CallExpr) *types.Func {
	fn := astobj.Func(r.info, call)
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if target := r.requests[fn.Name()]; target != nil && (fn == target || r.genericImplements(fn)) {
		return target
	}
	return nil
}

// genericImplements reports whether fn is a method of an interface the
// generic PLEG implements.
func (r *loopReader) genericImplements(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	iface, ok := recv.Type().Underlying().(*types.Interface)
	return ok && types.Implements(types.NewPointer(r.generic.Type()), iface)
}
