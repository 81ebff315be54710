// Following a call to the CRI: from a function's body, by type, through
// interfaces to their implementations among the packages read, to a call
// of a CRI service's method; each path a chain of steps, and each call not
// followed named with why.

package runtimehang

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// maxDepth bounds how deep a chain is followed.
const maxDepth = 12

// chain is a path to a CRI call: its steps, the last the CRI call.
type chain struct {
	steps  []Step
	method string
	// concurrent: a step of it runs in a goroutine of its caller's (a
	// go statement, an errgroup's or a WaitGroup's Go), beside the
	// caller's other calls rather than after them.
	concurrent bool
}

// provider is the receiver type of the chain's first step through an
// interface.
func (c chain) provider() string {
	for _, s := range c.steps {
		if s.Via != "" {
			t, _, _ := strings.Cut(s.Func, ".")
			return t
		}
	}
	return ""
}

// walker follows calls from a function to the runtime.
type walker struct {
	p          *prog
	memo       map[*types.Func][]chain
	busy       map[*types.Func]bool
	unresolved []Unresolved
}

func newWalker(p *prog) *walker {
	return &walker{p: p, memo: map[*types.Func][]chain{}, busy: map[*types.Func]bool{}}
}

func (w *walker) unresolve(s Step, why string) {
	for _, u := range w.unresolved {
		if u.Step.Pos == s.Pos && u.Step.Func == s.Func {
			return
		}
	}
	w.unresolved = append(w.unresolved, Unresolved{Step: s, Why: why})
}

// call follows one call of fn made at pos: the chains from it, each
// starting with the call's step.
// recv, when not "", names the interface the call selects the method on.
func (w *walker) call(fn *types.Func, pos token.Pos, depth int, recv string) []chain {
	step := Step{Func: funcName(fn), Pos: srcpos.Of(w.p.fset, pos), Decl: w.p.declPos(fn)}
	if isCRI(fn) {
		_, name := ifaceOf(fn)
		if recv != "" {
			name = recv
		}
		step.Func, step.Via = name+"."+fn.Name(), name
		return []chain{{steps: []Step{step}, method: step.Func}}
	}
	if it, name := ifaceOf(fn); it != nil {
		if recv != "" {
			name = recv
		}
		impls := w.p.implementations(fn)
		if len(impls) == 0 {
			if fn.Pkg() != nil && isTreePackage(fn.Pkg().Path()) {
				w.unresolve(Step{Func: name + "." + fn.Name(), Pos: step.Pos, Via: name}, fmt.Sprintf("no type of the packages read implements %s (%s); its implementations' packages were not read from source", name, fn.Pkg().Path()))
			}
			return nil
		}
		var out []chain
		for _, m := range impls {
			s := Step{Func: funcName(m), Pos: step.Pos, Decl: w.p.declPos(m), Via: name}
			for _, c := range w.fn(m, depth+1) {
				out = append(out, chain{steps: append([]Step{s}, c.steps...), method: c.method, concurrent: c.concurrent})
			}
		}
		return out
	}
	if w.p.decls[fn] == nil {
		if fn.Pkg() != nil && isTreePackage(fn.Pkg().Path()) && fn.Type().(*types.Signature).Recv() != nil {
			w.unresolve(step, fmt.Sprintf("the body of %s is not read (%s was not read from source with its bodies)", step.Func, fn.Pkg().Path()))
		}
		return nil
	}
	var out []chain
	for _, c := range w.fn(fn, depth+1) {
		out = append(out, chain{steps: append([]Step{step}, c.steps...), method: c.method, concurrent: c.concurrent})
	}
	return out
}

// isTreePackage reports whether a package is the kubelet's own (a
// call into it that is not followed is worth naming).
func isTreePackage(path string) bool {
	return strings.Contains(path, "/pkg/kubelet")
}

// fn is the chains from fn's body, one per CRI method and provider.
func (w *walker) fn(fn *types.Func, depth int) []chain {
	if cs, ok := w.memo[fn]; ok {
		return cs
	}
	d := w.p.decls[fn]
	if d == nil || w.busy[fn] || depth > maxDepth {
		return nil
	}
	w.busy[fn] = true
	cs := w.body(w.p.pkgOf[fn].Info, d.Body, depth, nil)
	delete(w.busy, fn)
	w.memo[fn] = cs
	return cs
}

