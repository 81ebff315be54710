// The extractor: every feature map of a package found by walking its
// declarations, each map's entries read where they are written, and the
// entries merged into gates.

package featuregates

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// Extract finds every feature map in files and reads its gates: the
// entries of map literals, and index assignments into feature map
// variables in any function (init included).
func Extract(files []*ast.File, info *types.Info) *Result {
	x := &extractor{
		info: info, res: &Result{}, varInit: map[*types.Var]ast.Expr{}, funcs: map[*types.Func]bool{},
		owner: map[*ast.CompositeLit]*types.Var{}, mapOf: map[*types.Var]int{}, rangeOf: map[*types.Var]ast.Expr{},
		sites: map[*ast.CompositeLit]Site{},
	}
	for _, f := range files {
		x.index(f)
	}
	for _, f := range files {
		for _, d := range f.Decls {
			x.decl(d)
		}
	}
	x.finish()
	return x.res
}

type extractor struct {
	info    *types.Info
	res     *Result
	varInit map[*types.Var]ast.Expr
	funcs   map[*types.Func]bool // functions declared here with a body: their returns are read where they are
	owner   map[*ast.CompositeLit]*types.Var
	mapOf   map[*types.Var]int      // a feature map variable's entry in res.Maps
	rangeOf map[*types.Var]ast.Expr // a range loop's key variable: what the loop ranges over
	sites   map[*ast.CompositeLit]Site
}

// index remembers the initialiser of each package-level variable, so
// that a spec held in a variable can be followed, and the functions whose
// bodies are here.
func (x *extractor) index(f *ast.File) {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			if fn, ok := x.info.Defs[fd.Name].(*types.Func); ok {
				x.funcs[fn] = true
			}
			for _, st := range fd.Body.List {
				if ret, ok := st.(*ast.ReturnStmt); ok {
					for _, r := range ret.Results {
						if lit, ok := r.(*ast.CompositeLit); ok {
							x.sites[lit] = SiteReturn
						}
					}
				}
			}
		}
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.CompositeLit); ok {
					x.sites[lit] = SiteVar
				}
			}
			if len(vs.Values) != len(vs.Names) {
				continue
			}
			for i, n := range vs.Names {
				if v, ok := x.info.Defs[n].(*types.Var); ok {
					x.varInit[v] = vs.Values[i]
				}
			}
		}
	}
}

func (x *extractor) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Body != nil {
			x.walk(d.Name.Name, d.Body)
		}
	case *ast.GenDecl:
		if d.Tok != token.VAR {
			return
		}
		for _, s := range d.Specs {
			vs := s.(*ast.ValueSpec)
			x.valueSpec("", vs)
			for i, v := range vs.Values {
				name := vs.Names[0].Name
				if len(vs.Values) == len(vs.Names) {
					name = vs.Names[i].Name
				}
				x.walk(name, v)
			}
		}
	}
}

// walk reads the feature maps under n; container names the declaration
// n belongs to.
func (x *extractor) walk(container string, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec: // a local var declaration
			x.valueSpec(container, n)
		case *ast.AssignStmt:
			x.assign(container, n)
		case *ast.RangeStmt:
			if id, ok := n.Key.(*ast.Ident); ok {
				if v, ok := x.info.ObjectOf(id).(*types.Var); ok {
					x.rangeOf[v] = n.X
				}
			}
		case *ast.CallExpr:
			x.mapsCopy(container, n)
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if kind := mapKind(x.info.TypeOf(r)); kind != "" {
					if why := x.source(r); why != "" {
						x.unreadableMap(nil, container, kind, r, "the map is "+why)
					}
				}
			}
		case *ast.CompositeLit:
			return x.literal(container, n)
		}
		return true
	})
}

