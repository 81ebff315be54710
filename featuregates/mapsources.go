// What a feature map is filled from: a literal, another map read
// elsewhere, a parameter; and the maps and entries that cannot be read.

package featuregates

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/types"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// define reads what a feature map variable is given: a literal is read
// as the variable's map; anything else must be a map read elsewhere, or
// the variable's map is unreadable.
func (x *extractor) define(container string, v *types.Var, kind string, rhs ast.Expr) {
	if lit, ok := ast.Unparen(rhs).(*ast.CompositeLit); ok {
		x.owner[lit] = v
		return
	}
	if why := x.source(rhs); why != "" {
		x.unreadableMap(v, container, kind, rhs, "the map is "+why)
	}
}

// mapsCopy reads maps.Copy(dst, src) into a feature map variable: src
// must be a map read elsewhere, or dst is unreadable.
func (x *extractor) mapsCopy(container string, call *ast.CallExpr) {
	if !x.isMapsFunc(call, "Copy") || len(call.Args) != 2 {
		return
	}
	v, kind := x.feature(call.Args[0])
	if v == nil {
		return
	}
	x.mapIndex(v, kind, container) // dst is a feature map even when src is read
	if why := x.source(call.Args[1]); why != "" {
		x.unreadableMap(v, container, kind, call, "maps.Copy adds a map "+why)
	}
}

// isMapsFunc reports whether call calls the standard library's maps.name,
// by its object or, when package maps is stubbed, by the import.
func (x *extractor) isMapsFunc(call *ast.CallExpr, name string) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	if fn := astobj.Func(x.info, call); fn != nil && fn.Pkg() != nil {
		return fn.Pkg().Path() == "maps"
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	pn, ok := x.info.Uses[id].(*types.PkgName)
	return ok && pn.Imported().Path() == "maps"
}

// source says why the map e evaluates to cannot be read, or "" when its
// entries are read where they are written: a literal, an empty map, a
// variable (read where it is filled, or a parameter: its caller's map),
// or a call of a function declared here (whose returns are read).
func (x *extractor) source(e ast.Expr) string {
	e = ast.Unparen(e)
	switch e := e.(type) {
	case *ast.CompositeLit:
		return ""
	case *ast.Ident, *ast.SelectorExpr:
		switch x.info.ObjectOf(astobj.Ident(e)).(type) {
		case *types.Var, *types.Nil:
			return ""
		}
	case *ast.CallExpr:
		fun := ast.Unparen(e.Fun)
		tv := x.info.Types[fun]
		if tv.IsType() && len(e.Args) == 1 {
			return x.source(e.Args[0]) // a conversion
		}
		if id, ok := fun.(*ast.Ident); ok && tv.IsBuiltin() && id.Name == "make" {
			return ""
		}
		if _, ok := fun.(*ast.FuncLit); ok {
			return ""
		}
		if fn := astobj.Func(x.info, e); fn != nil && x.funcs[fn] {
			return ""
		}
		if x.isMapsFunc(e, "Clone") && len(e.Args) == 1 {
			return x.source(e.Args[0])
		}
		return "built by the call " + types.ExprString(fun) + "()"
	}
	return types.ExprString(e) + ", not a composite literal"
}

// forwarded reports whether a key that is not a constant only passes on
// gates read elsewhere: the key of a range over a feature map read in
// full, or over a parameter (an adapter's input: its caller's gates).
func (x *extractor) forwarded(key ast.Expr) bool {
	if arg, _ := x.conversion(key); arg != nil {
		key = arg
	}
	id, ok := ast.Unparen(key).(*ast.Ident)
	if !ok {
		return false
	}
	v, ok := x.info.Uses[id].(*types.Var)
	if !ok {
		return false
	}
	src, ok := x.rangeOf[v]
	if !ok {
		return false
	}
	if sv, ok := astobj.Of(x.info, src).(*types.Var); ok && (sv.Kind() == types.ParamVar || sv.Kind() == types.RecvVar) {
		return true
	}
	return mapKind(x.info.TypeOf(src)) != "" && x.source(src) == ""
}

// unreadableMap records a map whose entries are not known: v's, or (v
// nil) one that container returns.
func (x *extractor) unreadableMap(v *types.Var, container, kind string, at ast.Node, why string) {
	var i int
	label := "returned by " + container
	if v != nil {
		i = x.mapIndex(v, kind, container)
		label = x.res.Maps[i].Name
	} else {
		x.res.Maps = append(x.res.Maps, Map{Name: container, Kind: kind, Pos: at.Pos()})
		i = len(x.res.Maps) - 1
	}
	x.res.Maps[i].Unresolved = cmp.Or(x.res.Maps[i].Unresolved, why)
	x.problem(at, "feature map %s could not be read: %s; plegvet reads literal entries and index assignments only", label, why)
	if v != nil && v.Kind() == types.LocalVar {
		x.res.Problems[len(x.res.Problems)-1].Local = true
	}
}

// unreadableEntry records an entry of map i whose gate is not known.
func (x *extractor) unreadableEntry(i int, at ast.Node, why string) {
	m := &x.res.Maps[i]
	m.Unresolved = cmp.Or(m.Unresolved, "an entry could not be read: "+why)
	x.problem(at, "an entry of feature map %s could not be read: %s", m.Name, why)
}

func (x *extractor) problem(at ast.Node, format string, args ...any) {
	x.res.Problems = append(x.res.Problems, Problem{Pos: at.Pos(), End: at.End(), Msg: fmt.Sprintf(format, args...)})
}
