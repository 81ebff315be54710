package runtimehang

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// CRIAPIPackage is the package declaring the CRI's service interfaces
// (internalapi.RuntimeService, ImageManagerService): a call of one of
// their methods is a call of the runtime.
const CRIAPIPackage = "k8s.io/cri-api/pkg/apis"

// legacyRegistry is the registry the kubelet serves on /metrics.
const legacyRegistry = "k8s.io/component-base/metrics/legacyregistry"

// maxDepth bounds how deep a chain is followed.
const maxDepth = 12

// Package is one package's typed syntax. Bodies says whether its
// function bodies were type-checked (a package read for its
// declarations only has none to follow).
type Package struct {
	Path   string
	Files  []*ast.File
	Info   *types.Info
	Bodies bool
}

// Input is what Extract reads: pkg/kubelet, the packages read from
// source beside it (collectors, the stats providers, the node status
// setters, the configuration defaults, the CRI API), and the runtime-down
// threshold the health rule read from pkg/kubelet (plegperiods'
// RuntimeDown; nil when not found), carried into the answer.
type Input struct {
	Fset        *token.FileSet
	Kubelet     Package
	Others      []Package
	RuntimeDown *constvalue.Value
}

// prog indexes the packages read: each function's declaration and the
// package it is in, and the named types that may implement an interface.
type prog struct {
	fset  *token.FileSet
	decls map[*types.Func]*ast.FuncDecl
	pkgOf map[*types.Func]*Package
	named []*types.Named
	pkgs  []*Package
	// tags are the struct fields' tags; registeredFields the fields whose
	// method values are registered with a collector (kl.StatsProvider).
	tags             map[*types.Var]string
	registeredFields map[types.Object]bool
	// fieldTypes are the struct fields' type expressions, with the info
	// of their package: what names an untyped field's package.
	fieldTypes map[*types.Var]fieldType
	// impls are implementations' answers, by interface method: the walk
	// asks again for each call through the same method.
	impls map[*types.Func][]*types.Func
}

type fieldType struct {
	expr ast.Expr
	info *types.Info
}

func newProg(in Input) *prog {
	p := &prog{fset: in.Fset, decls: map[*types.Func]*ast.FuncDecl{}, pkgOf: map[*types.Func]*Package{}, tags: map[*types.Var]string{}, registeredFields: map[types.Object]bool{}, fieldTypes: map[*types.Var]fieldType{}, impls: map[*types.Func][]*types.Func{}}
	all := append([]Package{in.Kubelet}, in.Others...)
	for i := range all {
		pkg := &all[i]
		if pkg.Info == nil {
			continue
		}
		p.pkgs = append(p.pkgs, pkg)
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if fn, ok := pkg.Info.Defs[d.Name].(*types.Func); ok && d.Body != nil && pkg.Bodies {
						p.decls[fn] = d
						p.pkgOf[fn] = pkg
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok {
							if tn, ok := pkg.Info.Defs[ts.Name].(*types.TypeName); ok {
								if st, ok := tn.Type().Underlying().(*types.Struct); ok {
									for i := 0; i < st.NumFields(); i++ {
										p.tags[st.Field(i)] = st.Tag(i)
									}
								}
								if st, ok := ts.Type.(*ast.StructType); ok {
									for _, fl := range st.Fields.List {
										for _, n := range fl.Names {
											if v, ok := pkg.Info.Defs[n].(*types.Var); ok {
												p.fieldTypes[v] = fieldType{fl.Type, pkg.Info}
											}
										}
									}
								}
								if n, ok := tn.Type().(*types.Named); ok && !types.IsInterface(n) && pkg.Bodies {
									p.named = append(p.named, n)
								}
							}
						}
					}
				}
			}
		}
	}
	return p
}

// Extract reads what a hung runtime does to the kubelet of in.
func Extract(in Input) *Hang {
	p := newProg(in)
	h := &Hang{Collectors: []Collector{}, StatsProviders: []StatsProvider{}}
	k := &in.Kubelet
	h.Collectors = p.collectors(k)
	h.StatsProviders = p.statsProviders(k)
	h.Deadline = p.deadline(k)
	if h.Deadline != nil {
		p.perCall(h)
	}
	runtimeIface := p.statusLoop(k, h)
	if runtimeIface != nil {
		h.NodeStatus = p.nodeStatus(k, runtimeIface)
	}
	h.NodeStatusFrequency = p.settingDefault(NodeStatusFrequencySetting)
	h.RuntimeDown = in.RuntimeDown
	h.Relist = p.relist()
	var why []string
	if len(h.Collectors) == 0 {
		why = append(why, "pkg/kubelet registers no collector: no call passes the result of a constructor whose type has a Collect or CollectWithStability method read from source")
	}
	if h.StatusLoop == nil {
		why = append(why, "no method of pkg/kubelet calls the runtime's Status (a method of an interface also declaring Version) and is run periodically")
	}
	if h.Deadline == nil {
		why = append(why, "no variable of the CRI API's RuntimeService ("+CRIAPIPackage+", read from source) is assigned a construction taking a duration")
	}
	h.Unknown = strings.Join(why, "; ")
	return h
}

