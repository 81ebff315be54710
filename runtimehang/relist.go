// The relist's CRI calls: what the generic PLEG's relist asks the
// runtime, each time, before it stores its time (the list of every pod),
// and for each pod that changed (its status), followed to the CRI by
// type as the collectors' calls are.

package runtimehang

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// Relist is what one relist asks the runtime.
type Relist struct {
	// List is the relist's call listing every pod through the kubelet's
	// runtime interface (Runtime.GetPods), made once per relist before
	// the relist stores its time; ListCalls its CRI calls, sorted.
	List      Step    `json:"list"`
	ListCalls []Reach `json:"listCalls"`
	// Inspect are the other calls through that interface the relist
	// makes, in its method or one it calls (Runtime.GetPodStatus: once
	// for each pod that changed), InspectCalls their CRI calls, sorted.
	Inspect      []Step  `json:"inspect"`
	InspectCalls []Reach `json:"inspectCalls"`
	// Unresolved are the calls not followed, with why.
	Unresolved []Unresolved `json:"unresolved"`
}

// ListMethods and InspectMethods are the distinct CRI methods each part
// calls: one call each per relist, and per pod that changed (a pod of one
// sandbox and one container).
func (r *Relist) ListMethods() []string    { return methods(r.ListCalls) }
func (r *Relist) InspectMethods() []string { return methods(r.InspectCalls) }

func methods(rs []Reach) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Method) {
			out = append(out, r.Method)
		}
	}
	slices.Sort(out)
	return out
}

// isPLEGPackage reports whether a package read is the kubelet's PLEG.
func isPLEGPackage(path string) bool { return strings.HasSuffix(path, "/pkg/kubelet/pleg") }

// isRuntimeInterface reports whether fn is a method of an interface the
// kubelet declares for its container runtime (pkg/kubelet/container).
func isRuntimeInterface(fn *types.Func) bool {
	it, _ := ifaceOf(fn)
	return it != nil && fn.Pkg() != nil && strings.HasSuffix(fn.Pkg().Path(), "/pkg/kubelet/container")
}

// relistCall is a call through the runtime interface in a method of the
// PLEG package.
type relistCall struct {
	fn   *types.Func
	call *ast.CallExpr
	recv *types.Named // the method's receiver type
	encl *types.Func  // the method the call is in
	info *types.Info
	name string
}

// relist finds the relist in the PLEG package read: the method calling,
// through the kubelet's runtime interface, a method whose first result is
// a slice (every pod); the other calls its receiver type's methods make
// through that interface are the inspections. nil when none is found.
func (p *prog) relist() *Relist {
	var calls []relistCall
	// callees are the static calls of each method of the PLEG package: a
	// call of the runtime the relist makes is in the method the list call
	// is in or in one it calls (an inspection made elsewhere, on demand,
	// is not the relist's).
	callees := map[*types.Func][]*types.Func{}
	for _, pkg := range p.pkgs {
		if !isPLEGPackage(pkg.Path) || !pkg.Bodies {
			continue
		}
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || fd.Body == nil {
					continue
				}
				recv := receiverNamed(pkg.Info, fd)
				encl, _ := pkg.Info.Defs[fd.Name].(*types.Func)
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					fn := astobj.Func(pkg.Info, call)
					switch {
					case fn == nil:
					case isRuntimeInterface(fn):
						calls = append(calls, relistCall{fn, call, recv, encl, pkg.Info, staticName(pkg.Info, call)})
					case p.decls[fn] != nil:
						callees[encl] = append(callees[encl], fn)
					}
					return true
				})
			}
		}
	}
	var list *relistCall
	for i := range calls {
		if res := calls[i].fn.Type().(*types.Signature).Results(); res.Len() > 0 {
			if _, ok := res.At(0).Type().Underlying().(*types.Slice); ok && calls[i].recv != nil {
				list = &calls[i]
				break
			}
		}
	}
	if list == nil {
		return nil
	}
	w := newWalker(p)
	r := &Relist{Inspect: []Step{}, ListCalls: []Reach{}, InspectCalls: []Reach{}}
	reaches := func(c relistCall) (Step, []Reach) {
		cs := w.call(c.fn, c.call.Pos(), 0, c.name)
		step := Step{Func: funcName(c.fn), Pos: srcpos.Of(p.fset, c.call.Pos()), Decl: p.declPos(c.fn)}
		if c.name != "" {
			step.Func, step.Via = c.name+"."+c.fn.Name(), c.name
		}
		var out []Reach
		for _, ch := range cs {
			out = append(out, Reach{Method: ch.method, Provider: ch.provider(), Steps: ch.steps, Concurrent: ch.concurrent})
		}
		slices.SortFunc(out, func(a, b Reach) int { return strings.Compare(a.Method+a.Provider, b.Method+b.Provider) })
		return step, out
	}
	r.List, r.ListCalls = reaches(*list)
	inRelist := map[*types.Func]bool{}
	var visit func(fn *types.Func)
	visit = func(fn *types.Func) {
		if fn == nil || inRelist[fn] {
			return
		}
		inRelist[fn] = true
		for _, c := range callees[fn] {
			visit(c)
		}
	}
	visit(list.encl)
	for _, c := range calls {
		if c.recv != list.recv || c.fn == list.fn || !inRelist[c.encl] {
			continue
		}
		step, rs := reaches(c)
		if len(rs) == 0 {
			continue // a call that asks the runtime nothing (a cache's)
		}
		r.Inspect = append(r.Inspect, step)
		r.InspectCalls = append(r.InspectCalls, rs...)
	}
	r.Unresolved = append([]Unresolved{}, w.unresolved...)
	return r
}

// receiverNamed is the named type of fd's receiver; nil when not one.
func receiverNamed(info *types.Info, fd *ast.FuncDecl) *types.Named {
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return nil
	}
	t := fn.Type().(*types.Signature).Recv().Type()
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}
