// Which collectors pkg/kubelet registers on /metrics, and the CRI calls
// a scrape reaches through each: its Collect method followed, its fields
// bound to what the kubelet handed its constructor.

package runtimehang

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// legacyRegistry is the registry the kubelet serves on /metrics.
const legacyRegistry = "k8s.io/component-base/metrics/legacyregistry"

// collectors are the collectors the packages pks register: pkg/kubelet's
// on the legacy registry (/metrics), its server's on the registries it
// serves on its other paths (/metrics/resource).
func (p *prog) collectors(pks ...*Package) []Collector {
	out := []Collector{}
	for _, pk := range pks {
		for _, f := range pk.Files {
			ast.PreorderStack(f, nil, func(n ast.Node, stack []ast.Node) bool {
				reg, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				for _, a := range reg.Args {
					ctor, ok := ast.Unparen(a).(*ast.CallExpr)
					if !ok {
						continue
					}
					if c, ok := p.collector(pk, reg, ctor); ok {
						// The registration's enclosing nodes, itself the innermost.
						stack := append(slices.Clip(stack), reg)
						p.registeredWhen(pk, stack, &c)
						if c.Endpoint == "" {
							if path, ok := p.servedAt(pk, stack, reg); ok {
								c.Endpoint, c.EndpointUnknown = path, ""
							}
						}
						out = append(out, c)
					}
				}
				return true
			})
		}
	}
	slices.SortFunc(out, func(a, b Collector) int { return comparePos(a.Registered, b.Registered) })
	return out
}

// collector reads ctor as the construction of a collector registered by
// reg: its constructor returns a type with a Collect method.
func (p *prog) collector(k *Package, reg, ctor *ast.CallExpr) (Collector, bool) {
	fn := astobj.Func(k.Info, ctor)
	d := p.decls[fn]
	if fn == nil || d == nil {
		return Collector{}, false
	}
	info := p.pkgOf[fn].Info
	lit, named := returnedLiteral(info, d)
	if named == nil {
		return Collector{}, false
	}
	var collect *types.Func
	for _, name := range []string{"CollectWithStability", "Collect"} {
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(named), true, named.Obj().Pkg(), name)
		if m, ok := obj.(*types.Func); ok && p.decls[m] != nil {
			collect = m
			break
		}
	}
	if collect == nil {
		return Collector{}, false
	}
	c := Collector{
		Constructor: types.ExprString(ctor.Fun), Decl: p.declPos(fn),
		Register: types.ExprString(reg.Fun), Registered: srcpos.Of(p.fset, ctor.Pos()),
		Reaches: []Reach{}, Unresolved: []Unresolved{},
	}
	c.Endpoint, c.EndpointUnknown = p.endpoint(k, reg)
	for _, a := range ctor.Args {
		if sel := asSelector(ast.Unparen(a)); sel != nil {
			if s, ok := k.Info.Selections[sel]; ok && s.Kind() == types.MethodVal {
				if inner := asSelector(ast.Unparen(sel.X)); inner != nil {
					if fv, ok := k.Info.Uses[inner.Sel].(*types.Var); ok && fv.IsField() {
						p.registeredFields[fv] = true
					}
				}
			}
		}
	}
	p.follow(&c, k, ctor, fn, collect, fieldParams(info, d, lit))
	return c, true
}

// follow fills c's Collect with m (the method each scrape or request
// runs) and the runtime calls reached from it, the fields of m's
// receiver set at construction (fields: field to the parameter of ctor's
// function fn it is set from) bound to ctor's arguments in pk.
func (p *prog) follow(c *Collector, pk *Package, ctor *ast.CallExpr, fn, m *types.Func, fields map[types.Object]int) {
	c.Collect = &Step{Func: funcName(m), Pos: *p.declPos(m), Decl: p.declPos(m)}
	w := newWalker(p)
	cd := p.decls[m]
	cinfo := p.pkgOf[m].Info
	bind := func(call *ast.CallExpr) ([]chain, bool) {
		return p.bindField(w, cinfo, pk, ctor, fields, call)
	}
	for _, ch := range w.body(cinfo, cd.Body, 0, bind) {
		c.Reaches = append(c.Reaches, Reach{Method: ch.method, Provider: ch.provider(), Steps: ch.steps, Concurrent: ch.concurrent})
	}
	slices.SortFunc(c.Reaches, func(a, b Reach) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Method, b.Method))
	})
	c.Unresolved = append(c.Unresolved, w.unresolved...)
	slices.SortFunc(c.Unresolved, func(a, b Unresolved) int { return comparePos(a.Step.Pos, b.Step.Pos) })
}

