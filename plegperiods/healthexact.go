// What plegvet recognises, exactly, as the relist-elapsed health rule: the
// time since the PLEG's relist timestamp compared greater than the
// threshold, the branch returning false (unhealthy) with an error whose
// arguments, if any, are that time and that threshold, in that order.

package plegperiods

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// exactRelistTest checks an if comparing durations in a health method
// (fd, its receiver recv): "" when it is the relist-elapsed rule exactly,
// else why not, naming the if's file:line.
func exactRelistTest(fset *token.FileSet, info *types.Info, recv types.Object, fd *ast.FuncDecl, is *ast.IfStmt) string {
	at := fset.Position(is.Cond.Pos())
	where := fmt.Sprintf("%s:%d", filepath.Base(at.Filename), at.Line)
	c := ast.Unparen(is.Cond).(*ast.BinaryExpr)
	x := exactReader{info: info, recv: recv, fd: fd}
	elapsed, threshold := c.X, c.Y
	if c.Op == token.LSS || c.Op == token.LEQ {
		elapsed, threshold = c.Y, c.X
	}
	cond := types.ExprString(c)
	switch {
	case x.isElapsed(elapsed) && x.isElapsed(threshold):
		return fmt.Sprintf("%s compares the time since the relist with itself at %s (%s)", fd.Name.Name, where, cond)
	case x.isElapsed(threshold):
		return fmt.Sprintf("%s's test at %s (%s) holds while the time since the last relist is below the threshold, not past it", fd.Name.Name, where, cond)
	case !x.isElapsed(elapsed):
		return fmt.Sprintf("%s's test at %s (%s) compares no time since the PLEG's relist timestamp (a Since or Sub of it) with the threshold", fd.Name.Name, where, cond)
	}
	if why := x.thresholdWhy(threshold); why != "" {
		return fmt.Sprintf("%s's test at %s (%s): %s", fd.Name.Name, where, cond, why)
	}
	ret := firstReturn(is.Body)
	if ret == nil || len(ret.Results) != 2 {
		return fmt.Sprintf("%s's test at %s (%s) does not return (false, an error) past the threshold", fd.Name.Name, where, cond)
	}
	if tv, ok := info.Types[ret.Results[0]]; !ok || tv.Value == nil || tv.Value.Kind() != constant.Bool || constant.BoolVal(tv.Value) {
		return fmt.Sprintf("%s's test at %s (%s) returns %s (not false: unhealthy) past the threshold", fd.Name.Name, where, cond, types.ExprString(ret.Results[0]))
	}
	if id, ok := ast.Unparen(ret.Results[1]).(*ast.Ident); ok && id.Name == "nil" {
		return fmt.Sprintf("%s's test at %s (%s) returns no error past the threshold", fd.Name.Name, where, cond)
	}
	if call, ok := ast.Unparen(ret.Results[1]).(*ast.CallExpr); ok {
		if m, ok := errorMessage(fset, info, call); ok {
			if why := messageArgs(m.Format, call.Args[1:], elapsed, threshold, info); why != "" {
				at := fset.Position(call.Pos())
				return fmt.Sprintf("%s's error at %s:%d (%q): %s", fd.Name.Name, filepath.Base(at.Filename), at.Line, m.Format, why)
			}
		}
	}
	return ""
}

// firstReturn is the first return among body's own statements.
func firstReturn(body *ast.BlockStmt) *ast.ReturnStmt {
	for _, st := range body.List {
		if r, ok := st.(*ast.ReturnStmt); ok {
			return r
		}
	}
	return nil
}

type exactReader struct {
	info *types.Info
	recv types.Object
	fd   *ast.FuncDecl
}

