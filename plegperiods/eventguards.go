// The tests of a container event's type guarding a call: ifs, early
// continues and switch cases, read as sets of event types.

package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// guards reads the tests of the event type on the path to call: earlier
// "if test { continue }" (or return) in enclosing blocks, enclosing ifs,
// and switch cases.
func (r *loopReader) guards(file *ast.File, at ast.Node) (eventSet, token.Pos) {
	set := allEvents
	var guard token.Pos
	note := func(s eventSet, tested bool, at token.Pos) {
		if tested {
			set = intersect(set, s)
			if !guard.IsValid() || at < guard {
				guard = at
			}
		}
	}
	path, _ := astutil.PathEnclosingInterval(file, at.Pos(), at.End())
	for i := 1; i < len(path); i++ {
		child := path[i-1]
		switch n := path[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return set, guard
		case *ast.IfStmt:
			if child == n.Body || child == n.Else {
				s, t := r.eventTest(n.Cond, child == n.Body)
				note(s, t, n.Pos())
			}
		case *ast.BlockStmt:
			for _, s := range n.List {
				if s.Pos() >= child.Pos() {
					break
				}
				ifs, ok := s.(*ast.IfStmt)
				if !ok || ifs.Else != nil || !astobj.Leaves(ifs.Body, true) {
					continue
				}
				es, t := r.eventTest(ifs.Cond, false)
				note(es, t, ifs.Pos())
			}
		case *ast.CaseClause:
			if i+2 < len(path) {
				if sw, ok := path[i+2].(*ast.SwitchStmt); ok && sw.Tag != nil {
					s, t := r.caseSet(sw, n)
					note(s, t, n.Pos())
				}
			}
		}
	}
	return set, guard
}

// eventTest reads a condition with truth holds as the event types it
// lets through; tests of anything else let every type through. tested
// says whether an event type was tested at all.
func (r *loopReader) eventTest(cond ast.Expr, holds bool) (set eventSet, tested bool) {
	switch x := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return r.eventTest(x.X, !holds)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND, token.LOR:
			a, ta := r.eventTest(x.X, holds)
			b, tb := r.eventTest(x.Y, holds)
			if (x.Op == token.LAND) == holds {
				return intersect(a, b), ta || tb
			}
			return union(a, b), ta || tb
		case token.EQL, token.NEQ:
			name, typ, ok := r.eventTypeName(x.Y)
			if !ok {
				name, typ, ok = r.eventTypeName(x.X)
			}
			if !ok {
				return allEvents, false
			}
			s := eventSet{in: []string{name}, typ: typ}
			if (x.Op == token.EQL) != holds {
				s = s.complement()
			}
			return s, true
		}
	}
	return allEvents, false
}

// caseSet is the event types a switch case on the event type takes.
func (r *loopReader) caseSet(sw *ast.SwitchStmt, cc *ast.CaseClause) (eventSet, bool) {
	list := func(c *ast.CaseClause) (eventSet, bool) {
		s := eventSet{in: []string{}}
		for _, e := range c.List { // never empty: default is handled below
			name, typ, ok := r.eventTypeName(e)
			if !ok {
				return allEvents, false
			}
			s = union(s, eventSet{in: []string{name}, typ: typ})
		}
		return s, true
	}
	if cc.List != nil {
		return list(cc)
	}
	// default: every type no other case takes.
	others := eventSet{in: []string{}}
	tested := false
	for _, st := range sw.Body.List {
		if c, ok := st.(*ast.CaseClause); ok && c != cc {
			s, t := list(c)
			if !t {
				return allEvents, false
			}
			others, tested = union(others, s), true
		}
	}
	return others.complement(), tested
}

// eventTypeName is the name of a container event type constant: typed,
// a constant of a type named ContainerEventType; untyped (its package was
// stubbed), a selector pkg.ContainerEventType_X.
func (r *loopReader) eventTypeName(e ast.Expr) (string, *types.Named, bool) {
	e = ast.Unparen(e)
	if tv, ok := r.info.Types[e]; ok && tv.Value != nil {
		n, ok := types.Unalias(tv.Type).(*types.Named)
		if !ok || n.Obj().Name() != "ContainerEventType" {
			return "", nil, false
		}
		if c := astobj.Const(r.info, e); c != nil {
			return constName(c, n.Obj().Name()), n, true
		}
		return tv.Value.ExactString(), n, true
	}
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if _, isPkg := astobj.Of(r.info, sel.X).(*types.PkgName); isPkg {
			if rest, ok := strings.CutPrefix(sel.Sel.Name, "ContainerEventType_"); ok {
				return rest, nil, true
			}
		}
	}
	return "", nil, false
}
