// Conditions a fork may put around what the hang reads: a collector
// registered under a test (a feature gate, a constant false), a
// configuration default assigned more than once, calls made in a
// goroutine rather than one after another.

package runtimehang

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// registeredWhen reads the condition c's registration runs under (the
// innermost if around it): a constant false means it never runs.
func (p *prog) registeredWhen(k *Package, stack []ast.Node, c *Collector) {
	var cond ast.Expr
	c.When, c.WhenPos, cond = condition(p.fset, stack)
	if cond == nil {
		return
	}
	if tv, ok := k.Info.Types[cond]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
		never := !constant.BoolVal(tv.Value)
		if strings.HasPrefix(c.When, "!(") {
			// The else branch: the constant's negation.
			never = !never
		}
		c.Never = never
	}
}

// assignedDefault is one assignment of a setting's default.
type assignedDefault struct {
	value *constvalue.Value
	pos   *srcpos.Pos
}

// oneDefault is the default of a setting assigned in each of as: the
// value when every assignment gives the same, else Unresolved naming
// each, since which one holds depends on the order they run in.
func oneDefault(setting string, as []assignedDefault) *constvalue.Value {
	if len(as) == 0 {
		return nil
	}
	first := as[0].value
	var seen []string
	differ := false
	for _, a := range as {
		seen = append(seen, fmt.Sprintf("%s at %s", a.value.Expr, srcpos.Line(a.pos)))
		if a.value.Value != first.Value || a.value.Unresolved != first.Unresolved {
			differ = true
		}
	}
	if !differ {
		return first
	}
	return &constvalue.Value{Unresolved: fmt.Sprintf("the default of %s is assigned %d times with different values (%s): which one holds depends on the order they run in, which plegvet does not follow", setting, len(as), strings.Join(seen, "; "))}
}

// goroutineArg is the function literal call runs in a goroutine, for a
// call of an errgroup's Go or a WaitGroup's Go; nil for any other call.
func goroutineArg(info *types.Info, call *ast.CallExpr) *ast.FuncLit {
	fn := astobj.Func(info, call)
	if fn == nil || fn.Name() != "Go" || fn.Pkg() == nil || len(call.Args) != 1 {
		return nil
	}
	switch fn.Pkg().Path() {
	case "golang.org/x/sync/errgroup", "sync":
		lit, _ := ast.Unparen(call.Args[0]).(*ast.FuncLit)
		return lit
	}
	return nil
}

// condition is the if the innermost statement of stack runs under: its
// condition as written, negated for the else branch.
func condition(fset *token.FileSet, stack []ast.Node) (string, *srcpos.Pos, ast.Expr) {
	for i := len(stack) - 1; i > 0; i-- {
		is, ok := stack[i-1].(*ast.IfStmt)
		if !ok {
			if _, isFunc := stack[i].(*ast.FuncDecl); isFunc {
				break
			}
			continue
		}
		cond := types.ExprString(is.Cond)
		if stack[i] == is.Else {
			cond = "!(" + cond + ")"
		}
		if stack[i] == is.Body || stack[i] == is.Else {
			return cond, srcpos.At(fset, is.Cond.Pos()), is.Cond
		}
	}
	return "", nil, nil
}

// branchOf is the branch the innermost node of stack (a call in a
// function's body) runs under, as written: an if's condition in its body,
// its negation "!(X)" in its else and in the statements after an if with
// no else whose body always returns (if X { return ... }; the call); ""
// when it runs under none. The innermost branch is the one named; cond is
// its condition (nil for none), negated whether the call runs where cond
// is false.
func branchOf(stack []ast.Node) (when string, cond ast.Expr, negated bool) {
	for i := len(stack) - 1; i > 0; i-- {
		switch parent := stack[i-1].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return "", nil, false
		case *ast.IfStmt:
			switch stack[i] {
			case parent.Body:
				return types.ExprString(parent.Cond), parent.Cond, false
			case parent.Else:
				return "!(" + types.ExprString(parent.Cond) + ")", parent.Cond, true
			}
		case *ast.BlockStmt:
			for k, st := range parent.List {
				if ast.Node(st) != stack[i] {
					continue
				}
				for j := k - 1; j >= 0; j-- {
					if is, ok := parent.List[j].(*ast.IfStmt); ok && is.Else == nil && astobj.Leaves(is.Body, false) {
						return "!(" + types.ExprString(is.Cond) + ")", is.Cond, true
					}
				}
			}
		}
	}
	return "", nil, false
}
