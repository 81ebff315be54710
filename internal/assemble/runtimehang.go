package assemble

import (
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/runtimehang"
)

// hangRead is what a hung runtime does to the node (runtimehang), read
// from the loaded packages while the analyzers run (engine's Beside): it
// needs none of their results.
type hangRead struct {
	module string // the tree's
	hang   *runtimehang.Hang
}

// extract reads it from pkg/kubelet and the packages read from source
// beside it: those runtimehang reads (their bodies when they were
// checked whole), found through pkg/kubelet's imports, and the
// configuration defaults when requested. The runtime-down threshold,
// which the analyzers read, is left to addRuntimeHang.
func (h *hangRead) extract(res *engine.Loaded) {
	var kubelet *packages.Package
	var others []runtimehang.Package
	seen := map[*packages.Package]bool{}
	var visit func(p *packages.Package, root bool)
	visit = func(p *packages.Package, root bool) {
		if seen[p] {
			return
		}
		seen[p] = true
		if p.PkgPath == h.module+"/"+answer.KubeletPackage {
			kubelet = p
		} else if runtimehang.FromSource(p.PkgPath) && p.TypesInfo != nil {
			// A requested package is checked whole; an import whole when read.
			others = append(others, runtimehang.Package{Path: p.PkgPath, Files: p.Syntax, Info: p.TypesInfo, Bodies: root || runtimehang.Reads(p.PkgPath)})
		}
		for _, imp := range p.Imports {
			visit(imp, false)
		}
	}
	for _, p := range res.Packages {
		visit(p, true)
	}
	if kubelet == nil || kubelet.TypesInfo == nil {
		return
	}
	in := runtimehang.Input{Fset: res.Fset, Kubelet: runtimehang.Package{Path: kubelet.PkgPath, Files: kubelet.Syntax, Info: kubelet.TypesInfo, Bodies: true}, Others: others}
	h.hang = runtimehang.Extract(in)
}

// addRuntimeHang puts what h read into the health rule
// (Health.RuntimeHang), with the health rule's runtime-down threshold, as
// runtimehang.Input.RuntimeDown would carry it.
func addRuntimeHang(r *answer.Report, h *hangRead) {
	if r.Health == nil || h.hang == nil {
		return
	}
	if d := r.Health.RuntimeDown; d != nil && d.Threshold != nil {
		t := *d.Threshold
		h.hang.RuntimeDown = &t
	}
	r.Health.RuntimeHang = h.hang
}
