// Reachability: which container event types reach each function walked
// from Start, and so the relist request.

package plegperiods

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/plegvet/plegvet/srcpos"
)

// site is a place in a reached function: a reference to another
// function, or the relist request (with its callee).
type site struct {
	fn     *types.Func
	fd     *ast.FuncDecl
	at     ast.Node
	callee *types.Func
}

// walk is what the walk from Start records: where each reached function
// is referenced from, and where it started.
type walk struct {
	sites   map[*types.Func][]site
	entries map[*types.Func]bool
	reach   map[*types.Func]*reachSet // memo; a nil entry while being computed
}

type reachSet struct {
	set   eventSet
	guard token.Pos
}

// reaching is the set of event types with which fn can run: every type
// at Start; elsewhere, the union over the sites referencing fn of what
// reaches the site's function and passes the site's guards.
func (r *loopReader) reaching(w *walk, fn *types.Func) reachSet {
	if w.entries[fn] {
		return reachSet{set: allEvents}
	}
	if rs, ok := w.reach[fn]; ok {
		if rs == nil { // a cycle: this path adds nothing
			return reachSet{set: eventSet{in: []string{}}}
		}
		return *rs
	}
	w.reach[fn] = nil
	out := reachSet{set: eventSet{in: []string{}}}
	for _, s := range w.sites[fn] {
		at := r.atSite(w, s)
		out.set, out.guard = union(out.set, at.set), cmp.Or(out.guard, at.guard)
	}
	w.reach[fn] = &out
	return out
}

// atSite is what reaches s's function and passes the guards around s;
// the guard is s's own first, else one around a call leading to it.
func (r *loopReader) atSite(w *walk, s site) reachSet {
	set, guard := r.guards(r.fileOf[s.fd], s.at)
	up := r.reaching(w, s.fn)
	return reachSet{set: intersect(set, up.set), guard: cmp.Or(guard, up.guard)}
}

// request describes the relist request at s (see RelistRequest).
func (r *loopReader) request(w *walk, s *site) *RelistRequest {
	callee := s.callee
	req := &RelistRequest{Pos: srcpos.Of(r.fset, s.at.Pos()), Callee: funcName(callee)}
	at := r.atSite(w, *s)
	req.EventTypes = append([]string{}, at.set.names()...) // [] rather than null in JSON
	if at.guard.IsValid() {
		req.Guard = srcpos.Of(r.fset, at.guard)
	}
	// The gate: the tests before the callee's enqueue.
	cd := r.decls[callee]
	if cd == nil {
		return req
	}
	enqueue := first[*ast.SendStmt](cd.Body, nil)
	if enqueue == nil {
		return req
	}
	path, _ := astutil.PathEnclosingInterval(r.fileOf[cd], enqueue.Pos(), enqueue.End())
	conds, unf := r.gates.conditions(path, false)
	if len(conds) > 0 {
		c := conds[0]
		gate := c.Gate
		if !c.On {
			gate = "!" + c.Gate
		}
		req.Gate, req.GatePos = &gate, srcpos.Of(r.fset, c.If)
	} else if len(unf) > 0 {
		req.GateUnresolved = unf[0].String()
	}
	return req
}
