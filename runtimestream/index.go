// The reader and its index of the loaded packages: functions, their
// callers, what each variable and field is given, the methods with the
// CRI server's signature and the registrations.

package runtimestream

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// reader follows the loaded packages from registrations to the methods
// that serve the rpc.
type reader struct {
	fset   *token.FileSet
	module string              // the module's path
	rel    func(string) string // a file's name relative to the module's root

	funcs      map[*types.Func]*funcInfo
	params     map[*types.Var]paramRef
	calls      map[*types.Func][]callIn
	varSrc     map[*types.Var][]valueSrc
	fieldSrc   map[*types.Var][]valueSrc
	fieldExpr  map[*types.Var]ast.Expr // embedded fields' type expressions
	candidates []*funcInfo             // methods with the CRI server's signature
	inheritors []*types.TypeName       // types that embed the generated Unimplemented server
	registered []callIn                // RegisterRuntimeServiceServer calls

	files    map[*token.File]*Package
	outcomes map[*funcInfo]outcome

	servers []Server
	byPos   map[string]bool // servers' positions: a set, as a module may hold thousands
	budget  int
}

type funcInfo struct {
	decl *ast.FuncDecl
	pkg  *Package
	obj  *types.Func
}

// paramRef is a parameter of a loaded function: index -1 is the receiver.
type paramRef struct {
	fn    *types.Func
	index int
}

type callIn struct {
	call *ast.CallExpr
	pkg  *Package
}

// valueSrc is an expression a value may come from; index >= 0 picks one
// result of a call that returns several.
type valueSrc struct {
	e     ast.Expr
	pkg   *Package
	index int
}

// MaxSteps bounds the work of following values, whatever the code.
const MaxSteps = 20000

func newReader(fset *token.FileSet, pkgs []*Package, module string, rel func(string) string) *reader {
	r := &reader{
		fset: fset, module: module, rel: rel,
		funcs:     map[*types.Func]*funcInfo{},
		params:    map[*types.Var]paramRef{},
		calls:     map[*types.Func][]callIn{},
		varSrc:    map[*types.Var][]valueSrc{},
		fieldSrc:  map[*types.Var][]valueSrc{},
		fieldExpr: map[*types.Var]ast.Expr{},
		files:     map[*token.File]*Package{},
		outcomes:  map[*funcInfo]outcome{},
		byPos:     map[string]bool{},
		budget:    MaxSteps,
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			r.files[r.fset.File(f.Pos())] = pkg
			r.index(pkg, f)
		}
	}
	return r
}

// index records what following values needs from one file.
func (r *reader) index(pkg *Package, f *ast.File) {
	info := pkg.Info
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
func (r *reader) assign(pkg *Package, lhs, rhs []ast.Expr) {
	info := pkg.Info
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
func (r *reader) criSignature(pkg *Package, fd *ast.FuncDecl) bool {
	info := pkg.Info
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
