// The deadline on each call: for each CRI method a scrape reaches, the
// CRI client's implementation and the timeout its body puts on the call.

package runtimehang

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// perCall reads, for each CRI method the collectors reach, the CRI
// client's implementation of it among the packages read (a type of a
// package with bodies implementing the CRI interface) and the timeout it
// puts on the call: a context.WithTimeout in its body.
func (p *prog) perCall(h *Hang) {
	d := h.Deadline
	d.PerCall = []PerCall{}
	methods := map[string]*types.Func{}
	var names []string
	for _, pkg := range p.pkgs {
		if !strings.HasPrefix(pkg.Path, CRIAPIPackage) {
			continue
		}
		for _, name := range h.CRIMethods() {
			iface, method, _ := strings.Cut(name, ".")
			if tn := lookupType(pkg, iface); tn != nil {
				if m, _, _ := types.LookupFieldOrMethod(tn.Type(), false, tn.Pkg(), method); m != nil {
					if fn, ok := m.(*types.Func); ok && methods[name] == nil {
						methods[name] = fn
						names = append(names, name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		for _, m := range p.implementations(methods[name]) {
			if !isCRIClient(p.pkgOf[m].Path) {
				continue // a wrapper of the kubelet's (kuberuntime's instrumented service) passes the call on
			}
			pc := PerCall{Method: name, Impl: funcName(m), Decl: p.declPos(m)}
			info := p.pkgOf[m].Info
			ast.Inspect(p.decls[m].Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || pc.Pos != nil {
					return pc.Pos == nil
				}
				if t := withTimeout(info, call); t != nil {
					pc.Timeout, pc.Pos = types.ExprString(t), srcpos.At(p.fset, call.Pos())
				} else if i := p.timeoutParam(astobj.Func(info, call)); i >= 0 && i < len(call.Args) {
					// A helper of the client's (getContextWithTimeout(r.timeout)).
					pc.Timeout, pc.Pos = types.ExprString(call.Args[i]), srcpos.At(p.fset, call.Pos())
				}
				return pc.Pos == nil
			})
			d.PerCall = append(d.PerCall, pc)
		}
	}
	if len(d.PerCall) == 0 && len(names) > 0 {
		d.PerCallUnknown = "no implementation of the CRI methods reached was read: the CRI client's package (pkg/kubelet/cri/remote, or k8s.io/cri-client/pkg outside the tree) was not read from source"
	}
}

// isCRIClient reports whether a package is the CRI client's, whose
// methods put the deadline on each call.
func isCRIClient(path string) bool {
	return strings.HasSuffix(path, "/pkg/kubelet/cri/remote") || strings.HasPrefix(path, "k8s.io/cri-client/pkg")
}

// withTimeout is the timeout of a context.WithTimeout call; nil for
// another call.
func withTimeout(info *types.Info, call *ast.CallExpr) ast.Expr {
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "WithTimeout" && len(call.Args) == 2 && usesPackage(info, sel.X, "context") {
		return call.Args[1]
	}
	return nil
}

// timeoutParam is the index of fn's parameter its body passes as a
// context.WithTimeout's timeout; -1 when none (or fn's body was not read).
func (p *prog) timeoutParam(fn *types.Func) int {
	if fn == nil || p.decls[fn] == nil {
		return -1
	}
	info := p.pkgOf[fn].Info
	params := fn.Type().(*types.Signature).Params()
	idx := -1
	ast.Inspect(p.decls[fn].Body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && idx < 0 {
			if t, ok := ast.Unparen(withTimeout(info, call)).(*ast.Ident); ok {
				for i := 0; i < params.Len(); i++ {
					if info.Uses[t] == params.At(i) {
						idx = i
					}
				}
			}
		}
		return idx < 0
	})
	return idx
}
