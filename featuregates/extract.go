package featuregates

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/internal/astobj"
)

// The import paths of the feature-gate API, recognised through go/types.
// ClientGoPath is client-go's own copy of the API (its own Feature and
// VersionedSpecs types, no import of component-base): kube binaries
// register its gates with component-base's gate through an adapter, so
// they are gates of every kube binary all the same.
const (
	APIPath      = "k8s.io/component-base/featuregate"
	ClientGoPath = "k8s.io/client-go/features"
	VersionPath  = "k8s.io/apimachinery/pkg/util/version"
)

// IsAPI reports whether pkg is the feature-gate API package (or a
// vendored copy of it).
func IsAPI(pkg *types.Package) bool {
	return pkg != nil && IsAPIPath(pkg.Path())
}

// IsAPIPath reports whether an import path is the feature-gate API's (or
// a vendored copy's): the one test of "this package imports the API".
func IsAPIPath(importPath string) bool { return pathIs(importPath, APIPath) }

// IsClientGo reports whether pkg is client-go's copy of the API, which
// declares client-go's gates.
func IsClientGo(pkg *types.Package) bool {
	return pkg != nil && pathIs(pkg.Path(), ClientGoPath)
}

// mapAPI is the import path of the package declaring the key type of t,
// a feature map type.
func mapAPI(t types.Type) string {
	n := types.Unalias(t.Underlying().(*types.Map).Key()).(*types.Named)
	return n.Obj().Pkg().Path()
}

func pathIs(p, want string) bool {
	return p == want || strings.HasSuffix(p, "/vendor/"+want)
}

// isAPIType reports whether t is the named type name of the feature-gate
// API: component-base's or client-go's copy.
func isAPIType(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && (IsAPI(n.Obj().Pkg()) || IsClientGo(n.Obj().Pkg()))
}

// mapKind classifies a feature map type.
func mapKind(t types.Type) string {
	if t == nil {
		return ""
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok || !isAPIType(m.Key(), "Feature") {
		return ""
	}
	switch {
	case isAPIType(m.Elem(), "FeatureSpec"):
		return string(Unversioned)
	case isAPIType(m.Elem(), "VersionedSpecs"):
		return string(Versioned)
	}
	if s, ok := m.Elem().Underlying().(*types.Slice); ok {
		switch {
		case isAPIType(s.Elem(), "FeatureSpec"):
			return string(Versioned)
		case isAPIType(s.Elem(), "Feature"):
			return "dependencies"
		}
	}
	return ""
}

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
	g := &Gate{Name: name, Const: c, Entry: key.Pos(), Value: value, Map: x.res.Maps[i].Name, API: x.res.Maps[i].API, MapVar: v, Assigned: assigned, Format: Format(kind), Unresolved: why}
	if !assigned {
		g.Site = x.res.Maps[i].Site
	}
	if c != nil {
		g.Decl = c.Pos()
	}
	x.entry(g)
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
				return sel.Sel.Name, nil, fmt.Sprintf("key %s.%s is a constant of %s, which was not loaded: its name stands in for its value", pkgID.Name, sel.Sel.Name, pn.Imported().Path())
			}
		}
	}
	return "", nil, fmt.Sprintf("key %s is not a constant string", types.ExprString(key))
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

// spec reads one FeatureSpec literal.
func (x *extractor) spec(lit *ast.CompositeLit) Spec {
	s := Spec{Pos: lit.Pos(), End: lit.End(), PreRelease: GA}
	var whys []string
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			whys = append(whys, "spec fields are not named")
			break
		}
		field, _ := kv.Key.(*ast.Ident)
		if field == nil {
			continue
		}
		switch field.Name {
		case "Default", "LockToDefault":
			b := x.constValue(kv.Value, constant.Bool)
			if b == nil {
				whys = append(whys, fmt.Sprintf("%s is %s, not a constant", field.Name, types.ExprString(kv.Value)))
			} else if field.Name == "Default" {
				s.Default, s.DefaultValue = constant.BoolVal(b), kv.Value
			} else {
				s.LockToDefault = constant.BoolVal(b)
			}
		case "PreRelease":
			p, why := x.preRelease(kv.Value)
			if why != "" {
				whys = append(whys, why)
			}
			s.PreRelease = p // "" when unresolved: unknown, not GA
		case "Version", "MinCompatibilityVersion":
			v, why := x.version(kv.Value)
			if why != "" {
				whys = append(whys, field.Name+" "+why)
			} else if field.Name == "Version" {
				s.Version = v
				if call, ok := ast.Unparen(kv.Value).(*ast.CallExpr); ok && len(call.Args) == 1 {
					s.VersionLit, _ = ast.Unparen(call.Args[0]).(*ast.BasicLit)
				}
			} else {
				s.MinCompatibilityVersion = v
			}
		}
	}
	s.Unresolved = strings.Join(whys, "; ")
	return s
}

func (x *extractor) preRelease(e ast.Expr) (PreRelease, string) {
	if v := x.constValue(e, constant.String); v != nil {
		for p, value := range preReleaseValue {
			if value == constant.StringVal(v) {
				return p, ""
			}
		}
		return "", fmt.Sprintf("PreRelease %s has the unknown value %s", types.ExprString(e), v)
	}
	return "", fmt.Sprintf("PreRelease %s is not a constant", types.ExprString(e))
}

// version reads version.MustParse("1.26") and version.MajorMinor(1, 26).
func (x *extractor) version(e ast.Expr) (string, string) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return "", fmt.Sprintf("is %s, not a call of %s", types.ExprString(e), VersionPath)
	}
	fn := astobj.Func(x.info, call)
	if fn == nil || fn.Pkg() == nil || !pathIs(fn.Pkg().Path(), VersionPath) {
		return "", fmt.Sprintf("is %s, not a call of %s", types.ExprString(call), VersionPath)
	}
	args := make([]constant.Value, len(call.Args))
	for i, a := range call.Args {
		tv, ok := x.info.Types[ast.Unparen(a)]
		if !ok || tv.Value == nil {
			return "", fmt.Sprintf("argument %s of %s is not a constant", types.ExprString(a), fn.Name())
		}
		args[i] = tv.Value
	}
	switch {
	case strings.HasPrefix(fn.Name(), "MustParse") && len(args) == 1 && args[0].Kind() == constant.String:
		raw := constant.StringVal(args[0])
		v, ok := ParseVersion(raw)
		if !ok {
			return "", fmt.Sprintf("%q is not a version", raw)
		}
		return v.String(), ""
	case fn.Name() == "MajorMinor" && len(args) == 2:
		maj, ok1 := constant.Uint64Val(constant.ToInt(args[0]))
		min, ok2 := constant.Uint64Val(constant.ToInt(args[1]))
		if !ok1 || !ok2 {
			return "", "has non-integer arguments"
		}
		return Version{Major: uint(maj), Minor: uint(min)}.String(), ""
	}
	return "", fmt.Sprintf("is %s, which plegvet does not evaluate", types.ExprString(call))
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
			g.Dependencies = append(g.Dependencies, de.Deps...)
		}
	}
	sort.Slice(x.res.Gates, func(i, j int) bool { return x.res.Gates[i].Name < x.res.Gates[j].Name })
}
