// The relist forced on a stream error: stream calls, the branches their
// errors take, and the generic PLEG's relist reached from there.

package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// forcedRelist finds, in the functions reached from Start (in the order
// reached), the first call in a stream-error branch that runs the generic
// PLEG's relist; nil when there is none, or no generic PLEG. unfollowed
// is the first call of a function value met in a stream-error branch
// (which may be that relist), for a caller finding none.
func (r *loopReader) forcedRelist(reached []*types.Func, evented *types.TypeName) (forced *ForcedRelist, unfollowed token.Pos) {
	if r.generic == nil {
		return nil, token.NoPos
	}
	for _, fn := range reached {
		body := r.decls[fn].Body
		errs := r.streamErrors(body, evented)
		if len(errs) == 0 {
			continue
		}
		var found *ForcedRelist
		ast.Inspect(body, func(n ast.Node) bool {
			ifs, ok := n.(*ast.IfStmt)
			if !ok || found != nil {
				return found == nil
			}
			branch, stream := errorBranch(r.info, ifs, errs)
			if branch == nil {
				return true
			}
			syncCalls(branch, func(call *ast.CallExpr) bool {
				if !unfollowed.IsValid() && astobj.Func(r.info, call) == nil && !r.info.Types[call.Fun].IsType() && !r.info.Types[call.Fun].IsBuiltin() {
					unfollowed = call.Pos()
				}
				if m := r.relistOf(call, evented, 0); m != nil {
					found = &ForcedRelist{Pos: srcpos.Of(r.fset, call.Pos()), Stream: srcpos.Of(r.fset, stream), Relist: funcName(m), RelistDecl: srcpos.Of(r.fset, m.Pos())}
					found.UpdatesPodCache, found.EmitsLifecycleEvents = r.relistEffects(m)
				}
				return found == nil
			})
			return found == nil
		})
		if found != nil {
			return found, unfollowed
		}
	}
	return nil, unfollowed
}

// isStreamCall reports whether call reads the container event stream: a
// call of GetContainerEvents (as the constructors find the evented PLEG),
// or of a method of the evented PLEG or a function of the package that
// makes one.
func (r *loopReader) isStreamCall(call *ast.CallExpr, evented *types.TypeName) bool {
	getsEvents := func(c *ast.CallExpr) bool {
		_, name := calleeName(r.info, c)
		return name == "GetContainerEvents"
	}
	if getsEvents(call) {
		return true
	}
	fn := astobj.Func(r.info, call)
	if fn == nil {
		return false
	}
	fn = fn.Origin()
	fd := r.decls[fn]
	return fd != nil && funcOrMethodOf(fn, evented) && first(fd.Body, getsEvents) != nil
}

// streamErrors are the variables a body assigns a stream call's error to
// (its last result: err := e.runtimeService.GetContainerEvents(...)),
// with the stream call.
func (r *loopReader) streamErrors(body *ast.BlockStmt, evented *types.TypeName) map[types.Object]token.Pos {
	out := map[types.Object]token.Pos{}
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
			return true
		}
		call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
		if !ok || !r.isStreamCall(call, evented) {
			return true
		}
		if id, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident); ok {
			if obj := defOrUse(r.info, id); obj != nil {
				out[obj] = call.Pos()
			}
		}
		return true
	})
	return out
}

// errorBranch is the block an if runs when a stream error is set: the
// body of "if err != nil", the else of "if err == nil"; nil otherwise.
func errorBranch(info *types.Info, ifs *ast.IfStmt, errs map[types.Object]token.Pos) (*ast.BlockStmt, token.Pos) {
	b, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
	if !ok || b.Op != token.NEQ && b.Op != token.EQL {
		return nil, token.NoPos
	}
	isNil := func(e ast.Expr) bool {
		_, isNil := astobj.Of(info, e).(*types.Nil)
		return isNil
	}
	stream, ok := errs[astobj.Of(info, b.X)]
	if !ok || !isNil(b.Y) {
		if stream, ok = errs[astobj.Of(info, b.Y)]; !ok || !isNil(b.X) {
			return nil, token.NoPos
		}
	}
	if b.Op == token.NEQ {
		return ifs.Body, stream
	}
	if e, ok := ifs.Else.(*ast.BlockStmt); ok {
		return e, stream
	}
	return nil, token.NoPos
}

// maxForward bounds the evented PLEG's methods (or package functions)
// followed from a call to the generic PLEG's relist it forwards to.
const maxForward = 3

// relistOf returns the generic PLEG's relist that call runs, as
// ForcedRelist describes it; nil otherwise.
func (r *loopReader) relistOf(call *ast.CallExpr, evented *types.TypeName, depth int) *types.Func {
	fn := astobj.Func(r.info, call)
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	var m *types.Func
	switch {
	case methodOf(fn, r.generic):
		m = fn
	case r.genericImplements(fn):
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(r.generic.Type()), true, r.generic.Pkg(), fn.Name())
		m, _ = obj.(*types.Func)
	case depth < maxForward && r.decls[fn] != nil && funcOrMethodOf(fn, evented):
		syncCalls(r.decls[fn].Body, func(c *ast.CallExpr) bool {
			m = r.relistOf(c, evented, depth+1)
			return m == nil
		})
		return m
	}
	if m == nil || r.requests[m.Name()] == m {
		return nil
	}
	if cache, _ := r.relistEffects(m); !cache.IsValid() {
		return nil
	}
	return m
}

// relistEffects are the first write to the pod cache and the first send
// of a pod lifecycle event that fn makes before it returns: in its body
// and in the generic PLEG's methods and the package's functions it calls,
// in source order, not in go statements or function literals.
func (r *loopReader) relistEffects(fn *types.Func) (cache srcpos.Pos, emits *srcpos.Pos) {
	seen := map[*types.Func]bool{}
	var visit func(fn *types.Func, depth int)
	visit = func(fn *types.Func, depth int) {
		fd := r.decls[fn]
		if fd == nil || seen[fn] || depth > maxReachDepth {
			return
		}
		seen[fn] = true
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt, *ast.FuncLit:
				return false
			case *ast.SendStmt:
				if emits == nil && r.isEvent(chanElem(r.info.TypeOf(n.Chan))) {
					emits = srcpos.At(r.fset, n.Pos())
				}
			case *ast.CallExpr:
				if !cache.IsValid() && r.cacheSet(n) {
					cache = srcpos.Of(r.fset, n.Pos())
				}
				if f := astobj.Func(r.info, n); f != nil && funcOrMethodOf(f.Origin(), r.generic) {
					visit(f.Origin(), depth+1)
				}
			}
			return true
		})
	}
	visit(fn, 0)
	return cache, emits
}

// syncCalls calls f on each call in n, in source order, that runs before
// n is done: not in a go statement or a function literal. f returns
// whether to go on.
func syncCalls(n ast.Node, f func(*ast.CallExpr) bool) {
	stop := false
	ast.Inspect(n, func(m ast.Node) bool {
		if stop {
			return false
		}
		switch m := m.(type) {
		case *ast.GoStmt, *ast.FuncLit:
			return false
		case *ast.CallExpr:
			stop = !f(m)
		}
		return !stop
	})
}

// first is the first node of type T in root, in source order, that ok
// accepts (nil: any).
func first[T ast.Node](root ast.Node, ok func(T) bool) T {
	var found T
	done := false
	ast.Inspect(root, func(n ast.Node) bool {
		if t, is := n.(T); is && !done && (ok == nil || ok(t)) {
			found, done = t, true
		}
		return !done
	})
	return found
}
