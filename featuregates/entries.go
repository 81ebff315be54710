// One entry of a feature map: its key resolved to a gate's name and
// constant, its value followed to the gate's specs or dependencies.

package featuregates

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// set reads one entry of map i (of variable v, if any): a literal's
// key: value, or an index assignment.
func (x *extractor) set(i int, v *types.Var, kind string, key, value ast.Expr, assigned bool) {
	if assigned {
		x.res.Maps[i].Entries++
	}
	name, c, why := x.key(key)
	if name == "" {
		if assigned && x.forwarded(key) {
			return
		}
		x.unreadableEntry(i, key, why)
		return
	}
	if kind == "dependencies" {
		x.dependency(i, name, key, value)
		return
	}
	g := &Gate{Name: name, KeyConst: c, EntryPos: key.Pos(), Value: value, Map: x.res.Maps[i].Name, API: x.res.Maps[i].API, MapVar: v, Assigned: assigned, Format: Format(kind), Unresolved: why}
	if !assigned {
		g.Site = x.res.Maps[i].Site
	}
	if c != nil {
		g.DeclPos = c.Pos()
	}
	x.entry(g)
}

// key resolves a map key to the gate's name and constant.
func (x *extractor) key(key ast.Expr) (name string, c *types.Const, unresolved string) {
	key = ast.Unparen(key)
	// featuregate.Feature(X): a conversion names the gate X.
	if arg, t := x.conversion(key); arg != nil && isAPIType(t, "Feature") {
		if n, c, why := x.key(arg); n != "" {
			return n, c, why
		}
	}
	if v := x.constValue(key, constant.String); v != nil && constant.StringVal(v) != "" {
		return constant.StringVal(v), astobj.Const(x.info, key), ""
	}
	// Partially typed source: the key is a constant of a package that was
	// not loaded. Its identifier is all there is; say so.
	if sel, ok := key.(*ast.SelectorExpr); ok {
		if pkgID, ok := sel.X.(*ast.Ident); ok {
			if pn, ok := x.info.Uses[pkgID].(*types.PkgName); ok {
				// A package read (not a stub, which declares nothing)
				// that lacks the name: the gate is declared nowhere.
				if imp := pn.Imported(); imp.Scope().Len() > 0 && imp.Scope().Lookup(sel.Sel.Name) == nil {
					return "", nil, fmt.Sprintf("key %s.%s is an undefined name: %s declares no %s", pkgID.Name, sel.Sel.Name, imp.Path(), sel.Sel.Name)
				}
				return sel.Sel.Name, nil, fmt.Sprintf("key %s.%s is a constant of %s, which was not loaded: its name stands in for its value", pkgID.Name, sel.Sel.Name, pn.Imported().Path())
			}
		}
	}
	return "", nil, fmt.Sprintf("key %s is not a constant string", types.ExprString(key))
}

// conversion returns X and T of a conversion T(X); a nil X for any
// other expression.
func (x *extractor) conversion(e ast.Expr) (ast.Expr, types.Type) {
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if tv, ok := x.info.Types[call.Fun]; ok && tv.IsType() {
			return call.Args[0], tv.Type
		}
	}
	return nil, nil
}

// constValue is e's constant value when it is of kind k, else nil.
func (x *extractor) constValue(e ast.Expr, k constant.Kind) constant.Value {
	if tv := x.info.Types[ast.Unparen(e)]; tv.Value != nil && tv.Value.Kind() == k {
		return tv.Value
	}
	return nil
}

// keyPkg is the import path of the package declaring a key's constant.
func (x *extractor) keyPkg(key ast.Expr) string {
	key = ast.Unparen(key)
	if call, ok := key.(*ast.CallExpr); ok && len(call.Args) == 1 {
		key = ast.Unparen(call.Args[0])
	}
	switch k := key.(type) {
	case *ast.Ident:
		if obj := x.info.Uses[k]; obj != nil && obj.Pkg() != nil {
			return obj.Pkg().Path()
		}
	case *ast.SelectorExpr:
		if id, ok := k.X.(*ast.Ident); ok {
			if pn, ok := x.info.Uses[id].(*types.PkgName); ok {
				return pn.Imported().Path()
			}
		}
	}
	return ""
}

// entry reads a gate's specs from its Value.
func (x *extractor) entry(g *Gate) {
	what := "spec history"
	if g.Format == Unversioned {
		what = "spec"
	}
	lit, ok := x.follow(g.Value).(*ast.CompositeLit)
	switch {
	case !ok:
		g.addUnresolved("%s is %s, not a composite literal", what, describe(g.Value))
	case g.Format == Unversioned:
		g.Specs = append(g.Specs, x.spec(lit))
	case len(lit.Elts) == 0:
		// Not a gate without history: no spec says what it is.
		g.addUnresolved("the spec list is empty")
	default:
		for _, e := range lit.Elts {
			el, ok := x.follow(e).(*ast.CompositeLit)
			if !ok {
				g.addUnresolved("spec is %s, not a composite literal", describe(e))
				continue
			}
			g.Specs = append(g.Specs, x.spec(el))
		}
	}
	for _, s := range g.Specs {
		if s.Unresolved != "" {
			g.addUnresolved("%s", s.Unresolved)
		}
	}
	x.res.Entries = append(x.res.Entries, g)
}

// dependency reads the dependency list of gate name in map i.
func (x *extractor) dependency(i int, name string, key, value ast.Expr) {
	de := DependencyEntry{Name: name, Entry: key.Pos(), Pkg: x.keyPkg(key)}
	lit, ok := x.follow(value).(*ast.CompositeLit)
	if !ok {
		x.unreadableEntry(i, value, fmt.Sprintf("dependencies of %s are %s, not a composite literal", name, describe(value)))
		return
	}
	for _, e := range lit.Elts {
		dep, _, why := x.key(e)
		if dep == "" {
			x.unreadableEntry(i, e, fmt.Sprintf("dependency of %s: %s", name, why))
			continue
		}
		de.Deps = append(de.Deps, Dependency{Name: dep, Pos: e.Pos(), Pkg: x.keyPkg(e)})
	}
	x.res.DependencyEntries = append(x.res.DependencyEntries, de)
}

// follow replaces a reference to a package-level variable (or its
// address) by the variable's initialiser, so that a spec kept in a
// variable is read like one written in place.
func (x *extractor) follow(e ast.Expr) ast.Expr {
	for range 8 { // a chain longer than this is not a spec table
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
			continue
		}
		v, ok := astobj.Of(x.info, e).(*types.Var)
		if !ok {
			return e
		}
		init, ok := x.varInit[v]
		if !ok {
			return e
		}
		e = init
	}
	return e
}

func describe(e ast.Expr) string {
	switch e := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		return "built by the call " + types.ExprString(e.Fun) + "(...)"
	case *ast.Ident, *ast.SelectorExpr:
		return "the variable " + types.ExprString(e) + " with no literal value in this package"
	}
	return types.ExprString(e)
}