// funcName is fn as a step names it: Type.Method or pkg.Func.
func funcName(fn *types.Func) string {
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Obj().Name() + "." + fn.Name()
		}
		return fn.Name()
	}
	if fn.Pkg() != nil {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	return fn.Name()
}

func (p *prog) declPos(fn *types.Func) *srcpos.Pos {
	if d := p.decls[fn]; d != nil {
		return srcpos.At(p.fset, d.Name.Pos())
	}
	return nil
}

// ifaceOf is the interface fn is a method of, and its name; nil for a
// concrete method or a function.
func ifaceOf(fn *types.Func) (*types.Interface, string) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, ""
	}
	t := sig.Recv().Type()
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil, ""
	}
	name := "interface"
	if n, ok := types.Unalias(t).(*types.Named); ok {
		name = n.Obj().Name()
	}
	return it, name
}

// isCRI reports whether fn is a method of an interface the CRI API
// package declares.
func isCRI(fn *types.Func) bool {
	it, _ := ifaceOf(fn)
	return it != nil && fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), CRIAPIPackage)
}

// implementations are the methods implementing the interface method fn
// among the named types of the packages read, sorted by position. An
// unexported interface's implementations are its own package's types:
// the values it holds are built there (the stats provider's
// containerStatsProvider is criStatsProvider or cadvisorStatsProvider,
// not the kubelet, whose ListPodStats has the same signature). The
// callers share the slice and only read it.
func (p *prog) implementations(fn *types.Func) []*types.Func {
	if out, ok := p.impls[fn]; ok {
		return out
	}
	out := p.findImplementations(fn)
	p.impls[fn] = out
	return out
}

// findImplementations is implementations, computed.
func (p *prog) findImplementations(fn *types.Func) []*types.Func {
	if onFindImplementations != nil {
		onFindImplementations(fn)
	}
	it, name := ifaceOf(fn)
	if it == nil {
		return nil
	}
	var out []*types.Func
	for _, n := range p.named {
		if !token.IsExported(name) && n.Obj().Pkg() != fn.Pkg() {
			continue
		}
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			if !types.Implements(t, it) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(t, true, fn.Pkg(), fn.Name())
			if m, ok := obj.(*types.Func); ok && p.decls[m] != nil && !slices.Contains(out, m) {
				out = append(out, m)
			}
			break
		}
	}
	slices.SortFunc(out, func(a, b *types.Func) int { return cmp.Compare(a.Pos(), b.Pos()) })
	return out
}

// onFindImplementations, when set (by tests), is told of each search
// for an interface method's implementations.
var onFindImplementations func(fn *types.Func)

// chain is a path to a CRI call: its steps, the last the CRI call.
type chain struct {
	steps  []Step
	method string
	// concurrent: a step of it runs in a goroutine of its caller's (a
	// go statement, an errgroup's or a WaitGroup's Go), beside the
	// caller's other calls rather than after them.
	concurrent bool
}

// provider is the receiver type of the chain's first step through an
// interface.
func (c chain) provider() string {
	for _, s := range c.steps {
		if s.Via != "" {
			t, _, _ := strings.Cut(s.Func, ".")
			return t
		}
	}
	return ""
}

// walker follows calls from a function to the runtime.
type walker struct {
	p          *prog
	memo       map[*types.Func][]chain
	busy       map[*types.Func]bool
	unresolved []Unresolved
}

func newWalker(p *prog) *walker {
	return &walker{p: p, memo: map[*types.Func][]chain{}, busy: map[*types.Func]bool{}}
}

func (w *walker) unresolve(s Step, why string) {
	for _, u := range w.unresolved {
		if u.Step.Pos == s.Pos && u.Step.Func == s.Func {
			return
		}
	}
	w.unresolved = append(w.unresolved, Unresolved{Step: s, Why: why})
}

