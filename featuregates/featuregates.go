package featuregates

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"github.com/plegvet/plegvet/internal/astobj"
)

// The import paths of the feature-gate API, recognised through go/types.
const (
	APIPath     = "k8s.io/component-base/featuregate"
	VersionPath = "k8s.io/apimachinery/pkg/util/version"
)

// PreRelease is a gate's stage, named as Kubernetes' feature lists name it.
type PreRelease string

const (
	PreAlpha   PreRelease = "PreAlpha"
	Alpha      PreRelease = "Alpha"
	Beta       PreRelease = "Beta"
	GA         PreRelease = "GA"
	Deprecated PreRelease = "Deprecated"
)

// preReleaseByValue maps the API's constant values to stage names.
var preReleaseByValue = map[string]PreRelease{
	"PRE-ALPHA":  PreAlpha,
	"ALPHA":      Alpha,
	"BETA":       Beta,
	"":           GA,
	"DEPRECATED": Deprecated,
}

// Stability orders stages as component-base does for dependencies: a gate
// may not depend on a gate of lower stability, Deprecated is the lowest and
// PreAlpha counts as Alpha.
func (p PreRelease) Stability() int {
	switch p {
	case Deprecated:
		return 0
	case PreAlpha, Alpha:
		return 1
	case Beta:
		return 2
	case GA:
		return 3
	}
	return -1
}

// Format says which kind of map a gate was declared in.
type Format string

const (
	Unversioned Format = "unversioned" // map[Feature]FeatureSpec
	Versioned   Format = "versioned"   // map[Feature]VersionedSpecs
)

// Spec is one FeatureSpec.
type Spec struct {
	// Version is the release the spec applies from ("1.26"); empty in the
	// unversioned format.
	Version                 string
	Default                 bool
	LockToDefault           bool
	PreRelease              PreRelease
	MinCompatibilityVersion string
	Pos                     token.Pos // the spec's composite literal
	End                     token.Pos
	// VersionPos is the position of the Version field's value, NoPos if absent.
	VersionPos token.Pos
	// VersionLit is the string literal inside version.MustParse("1.26"),
	// and DefaultValue the Default field's value: what a fix rewrites.
	VersionLit   *ast.BasicLit
	DefaultValue ast.Expr
	// Unresolved says why a field could not be resolved to a constant;
	// such a field keeps its zero value.
	Unresolved string
}

// Gate is a feature gate and its spec history.
type Gate struct {
	Name   string       // the gate's value, as a user sets it
	Const  *types.Const // the key's constant; nil for a conversion of a literal
	Decl   token.Pos    // the constant's declaration; NoPos when unknown
	Entry  token.Pos    // the key in the feature map
	Value  ast.Expr     // the value the key maps to
	Map    string       // the variable or function holding the map
	Format Format
	Specs  []Spec
	// Dependencies are the gates this gate depends on, from dependency maps.
	Dependencies []Dependency
	// Unresolved says why the gate's name or specs are not fully known.
	Unresolved string
}

// Dependency is one entry of a dependency list.
type Dependency struct {
	Name string
	Pos  token.Pos
	// Pkg is the import path of the package declaring the constant that
	// names the gate, when known.
	Pkg string
}

// At returns the spec in force at a Kubernetes version ("1.36" or
// "v1.36.1"): the last spec whose version is not later than it. An
// unversioned spec is in force at every version. A spec with a
// MinCompatibilityVersion applies only once the default minimum
// compatibility version (one minor before) has reached it.
func (g *Gate) At(version string) (Spec, bool) {
	want, ok := ParseVersion(version)
	if !ok {
		return Spec{}, false
	}
	want = want.MajorMinor()
	minCompat := want
	if minCompat.Minor > 0 {
		minCompat.Minor--
	}
	var found Spec
	ok = false
	for _, s := range g.Specs {
		if s.Version == "" {
			found, ok = s, true
			continue
		}
		v, vok := ParseVersion(s.Version)
		if !vok || want.Less(v.MajorMinor()) {
			continue
		}
		if mc, mok := ParseVersion(s.MinCompatibilityVersion); mok && minCompat.Less(mc.MajorMinor()) {
			continue
		}
		found, ok = s, true
	}
	return found, ok
}

