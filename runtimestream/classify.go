package runtimestream

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// outcome is what a method's body does with its stream.
type outcome struct {
	shape    Shape
	evidence token.Pos
	why      string // after the method's name: "sends ...", "returns ..."
	// target and call are set when the method hands the stream to
	// another GetContainerEvents (a wrapper): call is that call, target
	// its receiver.
	target *valueSrc
	call   *ast.CallExpr
	// via are the helpers the stream was handed to on the way.
	via []Step
}

// maxHandoffs bounds how deep a stream handed to helper functions is
// followed.
const maxHandoffs = 4

// classify judges what a loaded function does with its parameter at
// streamIdx (1 for GetContainerEvents itself; a helper's may differ).
func (r *reader) classify(fi *funcInfo, streamIdx, depth int) outcome {
	info := fi.pkg.Info
	if fi.decl.Body == nil {
		return outcome{shape: Unknown, why: "has no body in the source (assembly or linkname): plegvet cannot tell"}
	}
	aliases := map[types.Object]bool{}
	if params := fi.obj.Type().(*types.Signature).Params(); streamIdx < params.Len() {
		if v := params.At(streamIdx); v.Name() != "" && v.Name() != "_" {
			aliases[v] = true
		}
	}
	isStream := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && aliases[info.Uses[id]]
	}
	var (
		sends      []*ast.CallExpr
		sendLoop   []ast.Node // the innermost loop around each send, or nil
		sendInLit  []bool     // whether each send is in a function literal
		delegation *ast.CallExpr
		handoffs   []handoff
		unimpl     []*ast.ReturnStmt
		used       bool
	)
	ast.PreorderStack(fi.decl.Body, nil, func(n ast.Node, stack []ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if aliases[info.Uses[n]] {
				used = true
			}
		case *ast.AssignStmt:
			// s2 := s: the copy is the stream too.
			if len(n.Lhs) == len(n.Rhs) {
				for i, rhs := range n.Rhs {
					if id, ok := n.Lhs[i].(*ast.Ident); ok && isStream(rhs) {
						if obj := info.ObjectOf(id); obj != nil {
							aliases[obj] = true
						}
					}
				}
			}
		case *ast.ReturnStmt:
			if !inFuncLit(stack) && refersTo(info, n, grpcCodes, "Unimplemented") {
				unimpl = append(unimpl, n)
			}
		case *ast.CallExpr:
			sel, _ := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if sel != nil && (sel.Sel.Name == "Send" || sel.Sel.Name == "SendMsg") && isStream(sel.X) {
				sends = append(sends, n)
				sendLoop = append(sendLoop, innermostLoop(stack))
				sendInLit = append(sendInLit, inFuncLit(stack))
				return true
			}
			for i, arg := range n.Args {
				if !isStream(arg) {
					continue
				}
				if sel != nil && sel.Sel.Name == methodName {
					if delegation == nil {
						delegation = n
					}
				} else {
					handoffs = append(handoffs, handoff{n, i})
				}
				break
			}
		}
		return true
	})
	switch {
	case len(sends) > 0:
		why := fmt.Sprintf("sends events on the stream: %s at %s", exprString(sends[0].Fun), r.at(sends[0].Pos()))
		switch loop := sendLoop[0].(type) {
		case *ast.RangeStmt:
			why += ", in a loop over " + exprString(loop.X)
		case *ast.ForStmt:
			why += ", in a loop"
		}
		if sendInLit[0] {
			why += ", in a function literal the method starts (a goroutine or a callback)"
		}
		if len(unimpl) > 0 {
			why += fmt.Sprintf("; it returns codes.Unimplemented at %s, on a path of its own (a condition the runtime's configuration may set)", r.at(unimpl[0].Pos()))
		}
		return outcome{shape: Sends, evidence: sends[0].Pos(), why: why}
	case delegation != nil:
		sel := ast.Unparen(delegation.Fun).(*ast.SelectorExpr)
		return outcome{target: &valueSrc{sel.X, fi.pkg, -1}, call: delegation}
	}
	for _, h := range handoffs {
		callee := typeutil.StaticCallee(info, h.call)
		sub := r.funcs[callee]
		if sub == nil || depth >= maxHandoffs || sub == fi {
			continue
		}
		out := r.classify(sub, h.arg, depth+1)
		step := r.step(h.call.Pos(), fmt.Sprintf("the stream is handed to %s", exprString(h.call.Fun)))
		out.via = append([]Step{step}, out.via...)
		if out.target == nil {
			out.why = fmt.Sprintf("hands the stream to %s (%s), which %s", exprString(h.call.Fun), r.at(h.call.Pos()), out.why)
		}
		return out
	}
	switch {
	case len(unimpl) > 0:
		return outcome{shape: Unimplemented, evidence: unimpl[0].Pos(), why: fmt.Sprintf("returns %s at %s: the runtime does not implement the rpc", unimplementedText(info, unimpl[0]), r.at(unimpl[0].Pos()))}
	case !used:
		return outcome{shape: EndsAtOnce, evidence: fi.decl.Body.Pos(), why: "never uses its stream parameter: it returns, and the stream ends without an event"}
	case len(handoffs) > 0:
		h := handoffs[0]
		return outcome{shape: Unknown, evidence: h.call.Pos(), why: fmt.Sprintf("hands the stream to %s (%s), which plegvet did not read", exprString(h.call.Fun), r.at(h.call.Pos()))}
	}
	return outcome{shape: Unknown, why: "uses the stream, but neither sends on it, hands it on, nor returns codes.Unimplemented: plegvet cannot tell"}
}

type handoff struct {
	call *ast.CallExpr
	arg  int
}

func inFuncLit(stack []ast.Node) bool {
	for _, n := range stack {
		if _, ok := n.(*ast.FuncLit); ok {
			return true
		}
	}
	return false
}

// innermostLoop is the nearest for or range statement around a node,
// within the same function.
func innermostLoop(stack []ast.Node) ast.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		switch n := stack[i].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return n
		case *ast.FuncLit:
			return nil
		}
	}
	return nil
}

// refersTo reports whether n mentions pkg.name, pkg an import of path.
func refersTo(info *types.Info, n ast.Node, path, name string) bool {
	for m := range ast.Preorder(n) {
		if sel, ok := m.(*ast.SelectorExpr); ok && isPkgSel(info, sel, path, name) {
			return true
		}
	}
	return false
}

// unimplementedText is the returned error, shortened:
// status.Errorf(codes.Unimplemented, ...).
func unimplementedText(info *types.Info, ret *ast.ReturnStmt) string {
	for _, res := range ret.Results {
		if !refersTo(info, res, grpcCodes, "Unimplemented") {
			continue
		}
		if call, ok := ast.Unparen(res).(*ast.CallExpr); ok && len(call.Args) > 0 && refersTo(info, call.Args[0], grpcCodes, "Unimplemented") {
			if len(call.Args) == 1 {
				return fmt.Sprintf("%s(%s)", exprString(call.Fun), exprString(call.Args[0]))
			}
			return fmt.Sprintf("%s(%s, ...)", exprString(call.Fun), exprString(call.Args[0]))
		}
		return exprString(res)
	}
	return "codes.Unimplemented"
}