// call follows one call of fn made at pos: the chains from it, each
// starting with the call's step.
// recv, when not "", names the interface the call selects the method on.
func (w *walker) call(fn *types.Func, pos token.Pos, depth int, recv string) []chain {
	step := Step{Func: funcName(fn), Pos: srcpos.Of(w.p.fset, pos), Decl: w.p.declPos(fn)}
	if isCRI(fn) {
		_, name := ifaceOf(fn)
		if recv != "" {
			name = recv
		}
		step.Func, step.Via = name+"."+fn.Name(), name
		return []chain{{steps: []Step{step}, method: step.Func}}
	}
	if it, name := ifaceOf(fn); it != nil {
		if recv != "" {
			name = recv
		}
		impls := w.p.implementations(fn)
		if len(impls) == 0 {
			if fn.Pkg() != nil && isTreePackage(fn.Pkg().Path()) {
				w.unresolve(Step{Func: name + "." + fn.Name(), Pos: step.Pos, Via: name}, fmt.Sprintf("no type of the packages read implements %s (%s); its implementations' packages were not read from source", name, fn.Pkg().Path()))
			}
			return nil
		}
		var out []chain
		for _, m := range impls {
			s := Step{Func: funcName(m), Pos: step.Pos, Decl: w.p.declPos(m), Via: name}
			for _, c := range w.fn(m, depth+1) {
				out = append(out, chain{steps: append([]Step{s}, c.steps...), method: c.method, concurrent: c.concurrent})
			}
		}
		return out
	}
	if w.p.decls[fn] == nil {
		if fn.Pkg() != nil && isTreePackage(fn.Pkg().Path()) && fn.Type().(*types.Signature).Recv() != nil {
			w.unresolve(step, fmt.Sprintf("the body of %s is not read (%s was not read from source with its bodies)", step.Func, fn.Pkg().Path()))
		}
		return nil
	}
	var out []chain
	for _, c := range w.fn(fn, depth+1) {
		out = append(out, chain{steps: append([]Step{step}, c.steps...), method: c.method, concurrent: c.concurrent})
	}
	return out
}

// isTreePackage reports whether a package is the kubelet's own (a
// call into it that is not followed is worth naming).
func isTreePackage(path string) bool {
	return strings.Contains(path, "/pkg/kubelet")
}

// fn is the chains from fn's body, one per CRI method and provider.
func (w *walker) fn(fn *types.Func, depth int) []chain {
	if cs, ok := w.memo[fn]; ok {
		return cs
	}
	d := w.p.decls[fn]
	if d == nil || w.busy[fn] || depth > maxDepth {
		return nil
	}
	w.busy[fn] = true
	cs := w.body(w.p.pkgOf[fn].Info, d.Body, depth, nil)
	delete(w.busy, fn)
	w.memo[fn] = cs
	return cs
}

// body is the chains from the calls in body; bind, when not nil, answers
// for a call it knows (a collector's field) first.
func (w *walker) body(info *types.Info, body ast.Node, depth int, bind func(*ast.CallExpr) ([]chain, bool)) []chain {
	var out []chain
	var spawned []ast.Node // the goroutines' bodies seen so far
	mark := func(call *ast.CallExpr, cs []chain) []chain {
		for _, g := range spawned {
			if call.Pos() >= g.Pos() && call.End() <= g.End() {
				for i := range cs {
					cs[i].concurrent = true
				}
				break
			}
		}
		return cs
	}
	ast.Inspect(body, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			spawned = append(spawned, g.Call)
			return true
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if lit := goroutineArg(info, call); lit != nil {
			spawned = append(spawned, lit)
		}
		if bind != nil {
			if cs, ok := bind(call); ok {
				out = append(out, mark(call, cs)...)
				return true
			}
		}
		fn := astobj.Func(info, call)
		if fn == nil {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				if s, ok := info.Selections[asSelector(ast.Unparen(sel.X))]; ok && s.Kind() == types.FieldVal && !isTyped(info.TypeOf(sel.X)) {
					if why := w.p.untypedField(s.Obj().(*types.Var), types.ExprString(sel.X)); why != "" {
						w.unresolve(Step{Func: types.ExprString(call.Fun), Pos: srcpos.Of(w.p.fset, call.Pos())}, why)
					}
				}
			}
			return true
		}
		out = append(out, mark(call, w.call(fn, call.Pos(), depth, staticName(info, call)))...)
		return true
	})
	return dedupe(out)
}

