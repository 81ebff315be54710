// How servers and the steps to them are named: positions relative to the
// tree, methods and types qualified by their package's directory.

package runtimestream

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

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
