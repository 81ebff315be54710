// What the evented PLEG does once its failed streams reach its retries.

package plegperiods

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// retriesTest reads a comparison with the receiver's retries field:
// whether it is one, and whether it holds once the retries are spent
// ("attempts >= e.retries", "e.retries <= attempts", "attempts ==
// e.retries") rather than while some remain ("attempts < e.retries").
func (r *loopReader) retriesTest(recv types.Object, cond ast.Expr, retries fieldPath) (ok, spentWhenHolds bool) {
	b, isBin := ast.Unparen(cond).(*ast.BinaryExpr)
	if !isBin {
		return false, false
	}
	onRight := false
	if p, ok := receiverPath(r.info, recv, b.Y); ok && p == retries {
		onRight = true
	} else if p, ok := receiverPath(r.info, recv, b.X); !ok || p != retries {
		return false, false
	}
	switch b.Op {
	case token.EQL:
		return true, true
	case token.GTR, token.GEQ:
		return true, onRight
	case token.LSS, token.LEQ:
		return true, !onRight
	}
	return false, false
}

// onFailure reads the code run once the retries are spent: a call
// handing over a relist duration (restore), else a return or a break out
// of the loop (stop), else unknown. at is the test; spent the statements
// run when the retries are spent; end says they run to the function's end.
func (r *loopReader) onFailure(at token.Pos, spent []ast.Stmt, end token.Pos) *StreamFailure {
	f := &StreamFailure{Test: srcpos.Of(r.fset, at)}
	block := &ast.BlockStmt{List: spent}
	if r.relistType != nil {
		if call := first(block, func(c *ast.CallExpr) bool {
			return slices.ContainsFunc(c.Args, func(a ast.Expr) bool { return namedOf(r.info.TypeOf(a)) == r.relistType })
		}); call != nil {
			if astobj.Func(r.info, call) == nil && !r.info.Types[call.Fun].IsType() {
				// A function value may do anything with the duration:
				// restoring it would be a guess.
				f.Action, f.Pos, f.Unfollowed = FailureUnknown, srcpos.At(r.fset, call.Pos()), call.Pos()
				f.Why = fmt.Sprintf("the relist duration is passed to %s, a function value rather than a declared function or method", types.ExprString(call.Fun))
				return f
			}
			f.Action, f.Pos, f.At = RestoreGenericRelist, srcpos.At(r.fset, call.Pos()), call.Pos()
			return r.leftStopped(f, block)
		}
	}
	if r.relistType == nil && r.flow != nil {
		var restore, unfollowed *ast.CallExpr
		syncCalls(block, func(c *ast.CallExpr) bool {
			h := r.flow.handover(nil, c)
			if h.hasPeriod {
				restore = c
			} else if h.why != "" && unfollowed == nil {
				unfollowed, f.Why = c, h.why
			}
			return restore == nil
		})
		switch {
		case restore != nil:
			f.Action, f.Pos, f.At, f.Why = RestoreGenericRelist, srcpos.At(r.fset, restore.Pos()), restore.Pos(), ""
			return r.leftStopped(f, block)
		case unfollowed != nil:
			f.Action, f.Pos, f.Unfollowed = FailureUnknown, srcpos.At(r.fset, unfollowed.Pos()), unfollowed.Pos()
			return f
		}
	}
	if s := stops(block, true); s != nil {
		f.Action, f.Pos = StopWatching, srcpos.At(r.fset, s.Pos())
		return f
	}
	if end.IsValid() {
		f.Action, f.Pos = StopWatching, srcpos.At(r.fset, end)
		return f
	}
	f.Action = FailureUnknown
	f.Why = "what runs once the retries are spent neither hands a relist duration to the generic PLEG nor returns"
	if r.relistType == nil {
		f.Why += " (no relist-duration type was found: the package has no generic PLEG relisting on one)"
	}
	return f
}

// failureBranch reads, at an if or a loop testing the retries, the code
// run once they are spent; nil when n is neither. A loop running while
// retries remain is followed by that code in its block (rest); when
// nothing but the function's end follows it, it stops watching there.
func (r *loopReader) failureBranch(recv types.Object, n ast.Node, rest []ast.Stmt, funcEnd token.Pos, retries fieldPath) *StreamFailure {
	switch n := n.(type) {
	case *ast.IfStmt:
		ok, spent := r.retriesTest(recv, n.Cond, retries)
		if !ok {
			return nil
		}
		if spent {
			return r.onFailure(n.Pos(), n.Body.List, token.NoPos)
		}
		if b, isBlock := n.Else.(*ast.BlockStmt); isBlock {
			return r.onFailure(n.Pos(), b.List, token.NoPos)
		}
		return r.onFailure(n.Pos(), rest, endIfLast(rest, funcEnd))
	case *ast.ForStmt:
		ok, spent := r.retriesTest(recv, n.Cond, retries)
		if !ok || spent {
			return nil
		}
		return r.onFailure(n.Pos(), rest, endIfLast(rest, funcEnd))
	}
	return nil
}

// endIfLast is funcEnd when no statement follows (the function ends).
func endIfLast(rest []ast.Stmt, funcEnd token.Pos) token.Pos {
	if len(rest) == 0 {
		return funcEnd
	}
	return token.NoPos
}

// stops finds a return in n, or, with breaks, a break leaving the
// enclosing loop (not inside a nested loop, switch or select); never inside
// a function literal.
func stops(n ast.Node, breaks bool) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(n, func(m ast.Node) bool {
		if found != nil {
			return false
		}
		switch s := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if breaks { // a return still leaves; a break no longer does
				found = stops(s, false)
				return false
			}
		case *ast.ReturnStmt:
			found = s
		case *ast.BranchStmt:
			if breaks && s.Tok == token.BREAK && s.Label == nil {
				found = s
			}
		}
		return true
	})
	return found
}

// leftStopped reads, in the code run once the retries are spent, whether
// the generic PLEG is stopped (its Stop, as the releases do before
// handing it the relist duration) and not started again after: then no
// relist runs at the period restored, a shape plegvet does not know, so
// the restore f found becomes unknown, with why.
func (r *loopReader) leftStopped(f *StreamFailure, block *ast.BlockStmt) *StreamFailure {
	var stop *ast.CallExpr
	started := false
	syncCalls(block, func(c *ast.CallExpr) bool {
		switch r.genericCall(c) {
		case "Stop":
			stop, started = c, false
		case "Start":
			started = stop != nil || started
		}
		return true
	})
	if stop == nil || started {
		return f
	}
	at := r.fset.Position(stop.Pos())
	f.Action, f.Unfollowed, f.At = FailureUnknown, stop.Pos(), token.NoPos
	f.Why = fmt.Sprintf("it stops the generic PLEG (%s at %s:%d) and does not start it again, so the period it hands over may never run", types.ExprString(stop.Fun), filepath.Base(at.Filename), at.Line)
	return f
}

// genericCall is the name of the generic PLEG's method c calls (on the
// generic PLEG or through an interface it implements), or "".
func (r *loopReader) genericCall(c *ast.CallExpr) string {
	fn := astobj.Func(r.info, c)
	if fn == nil || r.generic == nil {
		return ""
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return ""
	}
	if named := namedOf(recv.Type()); named == r.generic || r.genericImplements(fn) {
		return fn.Name()
	}
	return ""
}