// Newest returns the gate's last spec.
func (g *Gate) Newest() (Spec, bool) {
	if len(g.Specs) == 0 {
		return Spec{}, false
	}
	return g.Specs[len(g.Specs)-1], true
}

// Since is the version of the gate's first spec, or "" when it has none.
func (g *Gate) Since() string {
	if len(g.Specs) == 0 {
		return ""
	}
	return g.Specs[0].Version
}

// Map is a feature map found in the package.
type Map struct {
	Name    string // the variable or function holding it
	Kind    string // "unversioned", "versioned" or "dependencies"
	Pos     token.Pos
	Entries int
}

// Problem is something in a feature map that could not be read.
type Problem struct {
	Pos token.Pos
	Msg string
}

// Result is everything Extract found in one package.
type Result struct {
	// Gates are the gates by name, sorted; a gate declared in two maps
	// appears once, with its first entry (see Entries for all of them).
	Gates []*Gate
	// Entries are all map entries in source order, one Gate each.
	Entries []*Gate
	Maps    []Map
	// DependencyEntries are the keys of dependency maps, in source order.
	DependencyEntries []DependencyEntry
	Problems          []Problem
}

// DependencyEntry is one key of a dependency map.
type DependencyEntry struct {
	Name  string
	Entry token.Pos
	Pkg   string // as in Dependency
	Deps  []Dependency
}

// Gate returns the gate with the given name, or nil.
func (r *Result) Gate(name string) *Gate {
	i := sort.Search(len(r.Gates), func(i int) bool { return r.Gates[i].Name >= name })
	if i < len(r.Gates) && r.Gates[i].Name == name {
		return r.Gates[i]
	}
	return nil
}

// IsAPI reports whether pkg is the feature-gate API package (or a
// vendored copy of it).
func IsAPI(pkg *types.Package) bool {
	return pkg != nil && pathIs(pkg.Path(), APIPath)
}

func pathIs(p, want string) bool {
	return p == want || strings.HasSuffix(p, "/vendor/"+want)
}

// isAPIType reports whether t is the named type name of the feature-gate API.
func isAPIType(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && IsAPI(n.Obj().Pkg())
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

// Extract finds every feature map in files and reads its gates.
func Extract(files []*ast.File, info *types.Info) *Result {
	x := &extractor{info: info, res: &Result{}, varInit: map[*types.Var]ast.Expr{}}
	for _, f := range files {
		x.indexVars(f)
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
	deps    map[string][]Dependency
}

// indexVars remembers the initialiser of each package-level variable, so
// that a spec held in a variable can be followed.
func (x *extractor) indexVars(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
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
			name := vs.Names[0].Name
			for _, v := range vs.Values {
				x.walk(name, v)
			}
		}
	}
}

func (x *extractor) walk(container string, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		kind := mapKind(x.info.TypeOf(lit))
		if kind == "" {
			return true
		}
		x.res.Maps = append(x.res.Maps, Map{Name: container, Kind: kind, Pos: lit.Pos(), Entries: len(lit.Elts)})
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				x.problem(e.Pos(), "feature map entry is not a key: value pair")
				continue
			}
			if kind == "dependencies" {
				x.dependency(kv)
			} else {
				x.entry(container, Format(kind), kv)
			}
		}
		return false
	})
}

