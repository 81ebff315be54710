package plegperiods

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// UnfollowedTest is a condition on the path to a construction that may
// decide it but could not be followed to feature-gate tests: a field set
// from several values, a parameter, a call into another package.
type UnfollowedTest struct {
	// Test is If, and Evented the evented PLEG construction it decides,
	// both resolved for Relist.GateUnresolved.
	Test       srcpos.Pos  `json:"test"`
	Expr       string      `json:"expr"`  // Cond printed: kl.streamEvents
	Holds      bool        `json:"holds"` // the truth of Cond the construction needs
	Evented    *srcpos.Pos `json:"evented"`
	Unresolved string      `json:"unresolved"` // why it could not be followed
	If         token.Pos   `json:"-"`          // the if statement (or early return)
	Cond       ast.Expr    `json:"-"`          // the condition, or the part of it, as written at If
	// plausible: shaped like a gate test (a name, a field, a bool call,
	// their negation), not a comparison.
	plausible bool
}

// maxDepth bounds how many variables, fields and helper functions a test
// is followed through.
const maxDepth = 8

// test is a condition read through variables, helpers and fields: a gate
// test, !, && or ||, a constant, or a leaf that could not be followed.
type test struct {
	op        token.Token // token.NOT, LAND, LOR; ILLEGAL for a leaf
	x, y      *test
	gate      *Condition // a gate test leaf (Gate, Const, Test)
	konst     string     // a constant leaf: its value
	why       string     // an unfollowed leaf: why
	plausible bool       // an unfollowed leaf shaped like a gate test
	expr      ast.Expr   // as written where it was read (nil: a zero value)
	via       ast.Expr   // the expression at the if it was reached through
}

func (t *test) setVia(e ast.Expr) {
	if t == nil {
		return
	}
	if t.via == nil {
		t.via = e
	}
	t.x.setVia(e)
	t.y.setVia(e)
}

// unfollowed returns why some leaf could not be followed, or "".
func (t *test) unfollowed() string {
	if t == nil {
		return ""
	}
	return cmp.Or(t.why, t.x.unfollowed(), t.y.unfollowed())
}

// key identifies what a fully followed test tests, to compare assignments.
func (t *test) key() string {
	switch {
	case t.gate != nil:
		return t.gate.Gate
	case t.op == token.NOT:
		return "!" + t.x.key()
	case t.op == token.LAND || t.op == token.LOR:
		return "(" + t.x.key() + " " + t.op.String() + " " + t.y.key() + ")"
	}
	return t.konst
}

// mayGate reports whether a test could be a gate test in disguise.
func (t *test) mayGate() bool {
	switch {
	case t == nil:
		return false
	case t.gate != nil:
		return true
	case t.op == token.ILLEGAL:
		return t.why != "" && t.plausible
	}
	return t.x.mayGate() || t.y.mayGate()
}

// gateReader reads the conditions of one package's code.
type gateReader struct {
	info  *types.Info
	files []*ast.File
	funcs map[*types.Func]*ast.FuncDecl
	// params are the parameters (and named results) of the package's
	// functions, with the function's name.
	params map[*types.Var]string
	sets   map[*types.Var]*assignments
	seen   map[types.Object]bool // objects being followed (cycles)
}

// assignments are every value a variable or field is given in the package;
// why is set when one cannot be read (a tuple, its address taken).
type assignments struct {
	values []ast.Expr // nil entries: the zero value of a declaration
	why    string
}

func newGateReader(files []*ast.File, info *types.Info) *gateReader {
	return &gateReader{info: info, files: files, seen: map[types.Object]bool{}}
}

