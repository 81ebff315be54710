// The feature gate behind a branch (BranchGate): a condition reading a
// bool field (if p.f, if !p.f) followed to where the field is set, from a
// constructor's parameter through the calls of that constructor (and of
// those passing their own parameter on) to a feature gate's check.

package runtimehang

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// maxGateDepth bounds how many constructors a field's value is followed
// through.
const maxGateDepth = 8

// callSite is a static call and the function declaring it (nil for a
// package variable's value).
type callSite struct {
	call *ast.CallExpr
	pkg  *Package
	in   *ast.FuncDecl
}

// gateSource is what a value was followed to: one gate's check, or why
// not.
type gateSource struct {
	name, konst string
	pos         *srcpos.Pos
	why         string
}

// branchGate is the gate behind cond (read with info), for a call on the
// side where cond is false (negated) or true; nil when cond reads no bool
// field and is no gate's check.
func (p *prog) branchGate(info *types.Info, cond ast.Expr, negated bool) *BranchGate {
	if cond == nil {
		return nil
	}
	e := ast.Unparen(cond)
	notField := false
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		e, notField = ast.Unparen(u.X), true
	}
	if call, ok := e.(*ast.CallExpr); ok {
		// The condition is a gate's check itself.
		name, konst, ok := gateCheck(info, call)
		if !ok {
			return nil
		}
		return &BranchGate{Field: types.ExprString(call), Exact: true, FieldTrue: notField == negated,
			Name: name, Const: konst, Pos: srcpos.At(p.fset, call.Pos())}
	}
	sel := asSelector(e)
	if sel == nil {
		return nil
	}
	fv, ok := info.Uses[sel.Sel].(*types.Var)
	if !ok || !fv.IsField() || !isBool(fv.Type()) {
		return nil
	}
	g, ok := p.fieldGates[fv]
	if !ok {
		g = p.fieldGate(fv)
		p.fieldGates[fv] = g
	}
	out := *g
	out.Field, out.FieldTrue = types.ExprString(sel), notField == negated
	return &out
}

// fieldSet is a value a field is given: a composite literal's key or an
// assignment, in the function in (nil for a package variable's value).
type fieldSet struct {
	val ast.Expr
	at  *srcpos.Pos
	pkg *Package
	in  *ast.FuncDecl
}

// setsOf are the values the packages read with their bodies give fv,
// indexed for every field on first use.
func (p *prog) setsOf(fv *types.Var) []fieldSet {
	if p.fieldSets == nil {
		p.fieldSets = map[*types.Var][]fieldSet{}
		add := func(pkg *Package, id *ast.Ident, val ast.Expr, at token.Pos, in *ast.FuncDecl) {
			if v, ok := pkg.Info.Uses[id].(*types.Var); ok && v.IsField() {
				p.fieldSets[v] = append(p.fieldSets[v], fieldSet{val, srcpos.At(p.fset, at), pkg, in})
			}
		}
		p.inspectBodies(func(pkg *Package, fd *ast.FuncDecl, n ast.Node) {
			switch x := n.(type) {
			case *ast.KeyValueExpr:
				if id, ok := x.Key.(*ast.Ident); ok {
					add(pkg, id, x.Value, x.Pos(), fd)
				}
			case *ast.AssignStmt:
				if len(x.Lhs) == len(x.Rhs) {
					for i, l := range x.Lhs {
						if s := asSelector(ast.Unparen(l)); s != nil {
							add(pkg, s.Sel, x.Rhs[i], x.Pos(), fd)
						}
					}
				}
			}
		})
	}
	return p.fieldSets[fv]
}

// fieldGate follows every value the packages read give fv to the gate
// they all check.
func (p *prog) fieldGate(fv *types.Var) *BranchGate {
	sets := p.setsOf(fv)
	if len(sets) == 0 {
		return &BranchGate{Unresolved: fmt.Sprintf("no package read sets %s", fv.Name())}
	}
	g := &BranchGate{Set: types.ExprString(sets[0].val), SetPos: sets[0].at}
	var srcs []gateSource
	var where []string
	for _, s := range sets {
		srcs = append(srcs, p.valueGate(s.pkg, s.in, s.val, 0))
		where = append(where, fmt.Sprintf("%s at %s", types.ExprString(s.val), srcpos.Line(s.at)))
	}
	src := oneGate(srcs, where)
	if src.why != "" {
		g.Unresolved = fmt.Sprintf("%s is set from %s", fv.Name(), src.why)
		if len(sets) > 1 {
			g.Unresolved = fmt.Sprintf("%s is set in %d places: %s", fv.Name(), len(sets), src.why)
		}
		return g
	}
	g.Name, g.Const, g.Pos = src.name, src.konst, src.pos
	return g
}