func (x *extractor) problem(pos token.Pos, format string, args ...any) {
	x.res.Problems = append(x.res.Problems, Problem{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// key resolves a map key to the gate's name and constant.
func (x *extractor) key(key ast.Expr) (name string, c *types.Const, unresolved string) {
	key = ast.Unparen(key)
	// featuregate.Feature(X): a conversion names the gate X.
	if call, ok := key.(*ast.CallExpr); ok && len(call.Args) == 1 {
		if tv, ok := x.info.Types[call.Fun]; ok && tv.IsType() {
			if tv.Type != nil && isAPIType(tv.Type, "Feature") {
				if n, c, why := x.key(call.Args[0]); n != "" {
					return n, c, why
				}
			}
		}
	}
	if tv, ok := x.info.Types[key]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		name = constant.StringVal(tv.Value)
	}
	c = astobj.Const(x.info, key)
	if name != "" {
		return name, c, ""
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

func (x *extractor) entry(container string, format Format, kv *ast.KeyValueExpr) {
	name, c, why := x.key(kv.Key)
	if name == "" {
		x.problem(kv.Key.Pos(), "%s", why)
		return
	}
	g := &Gate{Name: name, Const: c, Entry: kv.Key.Pos(), Value: kv.Value, Map: container, Format: format, Unresolved: why}
	if c != nil {
		g.Decl = c.Pos()
	}
	value := x.follow(kv.Value)
	switch format {
	case Unversioned:
		lit, ok := value.(*ast.CompositeLit)
		if !ok {
			g.addUnresolved("spec is %s, not a composite literal", describe(kv.Value))
			break
		}
		g.Specs = append(g.Specs, x.spec(lit))
	case Versioned:
		lit, ok := value.(*ast.CompositeLit)
		if !ok {
			g.addUnresolved("spec history is %s, not a composite literal", describe(kv.Value))
			break
		}
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

func (g *Gate) addUnresolved(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.Unresolved == "" {
		g.Unresolved = msg
	} else if !strings.Contains(g.Unresolved, msg) {
		g.Unresolved += "; " + msg
	}
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
			b, ok := x.constBool(kv.Value)
			if !ok {
				whys = append(whys, fmt.Sprintf("%s is %s, not a constant", field.Name, types.ExprString(kv.Value)))
			} else if field.Name == "Default" {
				s.Default, s.DefaultValue = b, kv.Value
			} else {
				s.LockToDefault = b
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
				s.Version, s.VersionPos = v, kv.Value.Pos()
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

func (x *extractor) constBool(e ast.Expr) (bool, bool) {
	tv, ok := x.info.Types[ast.Unparen(e)]
	if ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		return constant.BoolVal(tv.Value), true
	}
	return false, false
}

func (x *extractor) preRelease(e ast.Expr) (PreRelease, string) {
	tv, ok := x.info.Types[ast.Unparen(e)]
	if ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		if p, ok := preReleaseByValue[constant.StringVal(tv.Value)]; ok {
			return p, ""
		}
		return "", fmt.Sprintf("PreRelease %s has the unknown value %s", types.ExprString(e), tv.Value)
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

func (x *extractor) dependency(kv *ast.KeyValueExpr) {
	name, _, why := x.key(kv.Key)
	if name == "" {
		x.problem(kv.Key.Pos(), "%s", why)
		return
	}
	de := DependencyEntry{Name: name, Entry: kv.Key.Pos(), Pkg: x.keyPkg(kv.Key)}
	lit, ok := x.follow(kv.Value).(*ast.CompositeLit)
	if !ok {
		x.problem(kv.Value.Pos(), "dependencies of %s are %s, not a composite literal", name, describe(kv.Value))
		return
	}
	for _, e := range lit.Elts {
		dep, _, why := x.key(e)
		if dep == "" {
			x.problem(e.Pos(), "dependency of %s: %s", name, why)
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
			// An empty spec list (a gate moved to the other map) gives way.
			if len(g.Specs) == 0 && len(e.Specs) > 0 {
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

// Version is a Kubernetes major.minor[.patch] version.
type Version struct {
	Major, Minor uint
	Patch        *uint
}

// ParseVersion reads "1.26", "v1.26.3" or "1.26.0-beta.0" (the
// pre-release part is ignored: a gate's spec applies by minor version).
func ParseVersion(s string) (Version, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, false
	}
	var n [3]uint
	for i, p := range parts {
		if p == "" || (len(p) > 1 && p[0] == '0') {
			return Version{}, false
		}
		u, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return Version{}, false
		}
		n[i] = uint(u)
	}
	v := Version{Major: n[0], Minor: n[1]}
	if len(parts) == 3 {
		p := n[2]
		v.Patch = &p
	}
	return v, true
}

func (v Version) String() string {
	if v.Patch != nil {
		return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, *v.Patch)
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// MajorMinor drops the patch.
func (v Version) MajorMinor() Version { return Version{Major: v.Major, Minor: v.Minor} }

// Less compares major.minor.patch; a missing patch counts as 0.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.patch() < w.patch()
}

func (v Version) patch() uint {
	if v.Patch == nil {
		return 0
	}
	return *v.Patch
}