// index reads, once, the package's functions, parameters and assignments.
func (g *gateReader) index() {
	if g.funcs != nil {
		return
	}
	g.funcs = map[*types.Func]*ast.FuncDecl{}
	g.params = map[*types.Var]string{}
	g.sets = map[*types.Var]*assignments{}
	for _, f := range g.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if fn, ok := g.info.Defs[n.Name].(*types.Func); ok && n.Body != nil {
					g.funcs[fn] = n
				}
				g.addParams(n.Name.Name, n.Recv, n.Type.Params, n.Type.Results)
			case *ast.FuncLit:
				g.addParams("a function literal", n.Type.Params, n.Type.Results)
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					switch v := g.assigned(l); {
					case v == nil:
					case n.Tok != token.ASSIGN && n.Tok != token.DEFINE:
						g.unreadable(v, fmt.Sprintf("%s is updated by %s", v.Name(), n.Tok))
					default:
						g.assign(v, i, len(n.Lhs), n.Rhs)
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if v, ok := g.info.Defs[id].(*types.Var); ok {
						g.assign(v, i, len(n.Names), n.Values)
					}
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if v := g.assigned(e); v != nil {
						g.unreadable(v, fmt.Sprintf("%s is set by a range loop", v.Name()))
					}
				}
			case *ast.UnaryExpr:
				if v := g.assigned(n.X); v != nil && n.Op == token.AND {
					g.unreadable(v, fmt.Sprintf("its address is taken (%s): it can be set anywhere", types.ExprString(n)))
				}
			case *ast.CompositeLit:
				g.compositeLit(n)
			}
			return true
		})
	}
}

func (g *gateReader) addParams(fn string, lists ...*ast.FieldList) {
	for _, l := range lists {
		if l == nil {
			continue
		}
		for _, field := range l.List {
			for _, id := range field.Names {
				if v, ok := g.info.Defs[id].(*types.Var); ok {
					g.params[v] = fn
				}
			}
		}
	}
}

func (g *gateReader) set(v *types.Var) *assignments {
	a := g.sets[v]
	if a == nil {
		a = &assignments{}
		g.sets[v] = a
	}
	return a
}

// add records a value v is given (nil: its zero value).
func (g *gateReader) add(v *types.Var, value ast.Expr) {
	g.set(v).values = append(g.set(v).values, value)
}

func (g *gateReader) unreadable(v *types.Var, why string) {
	if a := g.set(v); a.why == "" {
		a.why = why
	}
}

// assign records the value given to v, the i-th of n names set to values
// (none: a declaration's zero values).
func (g *gateReader) assign(v *types.Var, i, n int, values []ast.Expr) {
	switch len(values) {
	case n:
		g.add(v, values[i])
	case 0:
		g.add(v, nil)
	default:
		g.unreadable(v, fmt.Sprintf("%s is one of the results of %s", v.Name(), types.ExprString(values[0])))
	}
}

// assigned is the variable or field an assignment's left side sets.
func (g *gateReader) assigned(e ast.Expr) *types.Var {
	v, _ := defOrUse(g.info, e).(*types.Var)
	return v
}

// compositeLit records the fields a struct literal sets, keyed or not.
func (g *gateReader) compositeLit(lit *ast.CompositeLit) {
	t := g.info.TypeOf(lit)
	if t == nil {
		return
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i, el := range lit.Elts {
		kv, keyed := el.(*ast.KeyValueExpr)
		switch {
		case keyed:
			if v, ok := astobj.Of(g.info, kv.Key).(*types.Var); ok && v.IsField() {
				g.add(v, kv.Value)
			}
		case i < st.NumFields():
			g.add(st.Field(i), el)
		}
	}
}

// declaredHere reports whether obj is declared in the package's files,
// whose assignments the reader sees.
func (g *gateReader) declaredHere(obj types.Object) bool {
	return slices.ContainsFunc(g.files, func(f *ast.File) bool { return f.FileStart <= obj.Pos() && obj.Pos() < f.FileEnd })
}

func leaf(e ast.Expr, why string, plausible bool) *test {
	return &test{why: why, plausible: plausible, expr: e}
}

// site reads a condition written at an if: its !, && and || as written,
// each operand followed to what it tests.
func (g *gateReader) site(e ast.Expr) *test {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return &test{op: token.NOT, x: g.site(x.X), expr: e, via: e}
		}
	case *ast.BinaryExpr:
		if x.Op == token.LAND || x.Op == token.LOR {
			return &test{op: x.Op, x: g.site(x.X), y: g.site(x.Y), expr: e, via: e}
		}
	}
	t := g.follow(e, 0)
	t.setVia(e)
	return t
}

