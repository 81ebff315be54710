// The kubelet's server: the packages serving its HTTP paths other than
// /metrics, and the path a registry of its own is served on.

package runtimehang

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// ServerPackage is the kubelet's HTTP server, which registers the
// collectors of /metrics/resource and installs the /stats handlers.
const ServerPackage = "pkg/kubelet/server"

// serverPackages are the packages read with their bodies that are the
// kubelet's server.
func (p *prog) serverPackages() []*Package {
	var out []*Package
	for _, pk := range p.pkgs {
		if pk.Bodies && strings.HasSuffix(pk.Path, "/"+ServerPackage) {
			out = append(out, pk)
		}
	}
	return out
}

// servedAt is the path a collector registered by reg on a registry of
// the enclosing function's own (reg is r.M(...), r a local variable) is
// served on: the constant string handed, beside a call taking r, to
// another call of that function (mux.Handle(path, HandlerFor(r, ...))).
// false when reg registers on no local registry or none is served.
func (p *prog) servedAt(pk *Package, stack []ast.Node, reg *ast.CallExpr) (string, bool) {
	sel, ok := ast.Unparen(reg.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	id, ok := ast.Unparen(sel.X).(*ast.Ident)
	if !ok {
		return "", false
	}
	registry, ok := pk.Info.Uses[id].(*types.Var)
	if !ok || registry.IsField() || registry.Parent() == nil || registry.Parent() == registry.Pkg().Scope() {
		return "", false
	}
	body := enclosingBody(stack)
	if body == nil {
		return "", false
	}
	path, found := "", false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		s, takes := "", false
		for _, a := range call.Args {
			if tv, ok := pk.Info.Types[a]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				s = constant.StringVal(tv.Value)
			}
			if inner, ok := ast.Unparen(a).(*ast.CallExpr); ok && passes(pk.Info, inner, registry) {
				takes = true
			}
		}
		if takes && strings.HasPrefix(s, "/") {
			path, found = s, true
		}
		return !found
	})
	return path, found
}

// passes reports whether call hands v to its callee.
func passes(info *types.Info, call *ast.CallExpr, v *types.Var) bool {
	for _, a := range call.Args {
		if id, ok := ast.Unparen(a).(*ast.Ident); ok && info.Uses[id] == v {
			return true
		}
	}
	return false
}

// handlers are the HTTP handlers the kubelet's server installs that the
// packages read declare: a call handing a path (a constant string) to a
// function that pairs a sub-path with a method value of a struct it
// builds from its parameters (CreateHandlers(statsPath, ...): {"/summary",
// h.handleSummary}). Each is a Collector whose Collect is the handler
// method a request runs, its fields bound to what the server handed.
func (p *prog) handlers() []Collector {
	var out []Collector
	for _, pk := range p.serverPackages() {
		for _, f := range pk.Files {
			ast.PreorderStack(f, nil, func(n ast.Node, stack []ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				root, ok := constPath(pk.Info, call.Args)
				if !ok {
					return true
				}
				fn := astobj.Func(pk.Info, call)
				d := p.decls[fn]
				if d == nil {
					return true
				}
				for _, r := range p.routes(fn, d) {
					c := Collector{
						Constructor: types.ExprString(call.Fun), Decl: p.declPos(fn),
						Register: types.ExprString(call.Fun), Registered: srcpos.Of(p.fset, call.Pos()),
						Endpoint: path.Join(root, r.sub), Handler: true,
						Reaches: []Reach{}, Unresolved: []Unresolved{},
					}
					if len(stack) > 0 {
						if outer, ok := stack[len(stack)-1].(*ast.CallExpr); ok {
							c.Register = types.ExprString(outer.Fun)
						}
					}
					p.registeredWhen(pk, append(slices.Clip(stack), call), &c)
					p.follow(&c, pk, call, fn, r.method, r.fields)
					out = append(out, c)
				}
				return true
			})
		}
	}
	return out
}

// route is a sub-path fn pairs with a handler method, and the fields of
// the handler's struct set from fn's parameters (field: index).
type route struct {
	sub    string
	method *types.Func
	fields map[types.Object]int
}

// routes are the sub-paths fn's body pairs with a method value of a local
// variable it set to a struct literal: {"/summary", h.handleSummary}.
func (p *prog) routes(fn *types.Func, d *ast.FuncDecl) []route {
	info := p.pkgOf[fn].Info
	lits := map[types.Object]*ast.CompositeLit{} // h := &handler{...}
	ast.Inspect(d.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok {
				continue
			}
			e := ast.Unparen(as.Rhs[i])
			if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
				e = ast.Unparen(u.X)
			}
			if cl, ok := e.(*ast.CompositeLit); ok {
				if v := info.Defs[id]; v != nil {
					lits[v] = cl
				}
			}
		}
		return true
	})
	var out []route
	ast.Inspect(d.Body, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		sub, ok := constPath(info, cl.Elts)
		if !ok {
			return true
		}
		for _, e := range cl.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Value
			}
			sel := asSelector(ast.Unparen(e))
			if sel == nil {
				continue
			}
			s, ok := info.Selections[sel]
			id, isIdent := ast.Unparen(sel.X).(*ast.Ident)
			if !ok || s.Kind() != types.MethodVal || !isIdent {
				continue
			}
			m, _ := s.Obj().(*types.Func)
			lit := lits[info.Uses[id]]
			if m == nil || lit == nil || p.decls[m] == nil {
				continue
			}
			out = append(out, route{sub: sub, method: m, fields: fieldParams(info, d, lit)})
		}
		return true
	})
	return out
}

// constPath is the first constant string among es that is a path ("/...").
func constPath(info *types.Info, es []ast.Expr) (string, bool) {
	for _, e := range es {
		if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
			if s := constant.StringVal(tv.Value); strings.HasPrefix(s, "/") {
				return s, true
			}
		}
	}
	return "", false
}
