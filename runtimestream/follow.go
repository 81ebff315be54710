package runtimestream

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/plegvet/plegvet/internal/engine"
	"github.com/plegvet/plegvet/internal/tree"
	"github.com/plegvet/plegvet/srcpos"
)

// reader follows the loaded packages from registrations to the methods
// that serve the rpc.
type reader struct {
	tree *tree.Tree
	fset *token.FileSet

	funcs      map[*types.Func]*funcInfo
	params     map[*types.Var]paramRef
	calls      map[*types.Func][]callIn
	varSrc     map[*types.Var][]valueSrc
	fieldSrc   map[*types.Var][]valueSrc
	fieldExpr  map[*types.Var]ast.Expr // embedded fields' type expressions
	candidates []*funcInfo             // methods with the CRI server's signature
	inheritors []*types.TypeName       // types that embed the generated Unimplemented server
	registered []callIn                // RegisterRuntimeServiceServer calls

	files    map[*token.File]*packages.Package
	outcomes map[*funcInfo]outcome

	servers []Server
	byPos   map[string]bool // servers' positions: a set, as a module may hold thousands
	budget  int
}

type funcInfo struct {
	decl *ast.FuncDecl
	pkg  *packages.Package
	obj  *types.Func
}

// paramRef is a parameter of a loaded function: index -1 is the receiver.
type paramRef struct {
	fn    *types.Func
	index int
}

type callIn struct {
	call *ast.CallExpr
	pkg  *packages.Package
}

// valueSrc is an expression a value may come from; index >= 0 picks one
// result of a call that returns several.
type valueSrc struct {
	e     ast.Expr
	pkg   *packages.Package
	index int
}

// maxSteps bounds the work of following values, whatever the code.
const maxSteps = 20000

func newReader(t *tree.Tree, res *engine.Loaded) *reader {
	r := &reader{
		tree: t, fset: res.Fset,
		funcs:     map[*types.Func]*funcInfo{},
		params:    map[*types.Var]paramRef{},
		calls:     map[*types.Func][]callIn{},
		varSrc:    map[*types.Var][]valueSrc{},
		fieldSrc:  map[*types.Var][]valueSrc{},
		fieldExpr: map[*types.Var]ast.Expr{},
		files:     map[*token.File]*packages.Package{},
		outcomes:  map[*funcInfo]outcome{},
		byPos:     map[string]bool{},
		budget:    maxSteps,
	}
	for _, pkg := range res.Packages {
		for _, f := range pkg.Syntax {
			r.files[r.fset.File(f.Pos())] = pkg
			r.index(pkg, f)
		}
	}
	return r
}

// index records what following values needs from one file.
func (r *reader) index(pkg *packages.Package, f *ast.File) {
	info := pkg.TypesInfo
	for n := range ast.Preorder(f) {
		switch n := n.(type) {
		case *ast.FuncDecl:
			fn, _ := info.Defs[n.Name].(*types.Func)
			if fn == nil {
				continue
			}
			fi := &funcInfo{decl: n, pkg: pkg, obj: fn}
			r.funcs[fn] = fi
			// The signature's variables are those the body uses.
			sig := fn.Type().(*types.Signature)
			if recv := sig.Recv(); recv != nil {
				r.params[recv] = paramRef{fn, -1}
			}
			for i := range sig.Params().Len() {
				r.params[sig.Params().At(i)] = paramRef{fn, i}
			}
			if n.Recv != nil && n.Name.Name == methodName && r.criSignature(pkg, n) {
				r.candidates = append(r.candidates, fi)
			}
		case *ast.CallExpr:
			if fn := typeutil.StaticCallee(info, n); fn != nil {
				r.calls[fn] = append(r.calls[fn], callIn{n, pkg})
			}
			if isPkgSel(info, n.Fun, CRIAPIPackage, registerFunc) && len(n.Args) == 2 {
				r.registered = append(r.registered, callIn{n, pkg})
			}
		case *ast.AssignStmt:
			r.assign(pkg, n.Lhs, n.Rhs)
		case *ast.ValueSpec:
			lhs := make([]ast.Expr, len(n.Names))
			for i, name := range n.Names {
				lhs[i] = name
			}
			r.assign(pkg, lhs, n.Values)
		case *ast.CompositeLit:
			st, ok := derefUnder(info.TypeOf(n)).(*types.Struct)
			if !ok {
				continue
			}
			for i, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if key, ok := kv.Key.(*ast.Ident); ok {
						if v, ok := info.Uses[key].(*types.Var); ok && v.IsField() {
							r.fieldSrc[v] = append(r.fieldSrc[v], valueSrc{kv.Value, pkg, -1})
						}
					}
				} else if i < st.NumFields() {
					r.fieldSrc[st.Field(i)] = append(r.fieldSrc[st.Field(i)], valueSrc{elt, pkg, -1})
				}
			}
		case *ast.TypeSpec:
			st, ok := n.Type.(*ast.StructType)
			tn, _ := info.Defs[n.Name].(*types.TypeName)
			if !ok || tn == nil {
				continue
			}
			for _, fld := range st.Fields.List {
				if len(fld.Names) == 0 && isPkgSel(info, unstar(fld.Type), CRIAPIPackage, unimplemented) {
					r.inheritors = append(r.inheritors, tn)
				}
			}
		case *ast.StructType:
			for _, fld := range n.Fields.List {
				if id := typeIdent(fld.Type); len(fld.Names) == 0 && id != nil {
					if v, ok := info.Defs[id].(*types.Var); ok {
						r.fieldExpr[v] = fld.Type
					}
				}
			}
		}
	}
}