// follow reads what a boolean expression tests.
func (g *gateReader) follow(e ast.Expr, depth int) *test {
	if e == nil {
		return &test{konst: "false (a zero value)"}
	}
	e = ast.Unparen(e)
	if tv, ok := g.info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		return &test{konst: tv.Value.String(), expr: e}
	}
	switch x := e.(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return &test{op: token.NOT, x: g.follow(x.X, depth), expr: e}
		}
	case *ast.BinaryExpr:
		if x.Op == token.LAND || x.Op == token.LOR {
			return &test{op: x.Op, x: g.follow(x.X, depth), y: g.follow(x.Y, depth), expr: e}
		}
		return leaf(e, fmt.Sprintf("%s compares values: it is not a feature-gate test", types.ExprString(e)), false)
	case *ast.CallExpr:
		if name, k, ok := gateArg(g.info, x); ok {
			return &test{gate: &Condition{Gate: name, Const: k, Test: x}, expr: e}
		}
		return g.call(x, depth)
	case *ast.Ident:
		if v, ok := g.info.Uses[x].(*types.Var); ok {
			return g.variable(x, v, depth)
		}
		return leaf(e, fmt.Sprintf("%s is not a variable plegvet can follow", x.Name), true)
	case *ast.SelectorExpr:
		if v, ok := g.info.Uses[x.Sel].(*types.Var); ok {
			return g.variable(x, v, depth)
		}
		return leaf(e, fmt.Sprintf("%s is not a variable or field plegvet can follow", types.ExprString(e)), true)
	}
	return leaf(e, fmt.Sprintf("%s is not a feature-gate test", types.ExprString(e)), false)
}

// call follows a call of a function (or method) of the package whose body
// is a single return of a test.
func (g *gateReader) call(call *ast.CallExpr, depth int) *test {
	what := types.ExprString(call)
	plausible := isBool(g.info.TypeOf(call))
	fn := astobj.Func(g.info, call)
	if fn == nil {
		return leaf(call, fmt.Sprintf("%s calls a function value, not a declared function", what), plausible)
	}
	fn = fn.Origin()
	if recv := fn.Signature().Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return leaf(call, fmt.Sprintf("%s calls an interface method: which body runs is decided at run time", what), plausible)
	}
	g.index()
	decl := g.funcs[fn]
	if decl == nil {
		return leaf(call, fmt.Sprintf("%s calls %s of %s, whose body plegvet does not read here", what, fn.Name(), packageOf(fn)), plausible)
	}
	ret := singleReturn(decl)
	if ret == nil {
		return leaf(call, fmt.Sprintf("%s calls %s, whose body is not a single return of a test", what, fn.Name()), plausible)
	}
	if depth >= maxDepth || g.seen[fn] {
		return leaf(call, fmt.Sprintf("%s calls %s, which returns %s: too deep or recursive to follow", what, fn.Name(), types.ExprString(ret)), plausible)
	}
	g.seen[fn] = true
	t := g.follow(ret, depth+1)
	delete(g.seen, fn)
	if w := t.unfollowed(); w != "" {
		return leaf(call, fmt.Sprintf("%s returns %s, and %s", fn.Name(), types.ExprString(ret), w), plausible)
	}
	return t
}

// packageOf is "package PATH" of obj's package, or "another package".
func packageOf(obj types.Object) string {
	if obj.Pkg() == nil {
		return "another package"
	}
	return "package " + obj.Pkg().Path()
}

func singleReturn(fd *ast.FuncDecl) ast.Expr {
	if len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	return ret.Results[0]
}

