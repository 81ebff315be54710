// The loop reader: the walk from an evented PLEG's Start through the
// functions it reaches, recording what each does.

package plegperiods

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"

	"github.com/plegvet/plegvet/srcpos"
)

// readEventLoops reads the event loop of each evented constructor.
func readEventLoops(fset *token.FileSet, files []*ast.File, info *types.Info, out []*Constructor, structOf map[*Constructor]*types.TypeName, usages map[*types.TypeName]*usage, relistType *types.TypeName) {
	var generic *types.TypeName
	for _, c := range out {
		if c.Kind == Generic && generic == nil {
			generic = structOf[c]
		}
	}
	var r *loopReader
	for _, c := range out {
		if c.Kind != Evented {
			continue
		}
		if r == nil {
			r = newLoopReader(fset, files, info, generic, relistType, out)
			r.flow = newDurationFlow(fset, files, info, generic, usages[generic])
		}
		c.EventLoop = r.read(structOf[c], usages[structOf[c]])
		c.Evented = &c.EventLoop.EventedRole
	}
}

// maxReach bounds how many functions the walk from Start reads, and
// how deep it goes.
const (
	maxReach      = 64
	maxReachDepth = 8
)

// loopReader reads the evented PLEG's event loop in the pleg package.
type loopReader struct {
	fset       *token.FileSet
	info       *types.Info
	decls      map[*types.Func]*ast.FuncDecl
	fileOf     map[*ast.FuncDecl]*ast.File
	fieldExpr  map[*types.Var]ast.Expr // a struct field's type as written
	generic    *types.TypeName         // the generic PLEG's struct; nil when none
	relistType *types.TypeName
	events     []types.Type           // pod lifecycle event types
	caches     map[string]bool        // pod cache types, by typeKey
	requests   map[string]*types.Func // the generic PLEG's relist-request methods, by name
	gates      *gateReader
	flow       *durationFlow // nil unless the generic PLEG holds bare durations
}

func newLoopReader(fset *token.FileSet, files []*ast.File, info *types.Info, generic, relistType *types.TypeName, ctors []*Constructor) *loopReader {
	r := &loopReader{
		fset: fset, info: info, generic: generic, relistType: relistType,
		decls: map[*types.Func]*ast.FuncDecl{}, fileOf: map[*ast.FuncDecl]*ast.File{},
		fieldExpr: map[*types.Var]ast.Expr{}, caches: map[string]bool{}, requests: map[string]*types.Func{},
		gates: newGateReader(fset, files, info),
	}
	for f, fd := range funcDecls(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			r.decls[fn], r.fileOf[fd] = fd, f
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if st, ok := n.(*ast.StructType); ok {
				for _, field := range st.Fields.List {
					for _, id := range field.Names {
						if v, ok := info.Defs[id].(*types.Var); ok {
							r.fieldExpr[v] = field.Type
						}
					}
				}
			}
			return true
		})
	}
	r.eventTypes(ctors)
	if generic != nil {
		r.readGeneric(methodsOf(files, info)[generic])
	}
	return r
}