// assign records what each left-hand side may hold.
func (r *reader) assign(pkg *packages.Package, lhs, rhs []ast.Expr) {
	info := pkg.TypesInfo
	for i, l := range lhs {
		var src valueSrc
		switch {
		case len(rhs) == len(lhs):
			src = valueSrc{rhs[i], pkg, -1}
		case len(rhs) == 1:
			src = valueSrc{rhs[0], pkg, i}
		default:
			continue
		}
		switch l := ast.Unparen(l).(type) {
		case *ast.Ident:
			if v, ok := info.ObjectOf(l).(*types.Var); ok {
				r.varSrc[v] = append(r.varSrc[v], src)
			}
		case *ast.SelectorExpr:
			if sel := info.Selections[l]; sel != nil && sel.Kind() == types.FieldVal {
				v := sel.Obj().(*types.Var)
				r.fieldSrc[v] = append(r.fieldSrc[v], src)
			} else if v, ok := info.Uses[l.Sel].(*types.Var); ok {
				r.varSrc[v] = append(r.varSrc[v], src)
			}
		}
	}
}

// criSignature reports whether a GetContainerEvents method has the CRI
// server's signature: (*v1.GetEventsRequest, v1.RuntimeService_GetContainerEventsServer) error.
func (r *reader) criSignature(pkg *packages.Package, fd *ast.FuncDecl) bool {
	info := pkg.TypesInfo
	ps := flatParams(fd.Type.Params)
	rs := flatParams(fd.Type.Results)
	if len(ps) != 2 || len(rs) != 1 {
		return false
	}
	if res, ok := rs[0].(*ast.Ident); !ok || res.Name != "error" || info.Uses[res] != types.Universe.Lookup("error") {
		return false
	}
	return isStar(ps[0], func(e ast.Expr) bool { return isPkgSel(info, e, CRIAPIPackage, requestType) }) &&
		isPkgSel(info, ps[1], CRIAPIPackage, streamType)
}

// isPkgSel reports whether e is pkg.name, pkg being an import of path.
func isPkgSel(info *types.Info, e ast.Expr, path, name string) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	pn, ok := info.Uses[x].(*types.PkgName)
	return ok && pn.Imported().Path() == path
}