// variable follows a local or package variable, or a struct field, of the
// package: every value it is given must be the same test.
func (g *gateReader) variable(e ast.Expr, v *types.Var, depth int) *test {
	what := types.ExprString(e)
	g.index()
	if fn, ok := g.params[v]; ok {
		return leaf(e, fmt.Sprintf("%s is a parameter of %s: its callers decide it", v.Name(), fn), true)
	}
	if !g.declaredHere(v) {
		return leaf(e, fmt.Sprintf("%s is declared in %s, whose assignments plegvet does not read here", what, packageOf(v)), true)
	}
	name := v.Name()
	if v.IsField() {
		name = "field " + v.Name()
	}
	a := g.sets[v]
	switch {
	case a == nil || len(a.values) == 0 && a.why == "":
		return leaf(e, fmt.Sprintf("%s is never assigned in this package", name), true)
	case a.why != "":
		return leaf(e, a.why, true)
	case depth >= maxDepth || g.seen[v]:
		return leaf(e, fmt.Sprintf("%s is too deep or recursive to follow", name), true)
	}
	g.seen[v] = true
	defer delete(g.seen, v)
	var first *test
	for _, val := range a.values {
		t := g.follow(val, depth+1)
		if w := t.unfollowed(); w != "" {
			return leaf(e, fmt.Sprintf("%s is assigned %s, and %s", name, valueString(val), w), true)
		}
		if first == nil {
			first = t
		} else if t.key() != first.key() {
			return leaf(e, fmt.Sprintf("%s is assigned different values: %s and %s", name, valueString(a.values[0]), valueString(val)), true)
		}
	}
	return first
}

func valueString(e ast.Expr) string {
	if e == nil {
		return "its zero value"
	}
	return types.ExprString(e)
}

func isBool(t types.Type) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// collect turns a condition that has the truth value holds into the gate
// tests it implies, and the tests that could not be followed and count
// (see Construction.Unfollowed).
func collect(t *test, holds bool, at token.Pos, evented, early bool, conds *[]Condition, unf *[]UnfollowedTest) {
	record := func(why string, plausible bool) {
		*unf = append(*unf, UnfollowedTest{If: at, Cond: t.via, Expr: types.ExprString(t.via), Holds: holds, Unresolved: why, plausible: plausible})
	}
	switch {
	case t.gate != nil:
		c := *t.gate
		c.On, c.If, c.Via = holds, at, t.via
		*conds = append(*conds, c)
	case t.op == token.NOT:
		collect(t.x, !holds, at, evented, early, conds, unf)
	case t.op == token.LAND && holds || t.op == token.LOR && !holds:
		collect(t.x, holds, at, evented, early, conds, unf)
		collect(t.y, holds, at, evented, early, conds, unf)
	case t.op == token.LAND || t.op == token.LOR:
		// Either side may be the one deciding. Early returns on such
		// compounds are error checks (a gate and a validity test).
		if !evented || early {
			return
		}
		what := types.ExprString(t.expr)
		if t.expr != t.via {
			what = types.ExprString(t.via) + ", that is " + what + ","
		}
		state := "holds"
		if !holds {
			state = "does not hold"
		}
		record(fmt.Sprintf("the call runs when %s %s, whichever of its parts decides that", what, state), t.mayGate())
	case t.why != "":
		if t.plausible || evented && !early {
			record(t.why, t.plausible)
		}
	}
}

// conditions reads the tests on the path from a call up to its function:
// enclosing if statements (then or else), and earlier "if test { return }"
// statements in enclosing blocks, and the tests it could not follow.
func (g *gateReader) conditions(path []ast.Node, evented bool) ([]Condition, []UnfollowedTest) {
	var conds []Condition
	var unf []UnfollowedTest
	for i := 1; i < len(path); i++ {
		child := path[i-1]
		switch n := path[i].(type) {
		case *ast.IfStmt:
			if child == n.Body || child == n.Else {
				collect(g.site(n.Cond), child == n.Body, n.Pos(), evented, false, &conds, &unf)
			}
		case *ast.BlockStmt:
			for _, s := range n.List {
				if s.Pos() >= child.Pos() {
					break
				}
				ifs, ok := s.(*ast.IfStmt)
				if !ok || ifs.Else != nil || !leaves(ifs.Body, false) {
					continue
				}
				// Reaching the call means the test was false.
				collect(g.site(ifs.Cond), false, ifs.Pos(), evented, true, &conds, &unf)
			}
		case *ast.FuncDecl, *ast.FuncLit:
			return conds, unf
		}
	}
	return conds, unf
}

// String is "kl.eventedOn (must hold): why".
func (u UnfollowedTest) String() string {
	need := "must hold"
	if !u.Holds {
		need = "must not hold"
	}
	return strings.Join([]string{u.Expr, " (", need, "): ", u.Unresolved}, "")
}