// returnedLiteral is the composite literal d returns (&T{...} or T{...})
// and its named type.
func returnedLiteral(info *types.Info, d *ast.FuncDecl) (*ast.CompositeLit, *types.Named) {
	var lit *ast.CompositeLit
	var named *types.Named
	ast.Inspect(d.Body, func(n ast.Node) bool {
		r, ok := n.(*ast.ReturnStmt)
		if !ok || named != nil || len(r.Results) != 1 {
			return named == nil
		}
		e := ast.Unparen(r.Results[0])
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = ast.Unparen(u.X)
		}
		if cl, ok := e.(*ast.CompositeLit); ok {
			if n, ok := types.Unalias(info.TypeOf(cl)).(*types.Named); ok {
				lit, named = cl, n
			}
		}
		return named == nil
	})
	return lit, named
}

// fieldParams maps each field of lit set from a parameter of d to that
// parameter's index (by key, or by place in a literal without keys).
func fieldParams(info *types.Info, d *ast.FuncDecl, lit *ast.CompositeLit) map[types.Object]int {
	params := map[types.Object]int{}
	i := 0
	for _, f := range d.Type.Params.List {
		for _, n := range f.Names {
			params[info.Defs[n]] = i
			i++
		}
		if len(f.Names) == 0 {
			i++
		}
	}
	out := map[types.Object]int{}
	st, _ := info.TypeOf(lit).Underlying().(*types.Struct)
	for i, e := range lit.Elts {
		var field types.Object
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok {
				field = info.Uses[key]
			}
			e = kv.Value
		} else if st != nil && i < st.NumFields() {
			// A literal without keys sets the fields in order.
			field = st.Field(i)
		}
		val, _ := ast.Unparen(e).(*ast.Ident)
		if field == nil || val == nil {
			continue
		}
		if idx, ok := params[info.Uses[val]]; ok {
			out[field] = idx
		}
	}
	return out
}

// bindField answers a call of a collector's field given at construction:
// recv.f(...) (a func field: the function or method value registered) or
// recv.f.M(...) (an interface field: M of the value registered).
func (p *prog) bindField(w *walker, info *types.Info, k *Package, ctor *ast.CallExpr, fields map[types.Object]int, call *ast.CallExpr) ([]chain, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	method := ""
	fsel := sel
	if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok {
		if _, isField := fields[info.Uses[inner.Sel]]; isField {
			fsel, method = inner, sel.Sel.Name
		}
	}
	idx, ok := fields[info.Uses[fsel.Sel]]
	if !ok || idx >= len(ctor.Args) {
		return nil, false
	}
	arg := ast.Unparen(ctor.Args[idx])
	var fn *types.Func
	if method == "" {
		if _, isFunc := info.TypeOf(fsel).Underlying().(*types.Signature); !isFunc {
			return nil, false
		}
		fn, _ = astobj.Of(k.Info, arg).(*types.Func)
		if s, ok := k.Info.Selections[asSelector(arg)]; ok {
			fn, _ = s.Obj().(*types.Func)
		}
	} else if t := k.Info.TypeOf(arg); isTyped(t) {
		var pkg *types.Package
		base := t
		if ptr, ok := t.(*types.Pointer); ok {
			base = ptr.Elem()
		}
		if n, ok := types.Unalias(base).(*types.Named); ok {
			pkg = n.Obj().Pkg()
		}
		obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, method)
		fn, _ = obj.(*types.Func)
	}
	step := Step{Func: types.ExprString(call.Fun) + " = " + types.ExprString(arg), Pos: srcpos.Of(p.fset, call.Pos())}
	if fn == nil {
		w.unresolve(step, fmt.Sprintf("the value registered for %s (%s) is not a function or method read from source", types.ExprString(fsel), types.ExprString(arg)))
		return nil, true
	}
	var out []chain
	for _, c := range w.call(fn, arg.Pos(), 0, "") {
		out = append(out, chain{steps: append([]Step{step}, c.steps...), method: c.method, concurrent: c.concurrent})
	}
	return out, true
}

// endpoint is where a collector registered by reg is scraped: /metrics
// when reg is a function of the legacy registry or passes its arguments
// to one.
func (p *prog) endpoint(k *Package, reg *ast.CallExpr) (string, string) {
	if usesPackage(k.Info, reg.Fun, legacyRegistry) {
		return "/metrics", ""
	}
	fn := astobj.Func(k.Info, reg)
	if fn == nil {
		return "", fmt.Sprintf("%s is not typed (its package was not read from source)", types.ExprString(reg.Fun))
	}
	d := p.decls[fn]
	if d == nil {
		return "", fmt.Sprintf("the body of %s is not read (%s was not read from source with its bodies)", types.ExprString(reg.Fun), fn.Pkg().Path())
	}
	if usesPackage(p.pkgOf[fn].Info, d.Body, legacyRegistry) {
		return "/metrics", ""
	}
	return "", fmt.Sprintf("%s (%s) does not register with %s", types.ExprString(reg.Fun), srcpos.Of(p.fset, d.Name.Pos()), legacyRegistry)
}
