// What the kubelet does when a health check fails, found from the method
// that runs the checks (runtimeErrors): its runtime-down branch, the sync
// loop that skips on its error, the Ready condition it is handed to.

package plegperiods

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// runtimeDown reads, in the method running the checks, the branch taken
// when a time plus a duration field of the receiver is not after now
// (last sync + threshold), and follows the field to the argument of the
// receiver type's constructor.
func runtimeDown(fset *token.FileSet, files []*ast.File, info *types.Info, res *resolver, fd *ast.FuncDecl) *RuntimeDown {
	recv := receiverObj(info, fd)
	var out *RuntimeDown
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		is, ok := n.(*ast.IfStmt)
		if !ok || out != nil {
			return out == nil
		}
		field := ""
		ast.Inspect(is.Cond, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && isTimeType(info.TypeOf(sel.X), "Time") && isDuration(info.TypeOf(call.Args[0])) {
				if p, ok := receiverPath(info, recv, call.Args[0]); ok && p.sub == "" {
					field = p.field
				}
			}
			return field == ""
		})
		if field == "" {
			return true
		}
		if ms := builtErrors(fset, info, is.Body); len(ms) > 0 {
			out = &RuntimeDown{HealthMessage: ms[0], Threshold: constructorArg(files, info, res, receiverNamed(info, fd), field)}
			out.When = WhenRuntimeDown
		}
		return true
	})
	return out
}

func receiverNamed(info *types.Info, fd *ast.FuncDecl) *types.TypeName {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return nil
	}
	return namedOf(info.TypeOf(fd.Recv.List[0].Type))
}

// constructorArg resolves the value a struct's field is given: the
// argument, at the first call, of the function returning a literal of
// the struct that sets the field from a parameter.
func constructorArg(files []*ast.File, info *types.Info, res *resolver, tn *types.TypeName, field string) *Value {
	var ctor *types.Func
	index := -1
	for _, fd := range funcDecls(files) {
		if fd.Recv != nil || ctor != nil {
			continue
		}
		lit, lt := returnedStruct(info, fd)
		if lit == nil || lt != tn {
			continue
		}
		if i, ok := fieldParams(info, lit, paramIndex(info, fd))[field]; ok {
			ctor, index = info.Defs[fd.Name].(*types.Func), i
		}
	}
	if ctor == nil {
		return &Value{Unresolved: "no function of the package returns a " + tn.Name() + " with " + field + " set from a parameter"}
	}
	var v *Value
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if ok && v == nil && astobj.Func(info, call) == ctor && index < len(call.Args) {
				v = res.Value(call.Args[index])
			}
			return v == nil
		})
	}
	if v == nil {
		return &Value{Unresolved: ctor.Name() + " is never called in the package"}
	}
	return v
}

// syncLoopSkip finds an if that calls runtimeErrors (fn) and, in its
// body, goes round its loop again (continue): the log call's constant
// message, and the sleep before it.
func syncLoopSkip(fset *token.FileSet, files []*ast.File, info *types.Info, fn *types.Func) *SyncLoopSkip {
	var out *SyncLoopSkip
	for _, fd := range funcDecls(files) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			is, ok := n.(*ast.IfStmt)
			if !ok || out != nil {
				return out == nil
			}
			if !calls(info, is.Init, fn) && !calls(info, is.Cond, fn) || !continues(is.Body) {
				return true
			}
			s := &SyncLoopSkip{Func: fd.Name.Name}
			ast.Inspect(is.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if pkg, name := calleeName(info, call); pkg == "time" && name == "Sleep" && s.Backoff == nil {
					s.Backoff = srcpos.At(fset, call.Pos())
				}
				for _, a := range call.Args {
					if tv, ok := info.Types[a]; ok && tv.Value != nil && tv.Value.Kind() == constant.String && s.Message == "" {
						s.Message, s.Pos = constant.StringVal(tv.Value), srcpos.Of(fset, call.Pos())
					}
				}
				return true
			})
			out = s
			return false
		})
		if out != nil {
			return out
		}
	}
	return nil
}

// calls reports whether n calls fn.
func calls(info *types.Info, n ast.Node, fn *types.Func) bool {
	if n == nil {
		return false
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && astobj.Func(info, call) == fn {
			found = true
		}
		return !found
	})
	return found
}

// continues reports whether body ends with a continue of its loop.
func continues(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	b, ok := body.List[len(body.List)-1].(*ast.BranchStmt)
	return ok && b.Tok == token.CONTINUE
}

// readyWiring finds the call passing fn as a method value (not called):
// the node status setter that turns the Ready condition false with its error.
func readyWiring(fset *token.FileSet, files []*ast.File, info *types.Info, fn *types.Func) *ReadyWiring {
	var out *ReadyWiring
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || out != nil {
				return out == nil
			}
			for _, a := range call.Args {
				sel, ok := ast.Unparen(a).(*ast.SelectorExpr)
				if !ok {
					continue
				}
				if s, ok := info.Selections[sel]; ok && s.Kind() == types.MethodVal && s.Obj() == fn {
					out = &ReadyWiring{Func: types.ExprString(call.Fun), Pos: srcpos.Of(fset, call.Pos())}
					if callee := astobj.Func(info, call); callee != nil {
						out.Decl = srcpos.At(fset, callee.Pos())
					}
					return false
				}
			}
			return true
		})
	}
	return out
}

// IsNodeStatusPackage reports whether an import path is the kubelet's
// node status setters (pkg/kubelet/nodestatus, or a fork's copy at the
// same path): read from source, its ReadyCondition has a position.
func IsNodeStatusPackage(importPath string) bool {
	return strings.HasSuffix(importPath, "/pkg/kubelet/nodestatus")
}