// literal reads a feature map literal's entries.
func (x *extractor) literal(container string, lit *ast.CompositeLit) bool {
	kind := mapKind(x.info.TypeOf(lit))
	if kind == "" {
		return true
	}
	v := x.owner[lit]
	x.res.Maps = append(x.res.Maps, Map{Name: x.mapName(v, container), Kind: kind, API: mapAPI(x.info.TypeOf(lit)), Pos: lit.Pos(), Entries: len(lit.Elts), Site: x.sites[lit]})
	i := len(x.res.Maps) - 1
	if v != nil {
		x.mapOf[v] = i
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			x.set(i, v, kind, kv.Key, kv.Value, false)
		} else {
			x.unreadableEntry(i, e, "it is not a key: value pair")
		}
	}
	return false
}

// mapName is what Map and Gate.Map call a map: a package-level
// variable's name, else the declaration it is in.
func (x *extractor) mapName(v *types.Var, container string) string {
	if v != nil && (v.Kind() == types.PackageVar || container == "") {
		return v.Name()
	}
	return container
}

// feature reports the feature map variable e names (by its object, of a
// feature map type) and the map's kind.
func (x *extractor) feature(e ast.Expr) (*types.Var, string) {
	v, ok := astobj.Of(x.info, e).(*types.Var)
	if id, isID := ast.Unparen(e).(*ast.Ident); !ok && isID {
		v, ok = x.info.Defs[id].(*types.Var)
	}
	if !ok || mapKind(v.Type()) == "" {
		return nil, ""
	}
	return v, mapKind(v.Type())
}

// mapIndex returns v's entry in res.Maps, adding one at v's declaration
// for a map no literal of which was seen (filled by assignments only).
func (x *extractor) mapIndex(v *types.Var, kind, container string) int {
	if i, ok := x.mapOf[v]; ok {
		return i
	}
	x.res.Maps = append(x.res.Maps, Map{Name: x.mapName(v, container), Kind: kind, API: mapAPI(v.Type()), Pos: v.Pos()})
	x.mapOf[v] = len(x.res.Maps) - 1
	return x.mapOf[v]
}

// valueOf is the value given to the i-th of n names: its own, or the one
// call's (var a, b = f()); nil when there is none.
func valueOf(values []ast.Expr, n, i int) ast.Expr {
	switch len(values) {
	case n:
		return values[i]
	case 1:
		return values[0]
	}
	return nil
}

func (x *extractor) valueSpec(container string, vs *ast.ValueSpec) {
	for i, n := range vs.Names {
		rhs := valueOf(vs.Values, len(vs.Names), i)
		if v, kind := x.feature(n); v != nil && rhs != nil {
			x.define(container, v, kind, rhs)
		}
	}
}

// assign reads m[K] = V into a feature map variable, and m = V.
func (x *extractor) assign(container string, as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN && as.Tok != token.DEFINE {
		return
	}
	for i, lhs := range as.Lhs {
		rhs := valueOf(as.Rhs, len(as.Lhs), i)
		if rhs == nil {
			continue
		}
		if ix, ok := ast.Unparen(lhs).(*ast.IndexExpr); ok {
			if v, kind := x.feature(ix.X); v != nil {
				x.set(x.mapIndex(v, kind, container), v, kind, ix.Index, rhs, true)
			}
			continue
		}
		if v, kind := x.feature(lhs); v != nil {
			x.define(container, v, kind, rhs)
		}
	}
}

// finish merges entries into gates by name and attaches dependencies.
func (x *extractor) finish() {
	byName := map[string]*Gate{}
	for _, e := range x.res.Entries {
		if g, ok := byName[e.Name]; ok {
			switch {
			case e.Overwrites(g):
				*g = *e
			case g.Overwrites(e):
				// Kept, wherever the literal is written.
			case len(g.Specs) == 0 && len(e.Specs) > 0:
				// An empty spec list (a gate moved to the other map) gives way.
				*g = *e
			}
			continue
		}
		g := *e
		byName[e.Name] = &g
		x.res.Gates = append(x.res.Gates, &g)
	}
	for _, de := range x.res.DependencyEntries {
		if g, ok := byName[de.Name]; ok {
			g.DependsOn = append(g.DependsOn, de.Deps...)
		}
	}
	sort.Slice(x.res.Gates, func(i, j int) bool { return x.res.Gates[i].Name < x.res.Gates[j].Name })
}