// untypedField says why a call through the field v (written x) is not
// followed: its type's package was not read from source. "" for a type
// of the standard library (a mutex's Lock calls no runtime).
func (p *prog) untypedField(v *types.Var, x string) string {
	ft, ok := p.fieldTypes[v]
	if !ok {
		return fmt.Sprintf("%s is not typed (its type's package was not read from source)", x)
	}
	e := ft.expr
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
			continue
		case *ast.IndexExpr:
			e = t.X
			continue
		}
		break
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return fmt.Sprintf("%s is not typed", x)
	}
	id, _ := sel.X.(*ast.Ident)
	pn, _ := ft.info.Uses[id].(*types.PkgName)
	if pn == nil {
		return fmt.Sprintf("%s is not typed", x)
	}
	path := pn.Imported().Path()
	if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") {
		return ""
	}
	return fmt.Sprintf("%s is a %s, whose package %s was not read from source", x, types.ExprString(ft.expr), path)
}

// staticName is the named type a call's method is selected on (the CRI
// API's RuntimeService, rather than ContainerManager, the interface it
// embeds that declares the method); "" for other calls.
func staticName(info *types.Info, call *ast.CallExpr) string {
	sel := asSelector(ast.Unparen(call.Fun))
	if sel == nil {
		return ""
	}
	s, ok := info.Selections[sel]
	if !ok {
		return ""
	}
	t := s.Recv()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && types.IsInterface(n) {
		return n.Obj().Name()
	}
	return ""
}

func isTyped(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.(*types.Basic)
	return !ok || b.Kind() != types.Invalid
}

// dedupe keeps the first chain of each provider and method.
func dedupe(cs []chain) []chain {
	seen := map[string]bool{}
	var out []chain
	for _, c := range cs {
		k := c.provider() + "|" + c.method
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// collectors are the collectors pkg/kubelet registers.
func (p *prog) collectors(k *Package) []Collector {
	out := []Collector{}
	for _, f := range k.Files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			reg, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, a := range reg.Args {
				ctor, ok := ast.Unparen(a).(*ast.CallExpr)
				if !ok {
					continue
				}
				if c, ok := p.collector(k, reg, ctor); ok {
					p.registeredWhen(k, stack, &c)
					out = append(out, c)
				}
			}
			return true
		})
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
	c.Collect = &Step{Func: funcName(collect), Pos: *p.declPos(collect), Decl: p.declPos(collect)}
	w := newWalker(p)
	fields := fieldParams(info, d, lit)
	cd := p.decls[collect]
	cinfo := p.pkgOf[collect].Info
	bind := func(call *ast.CallExpr) ([]chain, bool) {
		return p.bindField(w, cinfo, k, ctor, fields, call)
	}
	for _, ch := range w.body(cinfo, cd.Body, 0, bind) {
		c.Reaches = append(c.Reaches, Reach{Method: ch.method, Provider: ch.provider(), Steps: ch.steps, Concurrent: ch.concurrent})
	}
	slices.SortFunc(c.Reaches, func(a, b Reach) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Method, b.Method))
	})
	c.Unresolved = append(c.Unresolved, w.unresolved...)
	slices.SortFunc(c.Unresolved, func(a, b Unresolved) int { return comparePos(a.Step.Pos, b.Step.Pos) })
	return c, true
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
// parameter's index.
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
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, _ := kv.Key.(*ast.Ident)
		val, _ := ast.Unparen(kv.Value).(*ast.Ident)
		if key == nil || val == nil {
			continue
		}
		if idx, ok := params[info.Uses[val]]; ok {
			if fv := info.Uses[key]; fv != nil {
				out[fv] = idx
			}
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

func asSelector(e ast.Expr) *ast.SelectorExpr {
	s, _ := e.(*ast.SelectorExpr)
	return s
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

// usesPackage reports whether n names the package imported from path.
func usesPackage(info *types.Info, n ast.Node, path string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if pn, ok := info.Uses[id].(*types.PkgName); ok && pn.Imported().Path() == path {
				found = true
			}
		}
		return !found
	})
	return found
}

