// The CRI client's deadline: the duration the kubelet builds its runtime
// service with (runtimeRequestTimeout), its configuration setting and
// default.

package runtimehang

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/srcpos"
)

// deadline is the timeout the CRI runtime service is built with: the
// duration argument of the calls building the value assigned to a
// variable of the CRI API's runtime service type (the interface declaring
// Version).
func (p *prog) deadline(k *Package) *Deadline {
	var out *Deadline
	for _, f := range k.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || out != nil || len(as.Rhs) != 1 {
				return out == nil
			}
			if !isCRIRuntimeService(k.Info.TypeOf(as.Lhs[0])) {
				return true
			}
			for _, call := range callChain(as.Rhs[0]) {
				for _, a := range call.Args {
					if setting, ok := durationArg(k.Info, a); ok {
						out = &Deadline{Call: types.ExprString(call.Fun), Pos: srcpos.Of(p.fset, a.Pos()), Expr: types.ExprString(a), Setting: setting}
						out.Value = constvalue.ValueOf(p.fset, k.Files, k.Info, a)
						if setting != "" {
							out.Default = p.settingDefault(setting)
						}
						return false
					}
				}
			}
			return true
		})
	}
	return out
}

// isCRIRuntimeService reports whether t is the CRI API's runtime service
// interface: declared in the CRI API package, with a Version method.
func isCRIRuntimeService(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || !strings.HasPrefix(n.Obj().Pkg().Path(), CRIAPIPackage) {
		return false
	}
	it, ok := n.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	for i := 0; i < it.NumMethods(); i++ {
		if it.Method(i).Name() == "Version" {
			return true
		}
	}
	return false
}

// callChain is the calls of e, outermost first: a builder's
// x.A(a).B(b).Build() is Build, B, A.
func callChain(e ast.Expr) []*ast.CallExpr {
	var out []*ast.CallExpr
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.CallExpr:
			out = append(out, x)
			e = x.Fun
		case *ast.SelectorExpr:
			e = x.X
		default:
			slices.Reverse(out)
			return out
		}
	}
}

// durationArg reports whether a is a duration: typed time.Duration, or
// (when the configuration's types are stubbed) cfg.Field.Duration, a
// metav1.Duration's field. setting is the configuration field's JSON
// name (lowerCamel of the Go name, as the kubelet's configuration names
// its fields), "" for a duration from no field.
func durationArg(info *types.Info, a ast.Expr) (setting string, ok bool) {
	a = ast.Unparen(a)
	sel, isSel := a.(*ast.SelectorExpr)
	if isSel && sel.Sel.Name == "Duration" {
		if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok {
			return lowerCamel(inner.Sel.Name), true
		}
	}
	if t := info.TypeOf(a); t != nil {
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
			return "", true
		}
	}
	return "", false
}
