// Gate tests on the path to a call: the conditions guarding it, read as
// trees of feature-gate tests, and those that could not be followed.

package plegperiods

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
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

// String is "kl.eventedOn (must hold): why".
func (u UnfollowedTest) String() string {
	need := "must hold"
	if !u.Holds {
		need = "must not hold"
	}
	return strings.Join([]string{u.Expr, " (", need, "): ", u.Unresolved}, "")
}

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
	fset  *token.FileSet
	info  *types.Info
	files []*ast.File
	funcs map[*types.Func]*ast.FuncDecl
	// params are the parameters (and named results) of the package's
	// functions, with the function's name.
	params map[*types.Var]string
	sets   map[*types.Var]*assignments
	seen   map[types.Object]bool // objects being followed (cycles)
}

func newGateReader(fset *token.FileSet, files []*ast.File, info *types.Info) *gateReader {
	return &gateReader{fset: fset, info: info, files: files, seen: map[types.Object]bool{}}
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
				if !ok || ifs.Else != nil || !astobj.Leaves(ifs.Body, false) {
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