// statsProviders are the assignments of the fields whose methods the
// collectors are registered with (kl.StatsProvider, of
// kl.StatsProvider.ListPodStats), and the conditions they run under.
func (p *prog) statsProviders(k *Package) []StatsProvider {
	fieldsWanted := p.registeredFields
	out := []StatsProvider{}
	for _, f := range k.Files {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			lhs, ok := ast.Unparen(as.Lhs[0]).(*ast.SelectorExpr)
			if !ok || !fieldsWanted[k.Info.Uses[lhs.Sel]] {
				return true
			}
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
	var body *ast.BlockStmt
	for i := len(stack) - 1; i >= 0 && body == nil; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncDecl:
			body = f.Body
		case *ast.FuncLit:
			body = f.Body
		}
	}
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

// condition is the if the innermost statement of stack runs under: its
// condition as written, negated for the else branch.
func condition(fset *token.FileSet, stack []ast.Node) (string, *srcpos.Pos, ast.Expr) {
	for i := len(stack) - 1; i > 0; i-- {
		is, ok := stack[i-1].(*ast.IfStmt)
		if !ok {
			if _, isFunc := stack[i].(*ast.FuncDecl); isFunc {
				break
			}
			continue
		}
		cond := types.ExprString(is.Cond)
		if stack[i] == is.Else {
			cond = "!(" + cond + ")"
		}
		if stack[i] == is.Body || stack[i] == is.Else {
			return cond, srcpos.At(fset, is.Cond.Pos()), is.Cond
		}
	}
	return "", nil, nil
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

// deadline is the timeout the CRI runtime service is built with: the
// duration argument of the calls building the value assigned to a
// variable of the CRI API's runtime service type (the interface declaring
// Version).
func (p *prog) deadline(k *Package) *Deadline {
	var out *Deadline
	for _, f := range k.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || out != nil || len(as.Rhs) != 1 {
				return out == nil
			}
			if !isCRIRuntimeService(k.Info.TypeOf(as.Lhs[0])) {
				return true
			}
			for _, call := range callChain(as.Rhs[0]) {
				for _, a := range call.Args {
					if setting, ok := durationArg(k.Info, a); ok {
						out = &Deadline{Call: types.ExprString(call.Fun), Pos: srcpos.Of(p.fset, a.Pos()), Expr: types.ExprString(a), Setting: setting}
						out.Value = constvalue.ValueOf(p.fset, k.Files, k.Info, a)
						if setting != "" {
							out.Default = p.settingDefault(setting)
						}
						return false
					}
				}
			}
			return true
		})
	}
	return out
}

// isCRIRuntimeService reports whether t is the CRI API's runtime service
// interface: declared in the CRI API package, with a Version method.
func isCRIRuntimeService(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || !strings.HasPrefix(n.Obj().Pkg().Path(), CRIAPIPackage) {
		return false
	}
	it, ok := n.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := 0; i < it.NumMethods(); i++ {
		if it.Method(i).Name() == "Version" {
			return true
		}
	}
	return false
}

// callChain is the calls of e, outermost first: a builder's
// x.A(a).B(b).Build() is Build, B, A.
func callChain(e ast.Expr) []*ast.CallExpr {
	var out []*ast.CallExpr
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			out = append(out, x)
			e = x.Fun
		case *ast.SelectorExpr:
			e = x.X
		default:
			slices.Reverse(out)
			return out
		}
	}
}

// durationArg reports whether a is a duration: typed time.Duration, or
// (when the configuration's types are stubbed) cfg.Field.Duration, a
// metav1.Duration's field. setting is the configuration field's JSON
// name (lowerCamel of the Go name, as the kubelet's configuration names
// its fields), "" for a duration from no field.
func durationArg(info *types.Info, a ast.Expr) (setting string, ok bool) {
	a = ast.Unparen(a)
	sel, isSel := a.(*ast.SelectorExpr)
	if isSel && sel.Sel.Name == "Duration" {
		if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok {
			return lowerCamel(inner.Sel.Name), true
		}
	}
	if t := info.TypeOf(a); t != nil {
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
			return "", true
		}
	}
	return "", false
}

// readPackages are the kubelet's packages whose bodies the answer
// follows, by their path under the module: the collectors, their
// registration, the stats providers, the node status setters, the
// configuration defaults, the CRI client (pkg/kubelet/cri/remote, later
// the staging module k8s.io/cri-client, read when the tree holds it).
var readPackages = []string{"/pkg/kubelet/metrics/collectors", "/pkg/kubelet/metrics", "/pkg/kubelet/stats", "/pkg/kubelet/nodestatus", "/" + ConfigDefaultsPackage, "/pkg/kubelet/cri/remote", "k8s.io/cri-client/pkg", "/pkg/kubelet/pleg", "/pkg/kubelet/kuberuntime"}