// body is the chains from the calls in body; bind, when not nil, answers
// for a call it knows (a collector's field) first.
func (w *walker) body(info *types.Info, body ast.Node, depth int, bind func(*ast.CallExpr) ([]chain, bool)) []chain {
	var out []chain
	var spawned []ast.Node // the goroutines' bodies seen so far
	mark := func(call *ast.CallExpr, cs []chain) []chain {
		for _, g := range spawned {
			if call.Pos() >= g.Pos() && call.End() <= g.End() {
				for i := range cs {
					cs[i].concurrent = true
				}
				break
			}
		}
		return cs
	}
	var stack []ast.Node
	// bounds are the contexts a context.WithTimeout in body derived
	// (ctx, cancel := context.WithTimeout(parent, T)): a call given one
	// waits at most T, with every call made after it on the same context.
	bounds := map[types.Object]*constvalue.Value{}
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Rhs) == 1 && len(as.Lhs) == 2 {
			if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
				if t := withTimeout(info, call); t != nil {
					if id, ok := as.Lhs[0].(*ast.Ident); ok {
						if obj := cmp.Or[types.Object](info.Defs[id], info.Uses[id]); obj != nil {
							bounds[obj] = constvalue.ValueOf(w.p.fset, nil, info, t)
						}
					}
				}
			}
		}
		if g, ok := n.(*ast.GoStmt); ok {
			spawned = append(spawned, g.Call)
			return true
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		when, cond, negated := branchOf(stack)
		gate := w.p.branchGate(info, cond, negated)
		var b *constvalue.Value
		for _, a := range call.Args {
			if id, ok := ast.Unparen(a).(*ast.Ident); ok && bounds[info.Uses[id]] != nil {
				b = bounds[info.Uses[id]]
			}
		}
		if lit := goroutineArg(info, call); lit != nil {
			spawned = append(spawned, lit)
		}
		if bind != nil {
			if cs, ok := bind(call); ok {
				out = append(out, mark(call, under(cs, when, b, gate))...)
				return true
			}
		}
		fn := astobj.Func(info, call)
		if fn == nil {
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
				if s, ok := info.Selections[asSelector(ast.Unparen(sel.X))]; ok && s.Kind() == types.FieldVal && !isTyped(info.TypeOf(sel.X)) {
					if why := w.p.untypedField(s.Obj().(*types.Var), types.ExprString(sel.X)); why != "" {
						w.unresolve(Step{Func: types.ExprString(call.Fun), Pos: srcpos.Of(w.p.fset, call.Pos())}, why)
					}
				}
			}
			return true
		}
		out = append(out, mark(call, under(w.call(fn, call.Pos(), depth, staticName(info, call)), when, b, gate))...)
		return true
	})
	unpaired(out)
	return dedupe(out)
}

// untypedField says why a call through the field v (written x) is not
// followed: its type's package was not read from source. "" for a type
// of the standard library (a mutex's Lock calls no runtime).
func (p *prog) untypedField(v *types.Var, x string) string {
	ft, ok := p.fieldTypes[v]
	if !ok {
		return fmt.Sprintf("%s is not typed (its type's package was not read from source)", x)
	}
	e := ft.expr
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
			continue
		case *ast.IndexExpr:
			e = t.X
			continue
		}
		break
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return fmt.Sprintf("%s is not typed", x)
	}
	id, _ := sel.X.(*ast.Ident)
	pn, _ := ft.info.Uses[id].(*types.PkgName)
	if pn == nil {
		return fmt.Sprintf("%s is not typed", x)
	}
	path := pn.Imported().Path()
	if first, _, _ := strings.Cut(path, "/"); !strings.Contains(first, ".") {
		return ""
	}
	return fmt.Sprintf("%s is a %s, whose package %s was not read from source", x, types.ExprString(ft.expr), path)
}

// staticName is the named type a call's method is selected on (the CRI
// API's RuntimeService, rather than ContainerManager, the interface it
// embeds that declares the method); "" for other calls.
func staticName(info *types.Info, call *ast.CallExpr) string {
	sel := asSelector(ast.Unparen(call.Fun))
	if sel == nil {
		return ""
	}
	s, ok := info.Selections[sel]
	if !ok {
		return ""
	}
	t := s.Recv()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && types.IsInterface(n) {
		return n.Obj().Name()
	}
	return ""
}

func isTyped(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.(*types.Basic)
	return !ok || b.Kind() != types.Invalid
}

// under marks each chain's first step, a call of the body being walked,
// with the branch it runs under ("" for none) and the gate behind it, and
// the timeout bounding it (nil for none).
func under(cs []chain, when string, bound *constvalue.Value, gate *BranchGate) []chain {
	for i := range cs {
		cs[i].steps[0].When, cs[i].steps[0].Bound, cs[i].steps[0].Gate = when, bound, gate
	}
	return cs
}

// unpaired drops the branch "!(X)" from the calls of one body when no
// call there runs under X itself: there is nothing to choose between (an
// early "if err != nil { return }" before them, or an else whose if makes
// no call).
func unpaired(cs []chain) {
	taken := map[string]bool{}
	for _, c := range cs {
		taken[c.steps[0].When] = true
	}
	for i := range cs {
		w := cs[i].steps[0].When
		if x, ok := strings.CutPrefix(w, "!("); ok && !taken[strings.TrimSuffix(x, ")")] {
			cs[i].steps[0].When, cs[i].steps[0].Gate = "", nil
		}
	}
}

// whenKey is the branches a chain's calls run under, in order.
func (c chain) whenKey() string {
	var ws []string
	for _, s := range c.steps {
		if s.When != "" {
			ws = append(ws, s.When)
		}
	}
	return strings.Join(ws, " && ")
}

// dedupe keeps the first chain of each provider, method and branch; a
// method reached under no branch keeps no chain that reaches it under one.
func dedupe(cs []chain) []chain {
	seen := map[string]bool{}
	always := map[string]bool{}
	for _, c := range cs {
		if c.whenKey() == "" {
			always[c.provider()+"|"+c.method] = true
		}
	}
	var out []chain
	for _, c := range cs {
		pm := c.provider() + "|" + c.method
		k := pm + "|" + c.whenKey()
		if !seen[k] && (c.whenKey() == "" || !always[pm]) {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func asSelector(e ast.Expr) *ast.SelectorExpr {
	s, _ := e.(*ast.SelectorExpr)
	return s
}

// usesPackage reports whether n names the package imported from path.
func usesPackage(info *types.Info, n ast.Node, path string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if pn, ok := info.Uses[id].(*types.PkgName); ok && pn.Imported().Path() == path {
				found = true
			}
		}
		return !found
	})
	return found
}
