package runtimehang

import (
	"go/ast"
	"go/types"
	"slices"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// comparePos orders positions by file, line and column.
func comparePos(a, b srcpos.Pos) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}

// statusLoop finds the method of pkg/kubelet calling the runtime's
// Status (a method of an interface also declaring Version: the container
// runtime the node status setters ask too) and the call running it
// periodically; it returns the runtime's Version method.
func (p *prog) statusLoop(k *Package, h *Hang) *types.Func {
	// The first method run periodically; else the first found.
	var first *StatusLoop
	var firstVersion *types.Func
	for _, f := range k.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			var status *ast.CallExpr
			var version *types.Func
			var iface string
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || status != nil {
					return status == nil
				}
				fn := astobj.Func(k.Info, call)
				if fn == nil || fn.Name() != "Status" {
					return true
				}
				it, name := ifaceOf(fn)
				if it == nil {
					return true
				}
				for i := 0; i < it.NumMethods(); i++ {
					if m := it.Method(i); m.Name() == "Version" {
						status, version, iface = call, m, name
					}
				}
				return status == nil
			})
			if status == nil {
				continue
			}
			fn, _ := k.Info.Defs[fd.Name].(*types.Func)
			l := &StatusLoop{Func: funcName(fn), Decl: srcpos.At(p.fset, fd.Name.Pos()),
				Status: Step{Func: iface + ".Status", Pos: srcpos.Of(p.fset, status.Pos()), Via: iface}}
			l.Started, l.Period = p.periodic(k, fn)
			if l.Started != nil {
				h.StatusLoop = l
				return version
			}
			if first == nil {
				first, firstVersion = l, version
			}
		}
	}
	h.StatusLoop = first
	return firstVersion
}

// periodic finds a call passing fn as a method value beside a duration:
// the call running it periodically, and its period.
func (p *prog) periodic(k *Package, fn *types.Func) (*srcpos.Pos, *constvalue.Value) {
	var pos *srcpos.Pos
	var period *constvalue.Value
	for _, f := range k.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || pos != nil {
				return pos == nil
			}
			passes := slices.ContainsFunc(call.Args, func(a ast.Expr) bool {
				s, ok := k.Info.Selections[asSelector(ast.Unparen(a))]
				return ok && s.Kind() == types.MethodVal && s.Obj() == fn
			})
			if !passes {
				return true
			}
			for _, a := range call.Args {
				if _, ok := durationArg(k.Info, a); ok {
					pos, period = srcpos.At(p.fset, call.Pos()), constvalue.ValueOf(p.fset, k.Files, k.Info, a)
					return false
				}
			}
			return true
		})
	}
	return pos, period
}

// nodeStatus finds the call handing the runtime's Version (as a method
// value) to a node status setter, and where the setter calls it.
func (p *prog) nodeStatus(k *Package, version *types.Func) *NodeStatusCall {
	var out *NodeStatusCall
	for _, f := range k.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || out != nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || out != nil {
					return out == nil
				}
				for i, a := range call.Args {
					s, ok := k.Info.Selections[asSelector(ast.Unparen(a))]
					if !ok || s.Kind() != types.MethodVal || s.Obj() != version {
						continue
					}
					_, iface := ifaceOf(version)
					out = &NodeStatusCall{Method: iface + "." + version.Name(), Setter: types.ExprString(call.Fun), Pos: srcpos.Of(p.fset, a.Pos())}
					if fn, ok := k.Info.Defs[fd.Name].(*types.Func); ok {
						out.Func = funcName(fn)
					}
					if setter := astobj.Func(k.Info, call); setter != nil {
						out.SetterDecl = srcpos.At(p.fset, setter.Pos())
						out.Call = p.paramCall(setter, i)
					}
					return false
				}
				return true
			})
		}
	}
	return out
}

// paramCall is where fn's body calls its i-th parameter; nil when its
// body was not read or does not.
func (p *prog) paramCall(fn *types.Func, i int) *srcpos.Pos {
	d := p.decls[fn]
	sig := fn.Type().(*types.Signature)
	if d == nil || i >= sig.Params().Len() {
		return nil
	}
	param := sig.Params().At(i)
	info := p.pkgOf[fn].Info
	var out *srcpos.Pos
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && out == nil {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && info.Uses[id] == param {
				out = srcpos.At(p.fset, call.Pos())
			}
		}
		return out == nil
	})
	return out
}