// assigned is the one value a local variable of the method is given;
// nil when it is given none, several, or is no local.
func (x exactReader) assigned(id *ast.Ident) ast.Expr {
	v, ok := x.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || v.Pos() < x.fd.Body.Pos() || v.Pos() > x.fd.Body.End() {
		return nil
	}
	var found ast.Expr
	n := 0
	ast.Inspect(x.fd.Body, func(node ast.Node) bool {
		switch s := node.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				if lid, ok := ast.Unparen(l).(*ast.Ident); ok && x.info.ObjectOf(lid) == v {
					n++
					if len(s.Rhs) == len(s.Lhs) && s.Tok != token.ADD_ASSIGN && s.Tok != token.SUB_ASSIGN {
						found = s.Rhs[i]
					} else {
						found = nil
					}
				}
			}
		case *ast.IncDecStmt:
			if lid, ok := ast.Unparen(s.X).(*ast.Ident); ok && x.info.ObjectOf(lid) == v {
				n++
			}
		case *ast.ValueSpec:
			for i, name := range s.Names {
				if x.info.Defs[name] == v {
					n++
					if i < len(s.Values) {
						found = s.Values[i]
					}
				}
			}
		}
		return true
	})
	if n != 1 {
		return nil
	}
	return found
}

// isElapsed reports whether e is the time since the PLEG's relist
// timestamp: X.Since(T), now.Sub(T), or a local given one of them once.
func (x exactReader) isElapsed(e ast.Expr) bool {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		if a := x.assigned(id); a != nil {
			return x.isElapsed(a)
		}
		return false
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	switch sel.Sel.Name {
	case "Since":
		return x.isRelistTime(call.Args[0])
	case "Sub":
		return isNow(sel.X) && x.isRelistTime(call.Args[0])
	}
	return false
}

// isNow reports whether e is a call of a Now with no arguments (time.Now(), a clock's).
func isNow(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Now"
}

// isRelistTime reports whether e is the PLEG's own timestamp: a field of
// the receiver, a method of it called with no arguments, or a local given
// one of them once.
func (x exactReader) isRelistTime(e ast.Expr) bool {
	e = ast.Unparen(e)
	if _, ok := receiverPath(x.info, x.recv, e); ok {
		return !isDuration(x.info.TypeOf(e))
	}
	switch e := e.(type) {
	case *ast.Ident:
		if a := x.assigned(e); a != nil {
			return x.isRelistTime(a)
		}
	case *ast.CallExpr:
		if sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr); ok && len(e.Args) == 0 && x.recv != nil && astobj.Of(x.info, sel.X) == x.recv {
			return true
		}
	}
	return false
}

// thresholdWhy says why e is not a threshold plegvet follows: a field of
// the receiver or a constant; "" when it is.
func (x exactReader) thresholdWhy(e ast.Expr) string {
	e = ast.Unparen(e)
	if p, ok := receiverPath(x.info, x.recv, e); ok {
		if t := x.info.TypeOf(e); t != nil && !isDuration(t) && !untyped(t) {
			return fmt.Sprintf("the threshold %s.%s is no duration", p.field, p.sub)
		}
		return ""
	}
	if tv, ok := x.info.Types[e]; ok && tv.Value != nil {
		return ""
	}
	return fmt.Sprintf("the threshold %s is neither a field of the PLEG nor a constant, and plegvet does not compute it", types.ExprString(e))
}

// messageArgs says why an error's arguments are not (the time since,
// the threshold) in that order, as the kubelet's words are read; "" when
// they are (or there are none).
func messageArgs(format string, args []ast.Expr, elapsed, threshold ast.Expr, info *types.Info) string {
	if strings.Contains(format, "%[") {
		return "it indexes its arguments (%[n]): which value each verb prints is not the order plegvet reads"
	}
	if len(args) > 2 {
		return fmt.Sprintf("it passes %d arguments; plegvet reads the time since and the threshold, in that order", len(args))
	}
	want := []ast.Expr{elapsed, threshold}
	names := []string{"the time since the last relist", "the threshold"}
	for i, a := range args {
		if !sameExpr(info, a, want[i]) {
			return fmt.Sprintf("argument %d is %s, not %s (%s)", i+1, types.ExprString(a), names[i], types.ExprString(want[i]))
		}
	}
	return ""
}

// sameExpr reports whether a and b are written alike, or are the same constant.
func sameExpr(info *types.Info, a, b ast.Expr) bool {
	if types.ExprString(a) == types.ExprString(b) {
		return true
	}
	ta, tb := info.Types[a], info.Types[b]
	return ta.Value != nil && tb.Value != nil && constant.Compare(ta.Value, token.EQL, tb.Value)
}