// read walks the evented PLEG's event loop from Start.
func (r *loopReader) read(evented *types.TypeName, u *usage) *EventLoop {
	l := &EventLoop{}
	if len(r.events) > 0 {
		l.EventType = types.TypeString(r.events[0], func(q *types.Package) string { return q.Name() })
	}
	var queue []*types.Func
	depth := map[*types.Func]int{}
	w := &walk{sites: map[*types.Func][]site{}, entries: map[*types.Func]bool{}, reach: map[*types.Func]*reachSet{}}
	for fn := range r.decls {
		if fn.Name() == "Start" && methodOf(fn, evented) {
			queue = append(queue, fn)
			depth[fn] = 0
			w.entries[fn] = true
		}
	}
	var failure *StreamFailure
	var request *site // the first relist request, and the function it is in
	var reached []*types.Func
	for len(queue) > 0 && len(l.Reached) < maxReach {
		fn := queue[0]
		queue = queue[1:]
		fd := r.decls[fn]
		l.Reached = append(l.Reached, funcName(fn))
		reached = append(reached, fn)
		recv := receiverObj(r.info, fd)
		bodies := map[*ast.BlockStmt]bool{fd.Body: true} // and the function literals', as the walk meets them
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				bodies[n.Body] = true
			case *ast.SendStmt:
				if l.EmitsLifecycleEvents == nil && r.isEvent(chanElem(r.info.TypeOf(n.Chan))) {
					l.EmitsLifecycleEvents = srcpos.At(r.fset, n.Pos())
				}
			case *ast.CallExpr:
				if l.UpdatesPodCache == nil && r.cacheSet(n) {
					l.UpdatesPodCache = srcpos.At(r.fset, n.Pos())
				}
				if request == nil {
					if callee := r.relistCallee(n); callee != nil {
						request = &site{fn: fn, fd: fd, at: n, callee: callee}
					}
				}
			case *ast.BlockStmt:
				if failure == nil && u != nil && u.hasRetr && recv != nil {
					funcEnd := token.NoPos
					if bodies[n] {
						funcEnd = n.Rbrace
					}
					for i, st := range n.List {
						if failure = r.failureBranch(recv, st, n.List[i+1:], funcEnd, u.retries); failure != nil {
							break
						}
					}
				}
			case *ast.Ident:
				// Calls and method values of the evented PLEG's methods and
				// of the package's functions lead on.
				if f, ok := r.info.Uses[n].(*types.Func); ok {
					f = f.Origin()
					if _, declared := r.decls[f]; declared && funcOrMethodOf(f, evented) {
						w.sites[f] = append(w.sites[f], site{fn: fn, fd: fd, at: n})
						if _, seen := depth[f]; !seen && depth[fn] < maxReachDepth {
							depth[f] = depth[fn] + 1
							queue = append(queue, f)
						}
					}
				}
			}
			return true
		})
	}
	if request != nil {
		l.RequestsRelist = r.request(w, request)
	}
	l.RelistOnStreamError, l.ForcedUnfollowed = r.forcedRelist(reached, evented)
	if l.RelistOnStreamError == nil && l.ForcedUnfollowed.IsValid() {
		call := r.fset.Position(l.ForcedUnfollowed)
		l.RelistOnStreamErrorUnfollowed = fmt.Sprintf("the stream-error branch calls a function value at %s:%d, which may make the generic PLEG relist; plegvet does not follow a function value", filepath.Base(call.Filename), call.Line)
	} else {
		l.ForcedUnfollowed = token.NoPos
	}
	switch {
	case failure != nil:
		l.OnStreamFailure = *failure
	case u == nil || !u.hasRetr:
		l.OnStreamFailure = StreamFailure{Action: FailureUnknown, Why: "no comparison of a failed-stream count with a retries field of the evented PLEG was found"}
	default:
		l.OnStreamFailure = StreamFailure{Action: FailureUnknown, Why: fmt.Sprintf("no if reached from Start compares a count with the retries field %s", u.retries.field)}
	}
	l.Role, l.Why = l.role()
	return l
}

// addEventType records the element type of a channel a Watch-like
// method returns: a method with no parameters and one channel result.
func (r *loopReader) addEventType(fn *types.Func) {
	sig := fn.Signature()
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
		return
	}
	elem := chanElem(sig.Results().At(0).Type())
	if elem != nil && elem != types.Typ[types.Invalid] && !r.isEvent(elem) {
		r.events = append(r.events, elem)
	}
}

// eventTypes finds the pod lifecycle event types: what the Watch-like
// methods of the generic PLEG, and of the interfaces the constructors
// return, hand out.
func (r *loopReader) eventTypes(ctors []*Constructor) {
	if r.generic != nil {
		for sel := range types.NewMethodSet(types.NewPointer(r.generic.Type())).Methods() {
			if fn, ok := sel.Obj().(*types.Func); ok {
				r.addEventType(fn)
			}
		}
	}
	for _, c := range ctors {
		for res := range c.Func.Signature().Results().Variables() {
			if iface, ok := res.Type().Underlying().(*types.Interface); ok {
				for m := range iface.Methods() {
					r.addEventType(m)
				}
			}
		}
	}
}

func (r *loopReader) isEvent(t types.Type) bool {
	return t != nil && slices.ContainsFunc(r.events, func(e types.Type) bool { return types.Identical(e, t) })
}

// methodOf reports whether fn is a method of tn.
func methodOf(fn *types.Func, tn *types.TypeName) bool {
	recv := fn.Signature().Recv()
	return recv != nil && namedOf(recv.Type()) == tn
}

// funcOrMethodOf reports whether fn is a function, or a method of tn.
func funcOrMethodOf(fn *types.Func, tn *types.TypeName) bool {
	return fn.Signature().Recv() == nil || methodOf(fn, tn)
}

// funcName is "EventedPLEG.watch" or "helper".
func funcName(fn *types.Func) string {
	if recv := fn.Signature().Recv(); recv != nil {
		if tn := namedOf(recv.Type()); tn != nil {
			return tn.Name() + "." + fn.Name()
		}
	}
	return fn.Name()
}
