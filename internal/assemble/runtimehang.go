package assemble

import (
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/runtimehang"
)

// addRuntimeHang reads what a hung runtime does to the node into the
// health rule (Health.RuntimeHang), from pkg/kubelet and the packages
// read from source beside it: those runtimehang reads (their bodies when
// they were checked whole), found through pkg/kubelet's imports, and the
// configuration defaults when requested.
func addRuntimeHang(r *answer.Report, a *analysed) {
	if r.Health == nil {
		return
	}
	var kubelet *packages.Package
	var others []runtimehang.Package
	seen := map[*packages.Package]bool{}
	var visit func(p *packages.Package, root bool)
	visit = func(p *packages.Package, root bool) {
		if seen[p] {
			return
		}
		seen[p] = true
		if p.PkgPath == a.tree.Module+"/"+answer.KubeletPackage {
			kubelet = p
		} else if runtimehang.FromSource(p.PkgPath) && p.TypesInfo != nil {
			// A requested package is checked whole; an import whole when read.
			others = append(others, runtimehang.Package{Path: p.PkgPath, Files: p.Syntax, Info: p.TypesInfo, Bodies: root || runtimehang.Reads(p.PkgPath)})
		}
		for _, imp := range p.Imports {
			visit(imp, false)
		}
	}
	for _, p := range a.res.Packages {
		visit(p, true)
	}
	if kubelet == nil || kubelet.TypesInfo == nil {
		return
	}
	in := runtimehang.Input{Fset: a.res.Fset, Kubelet: runtimehang.Package{Path: kubelet.PkgPath, Files: kubelet.Syntax, Info: kubelet.TypesInfo, Bodies: true}, Others: others}
	if d := r.Health.RuntimeDown; d != nil && d.Threshold != nil {
		t := *d.Threshold
		in.RuntimeDown = &t
	}
	r.Health.RuntimeHang = runtimehang.Extract(in)
}