// typeIdent is the identifier that names an embedded field's type.
func typeIdent(e ast.Expr) *ast.Ident {
	switch e := unstar(e).(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	case *ast.IndexExpr:
		return typeIdent(e.X)
	case *ast.IndexListExpr:
		return typeIdent(e.X)
	}
	return nil
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

func (r *reader) position(p token.Pos) srcpos.Pos {
	pos := srcpos.Of(r.fset, p)
	pos.File = r.tree.Rel(pos.File)
	return pos
}

// step is a link at p (nil when p is not valid).
func (r *reader) step(p token.Pos, what string) Step {
	if !p.IsValid() {
		return Step{What: what}
	}
	pos := r.position(p)
	return Step{Pos: &pos, What: what}
}

func (r *reader) at(p token.Pos) string {
	pp := r.position(p)
	return fmt.Sprintf("%s:%d", pp.File, pp.Line)
}

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
	pkg  *packages.Package
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
	info := src.pkg.TypesInfo
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
func (r *reader) returns(call *ast.CallExpr, pkg *packages.Package, index int, ctx *callCtx, seen map[seenKey]bool, depth int) []found {
	fn := typeutil.StaticCallee(pkg.TypesInfo, call)
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

// fromType judges the GetContainerEvents of a concrete type.
func (r *reader) fromType(t types.Type, ctx *callCtx, via []Step, seen map[any]bool) {
	r.budget--
	key := types.TypeString(t, nil)
	if seen[key] || r.budget < 0 {
		return
	}
	seen = maps.Clone(seen)
	seen[key] = true
	obj, index, _ := types.LookupFieldOrMethod(t, true, nil, methodName)
	if fn, ok := obj.(*types.Func); ok {
		var field *types.Var
		if len(index) > 1 {
			var step Step
			step, field = r.promotion(t, index)
			via = append(slices.Clip(via), step)
		}
		if fi := r.funcs[fn]; fi != nil {
			r.fromMethod(fi, ctx, via, seen)
			return
		}
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) && field != nil {
			// Promoted from an embedded interface: whatever fills the field serves.
			r.fromField(field, ctx, via, seen)
			return
		}
		r.add(Server{Method: r.typeName(t) + "." + methodName, Pos: r.position(fn.Pos()), Shape: Unknown,
			Why: fmt.Sprintf("%s's %s is declared in %s, which plegvet did not read", r.typeName(t), methodName, fn.Pkg().Path())}, via)
		return
	}
	r.fromEmbedded(t, ctx, via, seen)
}

// promotion describes the embedded fields a promoted method comes
// through; last is the last of them.
func (r *reader) promotion(t types.Type, index []int) (step Step, last *types.Var) {
	var names []string
	var first token.Pos
	cur := t
	for _, i := range index[:len(index)-1] {
		st, ok := derefUnder(cur).(*types.Struct)
		if !ok || i >= st.NumFields() {
			last = nil
			break
		}
		last = st.Field(i)
		if !first.IsValid() {
			first = last.Pos()
		}
		names = append(names, last.Name())
		cur = last.Type()
	}
	return r.step(first, fmt.Sprintf("%s's %s is promoted from its embedded field %s", r.typeName(t), methodName, strings.Join(names, "."))), last
}

// fromField follows what an embedded interface field holds.
func (r *reader) fromField(f *types.Var, ctx *callCtx, via []Step, seen map[any]bool) {
	srcs := r.fieldSrc[f]
	if len(srcs) == 0 {
		r.everyImplementation(via, seen, fmt.Sprintf("no value is stored in the field %s in the code read: every implementation in the module counts", f.Name()))
		return
	}
	r.fromValues(srcs, ctx, via, seen, "what the field "+f.Name()+" holds")
}

// fromEmbedded finds the GetContainerEvents a type has through an
// embedded field whose type plegvet did not load: the CRI API's generated
// UnimplementedRuntimeServiceServer, or its RuntimeServiceServer
// interface (then whatever fills the field serves). As for Go's
// selectors, the shallowest depth wins.
func (r *reader) fromEmbedded(t types.Type, ctx *callCtx, via []Step, seen map[any]bool) {
	level := []types.Type{t}
	var stubbed []string
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var next []types.Type
		for _, cur := range level {
			st, ok := derefUnder(cur).(*types.Struct)
			if !ok {
				continue
			}
			for i := range st.NumFields() {
				f := st.Field(i)
				if !f.Embedded() {
					continue
				}
				if f.Type() != types.Typ[types.Invalid] {
					next = append(next, f.Type())
					continue
				}
				expr := r.fieldExpr[f]
				sel, _ := unstar(expr).(*ast.SelectorExpr)
				pkg := r.files[r.fset.File(f.Pos())]
				switch {
				case sel != nil && pkg != nil && isPkgSel(pkg.TypesInfo, sel, CRIAPIPackage, unimplemented):
					r.add(Server{
						Method: fmt.Sprintf("%s.%s (promoted from %s)", r.typeName(t), methodName, exprString(expr)),
						Pos:    r.position(expr.Pos()),
						Shape:  Inherited,
						Why: fmt.Sprintf("%s declares no %s of its own: it inherits the generated %s's, which returns codes.Unimplemented (%s embeds it at %s)",
							r.typeName(t), methodName, exprString(expr), r.typeName(cur), r.at(expr.Pos())),
					}, via)
					return
				case sel != nil && pkg != nil && isPkgSel(pkg.TypesInfo, sel, CRIAPIPackage, serverInterface):
					r.fromField(f, ctx, append(slices.Clip(via), r.step(expr.Pos(), fmt.Sprintf("%s's %s is promoted from its embedded %s field: whatever the field holds serves the rpc", r.typeName(t), methodName, exprString(expr)))), seen)
					return
				case expr != nil:
					stubbed = append(stubbed, exprString(expr))
				}
			}
		}
		level = next
	}
	why, shape := fmt.Sprintf("%s has no %s method in the code read", r.typeName(t), methodName), Missing
	if len(stubbed) > 0 {
		why += "; it may come from its embedded " + strings.Join(stubbed, ", ") + ", which plegvet did not read"
		shape = Unknown
	}
	pos := token.NoPos
	if n, ok := types.Unalias(derefType(t)).(*types.Named); ok {
		pos = n.Obj().Pos()
	}
	r.add(Server{Method: r.typeName(t) + "." + methodName, Pos: r.position(pos), Shape: shape, Why: why}, via)
}