// Reads reports whether the answer follows calls through an import's
// function bodies: a loader checks them whole.
func Reads(importPath string) bool {
	return slices.ContainsFunc(readPackages, func(s string) bool { return strings.HasSuffix(importPath, s) })
}

// FromSource reports whether an import is worth reading from source for
// the answer: those it Reads, and, for their declarations, the kubelet's
// runtime interface (pkg/kubelet/container) and the CRI API's services.
func FromSource(importPath string) bool {
	return Reads(importPath) || strings.HasSuffix(importPath, "/pkg/kubelet/container") || importPath == CRIAPIPackage
}

// perCall reads, for each CRI method the collectors reach, the CRI
// client's implementation of it among the packages read (a type of a
// package with bodies implementing the CRI interface) and the timeout it
// puts on the call: a context.WithTimeout in its body.
func (p *prog) perCall(h *Hang) {
	d := h.Deadline
	d.PerCall = []PerCall{}
	methods := map[string]*types.Func{}
	var names []string
	for _, pkg := range p.pkgs {
		if !strings.HasPrefix(pkg.Path, CRIAPIPackage) {
			continue
		}
		for _, name := range h.CRIMethods() {
			iface, method, _ := strings.Cut(name, ".")
			if tn := lookupType(pkg, iface); tn != nil {
				if m, _, _ := types.LookupFieldOrMethod(tn.Type(), false, tn.Pkg(), method); m != nil {
					if fn, ok := m.(*types.Func); ok && methods[name] == nil {
						methods[name] = fn
						names = append(names, name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		for _, m := range p.implementations(methods[name]) {
			if !isCRIClient(p.pkgOf[m].Path) {
				continue // a wrapper of the kubelet's (kuberuntime's instrumented service) passes the call on
			}
			pc := PerCall{Method: name, Impl: funcName(m), Decl: p.declPos(m)}
			info := p.pkgOf[m].Info
			ast.Inspect(p.decls[m].Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || pc.Pos != nil {
					return pc.Pos == nil
				}
				if t := withTimeout(info, call); t != nil {
					pc.Timeout, pc.Pos = types.ExprString(t), srcpos.At(p.fset, call.Pos())
				} else if i := p.timeoutParam(astobj.Func(info, call)); i >= 0 && i < len(call.Args) {
					// A helper of the client's (getContextWithTimeout(r.timeout)).
					pc.Timeout, pc.Pos = types.ExprString(call.Args[i]), srcpos.At(p.fset, call.Pos())
				}
				return pc.Pos == nil
			})
			d.PerCall = append(d.PerCall, pc)
		}
	}
	if len(d.PerCall) == 0 && len(names) > 0 {
		d.PerCallUnknown = "no implementation of the CRI methods reached was read: the CRI client's package (pkg/kubelet/cri/remote, or k8s.io/cri-client/pkg outside the tree) was not read from source"
	}
}

// isCRIClient reports whether a package is the CRI client's, whose
// methods put the deadline on each call.
func isCRIClient(path string) bool {
	return strings.HasSuffix(path, "/pkg/kubelet/cri/remote") || strings.HasPrefix(path, "k8s.io/cri-client/pkg")
}

// lookupType is the type pkg declares by name; nil when none.
func lookupType(pkg *Package, name string) *types.TypeName {
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.Name == name {
						tn, _ := pkg.Info.Defs[ts.Name].(*types.TypeName)
						return tn
					}
				}
			}
		}
	}
	return nil
}

// withTimeout is the timeout of a context.WithTimeout call; nil for
// another call.
func withTimeout(info *types.Info, call *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "WithTimeout" && len(call.Args) == 2 && usesPackage(info, sel.X, "context") {
		return call.Args[1]
	}
	return nil
}

// timeoutParam is the index of fn's parameter its body passes as a
// context.WithTimeout's timeout; -1 when none (or fn's body was not read).
func (p *prog) timeoutParam(fn *types.Func) int {
	if fn == nil || p.decls[fn] == nil {
		return -1
	}
	info := p.pkgOf[fn].Info
	params := fn.Type().(*types.Signature).Params()
	idx := -1
	ast.Inspect(p.decls[fn].Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && idx < 0 {
			if t, ok := ast.Unparen(withTimeout(info, call)).(*ast.Ident); ok {
				for i := 0; i < params.Len(); i++ {
					if info.Uses[t] == params.At(i) {
						idx = i
					}
				}
			}
		}
		return idx < 0
	})
	return idx
}
