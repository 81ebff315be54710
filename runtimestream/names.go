// How servers and the steps to them are named: positions relative to the
// tree, methods and types qualified by their package's directory.

package runtimestream

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

// Import paths and names the CRI server is recognised by.
const (
	// CRIAPIPackage is the CRI v1 API's Go package; the kubelet's
	// evented PLEG speaks v1 only (v1alpha2 has no event stream).
	CRIAPIPackage = "k8s.io/cri-api/pkg/apis/runtime/v1"
	grpcCodes     = "google.golang.org/grpc/codes"

	methodName      = "GetContainerEvents"
	requestType     = "GetEventsRequest"
	streamType      = "RuntimeService_GetContainerEventsServer"
	registerFunc    = "RegisterRuntimeServiceServer"
	unimplemented   = "UnimplementedRuntimeServiceServer"
	serverInterface = "RuntimeServiceServer"

	// MethodName, RegisterFunc and UnimplementedServer are the words a
	// file must hold to be worth reading (a loader's first sieve).
	MethodName          = methodName
	RegisterFunc        = registerFunc
	UnimplementedServer = unimplemented
)

func (r *reader) position(p token.Pos) srcpos.Pos {
	pos := srcpos.Of(r.fset, p)
	pos.File = r.rel(pos.File)
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
	return r.relPkg(fi.pkg.Path) + "." + recv + fi.decl.Name.Name
}

func (r *reader) relPkg(p string) string {
	if rel, ok := strings.CutPrefix(p, r.module+"/"); ok {
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

// flatParams lists a field list's types, one per parameter.
func flatParams(fl *ast.FieldList) []ast.Expr {
	if fl == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range fl.List {
		for range max(len(f.Names), 1) {
			out = append(out, f.Type)
		}
	}
	return out
}

func isStar(e ast.Expr, inner func(ast.Expr) bool) bool {
	s, ok := e.(*ast.StarExpr)
	return ok && inner(s.X)
}

func unstar(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

// FileHasMark reports, from syntax alone, whether the file declares a
// GetContainerEvents method with the CRI server's signature, calls the
// CRI v1 API's RegisterRuntimeServiceServer, or embeds its
// UnimplementedRuntimeServiceServer. The type checker confirms later.
func FileHasMark(f *ast.File) bool {
	names := criImportNames(f)
	if len(names) == 0 {
		return false
	}
	isCRI := func(e ast.Expr, name string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != name {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && names[x.Name]
	}
	for n := range ast.Preorder(f) {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil && n.Name.Name == methodName {
				ps := flatParams(n.Type.Params)
				if len(ps) == 2 && isStar(ps[0], func(e ast.Expr) bool { return isCRI(e, requestType) }) && isCRI(ps[1], streamType) {
					return true
				}
			}
		case *ast.CallExpr:
			if isCRI(n.Fun, registerFunc) {
				return true
			}
		case *ast.StructType:
			for _, fld := range n.Fields.List {
				if len(fld.Names) == 0 && isCRI(unstar(fld.Type), unimplemented) {
					return true
				}
			}
		}
	}
	return false
}

// criImportNames are the names under which a file imports the CRI v1
// API: its alias, or v1.
func criImportNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p != CRIAPIPackage {
			continue
		}
		switch {
		case imp.Name == nil:
			names["v1"] = true
		case imp.Name.Name != "_" && imp.Name.Name != ".":
			names[imp.Name.Name] = true
		}
	}
	return names
}