func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// fromMethod judges a loaded method, following it when it hands the
// stream on.
func (r *reader) fromMethod(fi *funcInfo, ctx *callCtx, via []Step, seen map[any]bool) {
	r.budget--
	if seen[fi.obj] || r.budget < 0 {
		return
	}
	seen = maps.Clone(seen)
	seen[fi.obj] = true
	out := r.classified(fi)
	via = append(slices.Clip(via), out.via...)
	if out.target != nil {
		via = append(slices.Clip(via), r.step(out.call.Pos(), fmt.Sprintf("%s hands the stream to %s", r.methodName(fi), exprString(out.call.Fun))))
		r.fromValues([]valueSrc{*out.target}, ctx, via, seen, "the receiver "+exprString(out.target.e))
		return
	}
	r.add(Server{Method: r.methodName(fi), Pos: r.position(fi.decl.Pos()), Shape: out.shape, Evidence: r.step(out.evidence, "").Pos, Why: r.methodName(fi) + " " + out.why}, via)
}

// classified is classify of a GetContainerEvents method, once.
func (r *reader) classified(fi *funcInfo) outcome {
	if out, ok := r.outcomes[fi]; ok {
		return out
	}
	out := r.classify(fi, 1, 0)
	r.outcomes[fi] = out
	return out
}

func (r *reader) add(s Server, via []Step) {
	key := s.Pos.String() // a server reached again keeps the first way to it
	if r.byPos[key] {
		return
	}
	r.byPos[key] = true
	s.Via, s.StreamsEvents = append([]Step{}, via...), s.Shape.Streams()
	r.servers = append(r.servers, s)
}

// methodName is a method as its source declares it, qualified by its
// package's directory: pkg/cri/server.(*criService).GetContainerEvents.
func (r *reader) methodName(fi *funcInfo) string {
	recv := ""
	// "func () M()" parses: a method declaration with no receiver.
	if fi.decl.Recv != nil && len(fi.decl.Recv.List) > 0 {
		recv = types.ExprString(fi.decl.Recv.List[0].Type)
		if strings.HasPrefix(recv, "*") {
			recv = "(" + recv + ")"
		}
		recv += "."
	}
	return r.relPkg(fi.pkg.PkgPath) + "." + recv + fi.decl.Name.Name
}

func (r *reader) relPkg(p string) string {
	if rel, ok := strings.CutPrefix(p, r.tree.Module+"/"); ok {
		return rel
	}
	return p
}

// typeName is a type as methods are named: qualified by its package's
// directory, a pointer in parentheses: pkg/cri/server.(*criService).
func (r *reader) typeName(t types.Type) string {
	elem := types.Unalias(derefType(t))
	n, ok := elem.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return types.TypeString(elem, func(*types.Package) string { return "" })
	}
	name := n.Obj().Name()
	if _, ok := types.Unalias(t).(*types.Pointer); ok {
		name = "(*" + name + ")"
	}
	return r.relPkg(n.Obj().Pkg().Path()) + "." + name
}

func exprString(e ast.Expr) string {
	s := types.ExprString(e)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