// valueGate follows e, written in the function in of pkg, to a gate's
// check: e itself, a parameter of in (then each call of in's argument),
// or one side of an && (the value is then true only when the gate is on).
func (p *prog) valueGate(pkg *Package, in *ast.FuncDecl, e ast.Expr, depth int) gateSource {
	e = ast.Unparen(e)
	written := types.ExprString(e)
	if depth > maxGateDepth {
		return gateSource{why: fmt.Sprintf("%s, followed through more than %d functions", written, maxGateDepth)}
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		if name, konst, ok := gateCheck(pkg.Info, x); ok {
			return gateSource{name: name, konst: konst, pos: srcpos.At(p.fset, x.Pos())}
		}
		return gateSource{why: fmt.Sprintf("%s, a call that is not a feature gate's check (a method Enabled given a constant of a features package)", written)}
	case *ast.BinaryExpr:
		if x.Op != token.LAND {
			break
		}
		l, r := p.valueGate(pkg, in, x.X, depth), p.valueGate(pkg, in, x.Y, depth)
		switch {
		case l.why == "" && r.why == "" && l.name != r.name:
			return gateSource{why: fmt.Sprintf("%s, which checks two gates (%s, %s)", written, l.name, r.name)}
		case l.why == "":
			return l
		case r.why == "":
			return r
		}
		return gateSource{why: fmt.Sprintf("%s, neither side of which follows a feature gate (%s; %s)", written, l.why, r.why)}
	case *ast.Ident:
		if idx, fn := paramIndex(pkg.Info, in, x); fn != nil {
			return p.paramGate(fn, idx, written, depth)
		}
		return gateSource{why: fmt.Sprintf("%s, a variable, not a parameter of the function setting it", written)}
	}
	return gateSource{why: fmt.Sprintf("%s, neither a constructor's parameter nor a feature gate's check", written)}
}

// paramGate follows the parameter number idx of fn (named name) to the
// arguments every call of fn among the packages read gives it.
func (p *prog) paramGate(fn *types.Func, idx int, name string, depth int) gateSource {
	sites := p.callersOf(fn)
	if len(sites) == 0 {
		return gateSource{why: fmt.Sprintf("%s, a parameter of %s, which no package read calls", name, funcName(fn))}
	}
	var srcs []gateSource
	var where []string
	for _, s := range sites {
		at := srcpos.Line(srcpos.At(p.fset, s.call.Pos()))
		where = append(where, funcName(fn)+" at "+at)
		if idx >= len(s.call.Args) || s.call.Ellipsis.IsValid() {
			srcs = append(srcs, gateSource{why: fmt.Sprintf("%s, a parameter of %s, not passed one for one at %s", name, funcName(fn), at)})
			continue
		}
		srcs = append(srcs, p.valueGate(s.pkg, s.in, s.call.Args[idx], depth+1))
	}
	return oneGate(srcs, where)
}

// oneGate is the gate every source follows; else why, naming each
// (where each was read).
func oneGate(srcs []gateSource, where []string) gateSource {
	first := srcs[0]
	same := true
	for _, s := range srcs {
		same = same && s.why == "" && s.name == first.name
	}
	if same || len(srcs) == 1 {
		return first
	}
	var parts []string
	for i, s := range srcs {
		what := "feature gate " + s.name
		if s.why != "" {
			what = s.why
		}
		parts = append(parts, where[i]+": "+what)
	}
	return gateSource{why: fmt.Sprintf("values that do not follow one gate (%s)", strings.Join(parts, "; "))}
}

// callersOf are the static calls of fn in the packages read with their
// bodies, indexed on first use.
func (p *prog) callersOf(fn *types.Func) []callSite {
	if p.callers == nil {
		p.callers = map[*types.Func][]callSite{}
		p.inspectBodies(func(pkg *Package, fd *ast.FuncDecl, n ast.Node) {
			if call, ok := n.(*ast.CallExpr); ok {
				if callee := typeutil.StaticCallee(pkg.Info, call); callee != nil {
					p.callers[callee] = append(p.callers[callee], callSite{call, pkg, fd})
				}
			}
		})
	}
	return p.callers[fn]
}

// inspectBodies visits every node of the packages read with their
// bodies, with the function declaring it (nil outside one).
func (p *prog) inspectBodies(visit func(pkg *Package, fd *ast.FuncDecl, n ast.Node)) {
	for _, pkg := range p.pkgs {
		if !pkg.Bodies {
			continue
		}
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, _ := d.(*ast.FuncDecl)
				ast.Inspect(d, func(n ast.Node) bool {
					if n != nil {
						visit(pkg, fd, n)
					}
					return true
				})
			}
		}
	}
}

// paramIndex is the index of the parameter of fd id names, and fd's
// function; nil when id names none.
func paramIndex(info *types.Info, fd *ast.FuncDecl, id *ast.Ident) (int, *types.Func) {
	obj := info.Uses[id]
	if fd == nil || obj == nil {
		return 0, nil
	}
	i := 0
	for _, f := range fd.Type.Params.List {
		if len(f.Names) == 0 {
			i++
			continue
		}
		for _, n := range f.Names {
			if info.Defs[n] == obj {
				fn, _ := info.Defs[fd.Name].(*types.Func)
				return i, fn
			}
			i++
		}
	}
	return 0, nil
}

// gateCheck reads call as a feature gate's check: a method Enabled,
// answering a bool, given a constant of a features package (one whose
// path ends in /pkg/features); name is the gate (the constant's value),
// konst the constant.
func gateCheck(info *types.Info, call *ast.CallExpr) (name, konst string, ok bool) {
	fn := astobj.Func(info, call)
	if fn == nil || fn.Name() != "Enabled" || len(call.Args) != 1 {
		return "", "", false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil || sig.Results().Len() != 1 || !isBool(sig.Results().At(0).Type()) {
		return "", "", false
	}
	c := astobj.Const(info, call.Args[0])
	if c == nil || c.Pkg() == nil || !strings.HasSuffix(c.Pkg().Path(), "/pkg/features") {
		return "", "", false
	}
	name = c.Name()
	if c.Val().Kind() == constant.String {
		name = constant.StringVal(c.Val())
	}
	return name, c.Name(), true
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}
