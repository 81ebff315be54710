package plegperiods

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/plegvet/plegvet/internal/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// Role is what an evented PLEG is for, read from what its event loop does.
// Releases differ: up to v1.36 it is a source of pod lifecycle events
// beside the generic PLEG; from v1.37 it only asks the generic PLEG to
// relist. A tree that does neither is unknown, never forced into either.
type Role string

const (
	// EventSource: the evented PLEG sends pod lifecycle events itself.
	EventSource Role = "event-source"
	// RelistTrigger: it sends none, but asks the generic PLEG to relist.
	RelistTrigger Role = "relist-trigger"
	// RoleUnknown: it does neither, or it could not be read; a Why says.
	RoleUnknown Role = "unknown"
)

// What the evented PLEG does once its stream has failed as often as its
// retries allow (StreamFailure.Action).
const (
	// RestoreGenericRelist: it hands a relist duration back to the
	// generic PLEG (EventedPLEG.Update(e.relistDuration)).
	RestoreGenericRelist = "restore-generic-relist"
	// StopWatching: it returns (or breaks out of its loop) without one.
	StopWatching = "stop-watching"
	// FailureUnknown: neither was found; StreamFailure.Why says why.
	FailureUnknown = "unknown"
)

// AllEventTypes is RelistRequest.EventTypes' only entry when no test of
// the container event's type guards the request: every type reaches it.
const AllEventTypes = "all"

// EventLoop is what an evented PLEG's methods do, read from the methods
// reachable from its Start: method calls and method values on the
// evented PLEG, functions of the package, go statements and function
// literals, to a bounded depth. Its EventedRole, the part the kubelet's
// answer is made of, crosses packages inside a ConstructorFact.
type EventLoop struct {
	// Reached are the functions read, in the order reached
	// ("EventedPLEG.Start", "EventedPLEG.watchEventsChannel", ...);
	// empty when the struct has no Start method.
	Reached []string
	// EventType is the pod lifecycle event type, as go/types prints it
	// (*pleg.PodLifecycleEvent): the element type of the channel a PLEG
	// interface's (or the generic PLEG's) Watch-like method returns. ""
	// when none was found.
	EventType string
	// EventedRole holds what the loop does: Role and Why, and the
	// positions they rest on. EmitsLifecycleEvents is its first send of a
	// lifecycle event on a channel; UpdatesPodCache its first call of Set
	// on the pod cache (a value of the type whose Set the generic PLEG
	// calls on its own field, or of a type Cache of a package
	// .../pkg/kubelet/container); RequestsRelist its first call asking
	// the generic PLEG to relist (a method of the generic PLEG, called
	// directly or through an interface it implements, that enqueues a
	// request on a channel of its own that another of its methods
	// receives from); RelistOnStreamError the first call, in a branch run
	// when a stream call returns an error, that makes the generic PLEG
	// relist at once. The kubelet's side (Constructed, HealthCheck,
	// OnStreamFailure.After) is left empty.
	EventedRole
}

// ForcedRelist is a call of the evented PLEG that runs the generic PLEG's
// relist at once when a stream call fails (e.Relist() in the
// "if err != nil" after GetContainerEvents). The callee is recognised by
// type and by what it does: a method of the generic PLEG, called directly,
// through an interface the generic PLEG implements, or through a method
// of the evented PLEG (or a function of the package) that calls it, whose
// own calls, before it returns, write the pod cache. A method that only
// enqueues a request (RelistRequest) is not one.
type ForcedRelist struct {
	Pos srcpos.Pos `json:"pos"` // the call in the stream-error branch
	// Stream is the stream call whose error the branch tests.
	Stream srcpos.Pos `json:"stream"`
	// Relist is the generic PLEG's relist, as "GenericPLEG.Relist";
	// RelistDecl its declaration.
	Relist     string     `json:"relist"`
	RelistDecl srcpos.Pos `json:"relistDecl"`
	// UpdatesPodCache is the relist's first write to the pod cache, and
	// EmitsLifecycleEvents its first send of a pod lifecycle event (nil
	// when it sends none), reached from Relist through calls of the
	// generic PLEG's methods and the package's functions, not through go
	// statements or function literals.
	UpdatesPodCache      srcpos.Pos  `json:"updatesPodCache"`
	EmitsLifecycleEvents *srcpos.Pos `json:"emitsLifecycleEvents"`
}

// RelistRequest is the evented PLEG's call asking the generic PLEG for a
// relist.
type RelistRequest struct {
	Pos srcpos.Pos `json:"pos"` // the call
	// Callee is the generic PLEG's method that enqueues the request,
	// as "GenericPLEG.RequestRelist".
	Callee string `json:"-"`
	// EventTypes are the container event types (values of a type named
	// ContainerEventType, by their constants' names without the
	// "ContainerEventType_" prefix) that reach the call, read from the
	// tests guarding it and every call leading to it from Start: an
	// if ... { continue } before it, an if or a switch case around it.
	// [AllEventTypes] when no such test guards it; an empty list when the
	// tests let no type through.
	EventTypes []string `json:"eventTypes"`
	// Guard is a test of the event type that guards the call (its own
	// first, else one around a call leading to it); the zero Pos when
	// unguarded.
	Guard srcpos.Pos `json:"-"`
	// Gate is the feature gate the callee tests before it enqueues (an
	// early "if !Enabled(gate) { return }"), "!NAME" when it enqueues
	// only with the gate off, nil when it tests none. GatePos is the test.
	Gate    *string    `json:"gate"`
	GatePos srcpos.Pos `json:"-"`
	// GateUnresolved says why a test before the enqueue that may be a
	// gate test could not be followed; "" otherwise.
	GateUnresolved string `json:"-"`
}

// StreamFailure is what the evented PLEG does once its failed-stream
// count reaches its retries: in the branch of the if comparing them that
// runs then (or, after a loop running while retries remain, what follows
// the loop).
type StreamFailure struct {
	// After is how many failed streams it tolerates first: the kubelet's
	// construction's value.
	After  *RetryCount `json:"after"`
	Action string      `json:"action"` // RestoreGenericRelist, StopWatching or FailureUnknown
	// Pos is the call handing over the relist duration, or the return
	// (or break), or the function's closing brace when it just ends.
	Pos  *srcpos.Pos `json:"pos"`
	Test srcpos.Pos  `json:"-"` // the if (or loop) comparing the count with the retries
	Why  string      `json:"-"` // set when Action is FailureUnknown
}

// role is the evented PLEG's role, and why when it is unknown.
func (l *EventLoop) role() (Role, string) {
	switch {
	case l.EmitsLifecycleEvents != nil:
		return EventSource, ""
	case l.RequestsRelist != nil:
		return RelistTrigger, ""
	case len(l.Reached) == 0:
		return RoleUnknown, "the evented PLEG has no Start method: plegvet found no event loop to read"
	}
	what := "sends no " + l.EventType
	if l.EventType == "" {
		what = "sends no pod lifecycle event (no Watch-like method of a PLEG returns a channel, so their type is not known)"
	}
	return RoleUnknown, fmt.Sprintf("its event loop (%s) %s and asks the generic PLEG for no relist", strings.Join(l.Reached, ", "), what)
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
}

func newLoopReader(fset *token.FileSet, files []*ast.File, info *types.Info, generic, relistType *types.TypeName, ctors []*Constructor) *loopReader {
	r := &loopReader{
		fset: fset, info: info, generic: generic, relistType: relistType,
		decls: map[*types.Func]*ast.FuncDecl{}, fileOf: map[*ast.FuncDecl]*ast.File{},
		fieldExpr: map[*types.Var]ast.Expr{}, caches: map[string]bool{}, requests: map[string]*types.Func{},
		gates: newGateReader(files, info),
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

// readGeneric finds, in the generic PLEG's methods, the pod cache (the
// type of the field it calls Set on) and the methods that enqueue a
// relist request: a send, on a channel field of the receiver that is not
// a lifecycle event channel, that another of its methods receives from.
func (r *loopReader) readGeneric(methods []*ast.FuncDecl) {
	slices.SortFunc(methods, func(a, b *ast.FuncDecl) int { return cmp.Compare(a.Pos(), b.Pos()) })
	received := map[string]*ast.FuncDecl{} // channel fields received from, and where
	type send struct {
		field string
		fd    *ast.FuncDecl
	}
	var sends []send
	for _, fd := range methods {
		recv := receiverObj(r.info, fd)
		field := func(e ast.Expr) string { // the receiver's field e is (g.f), or ""
			if p, ok := receiverPath(r.info, recv, e); ok && p.sub == "" {
				return p.field
			}
			return ""
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "Set" {
					if v := fieldVar(r.generic, field(sel.X)); v != nil {
						if k := r.varKey(v); k != "" {
							r.caches[k] = true
						}
					}
				}
			case *ast.UnaryExpr:
				if f := field(n.X); n.Op == token.ARROW && f != "" {
					received[f] = fd
				}
			case *ast.RangeStmt:
				if f := field(n.X); f != "" && chanElem(r.info.TypeOf(n.X)) != nil {
					received[f] = fd
				}
			case *ast.SendStmt:
				if f := field(n.Chan); f != "" && !r.isEvent(chanElem(r.info.TypeOf(n.Chan))) {
					sends = append(sends, send{f, fd})
				}
			}
			return true
		})
	}
	for _, s := range sends {
		if by, ok := received[s.field]; ok && by != s.fd {
			if fn, ok := r.info.Defs[s.fd.Name].(*types.Func); ok {
				r.requests[fn.Name()] = fn
			}
		}
	}
}

// fieldVar is tn's field called name, or nil.
func fieldVar(tn *types.TypeName, name string) *types.Var {
	if st, ok := tn.Type().Underlying().(*types.Struct); ok {
		for v := range st.Fields() {
			if v.Name() == name {
				return v
			}
		}
	}
	return nil
}

// typeKey names a named type (or a pointer to one) by its package path
// and name: "k8s.io/kubernetes/pkg/kubelet/container.Cache".
func typeKey(t types.Type) string {
	tn := namedOf(t)
	if tn == nil || tn.Pkg() == nil {
		return ""
	}
	return tn.Pkg().Path() + "." + tn.Name()
}

// varKey is the key of a variable's type; for a field whose type did not
// type-check (its package was stubbed) it is read from the field's
// declaration: the import path its package name stands for, and the name.
func (r *loopReader) varKey(v *types.Var) string {
	if t := v.Type(); t != nil && t != types.Typ[types.Invalid] {
		return typeKey(t)
	}
	e := r.fieldExpr[v]
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch x := e.(type) {
	case *ast.SelectorExpr:
		if pn, ok := astobj.Of(r.info, x.X).(*types.PkgName); ok {
			return pn.Imported().Path() + "." + x.Sel.Name
		}
	case *ast.Ident:
		if tn, ok := r.info.Uses[x].(*types.TypeName); ok && tn.Pkg() != nil {
			return tn.Pkg().Path() + "." + tn.Name()
		}
	}
	return ""
}

// isPodCache reports whether a type key is the pod cache: the generic
// PLEG writes it, or it is Cache of the kubelet's container package.
func (r *loopReader) isPodCache(key string) bool {
	return key != "" && (r.caches[key] || strings.HasSuffix(key, "/pkg/kubelet/container.Cache") || key == "pkg/kubelet/container.Cache")
}

// cacheSet reports whether call is Set on the pod cache.
func (r *loopReader) cacheSet(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Set" {
		return false
	}
	if k := typeKey(r.info.TypeOf(sel.X)); k != "" {
		return r.isPodCache(k)
	}
	if v, ok := astobj.Of(r.info, sel.X).(*types.Var); ok {
		return r.isPodCache(r.varKey(v))
	}
	return false
}

// relistCallee returns the generic PLEG's relist-request method a call
// reaches: the method itself, or an interface method the generic PLEG
// implements with it.
func (r *loopReader) relistCallee(call *ast.CallExpr) *types.Func {
	fn := astobj.Func(r.info, call)
	if fn == nil {
		return nil
	}
	fn = fn.Origin()
	if target := r.requests[fn.Name()]; target != nil && (fn == target || r.genericImplements(fn)) {
		return target
	}
	return nil
}

// genericImplements reports whether fn is a method of an interface the
// generic PLEG implements.
func (r *loopReader) genericImplements(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	iface, ok := recv.Type().Underlying().(*types.Interface)
	return ok && types.Implements(types.NewPointer(r.generic.Type()), iface)
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
	l.RelistOnStreamError = r.forcedRelist(reached, evented)
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

// forcedRelist finds, in the functions reached from Start (in the order
// reached), the first call in a stream-error branch that runs the generic
// PLEG's relist; nil when there is none, or no generic PLEG.
func (r *loopReader) forcedRelist(reached []*types.Func, evented *types.TypeName) *ForcedRelist {
	if r.generic == nil {
		return nil
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
				if m := r.relistOf(call, evented, 0); m != nil {
					found = &ForcedRelist{Pos: srcpos.Of(r.fset, call.Pos()), Stream: srcpos.Of(r.fset, stream), Relist: funcName(m), RelistDecl: srcpos.Of(r.fset, m.Pos())}
					found.UpdatesPodCache, found.EmitsLifecycleEvents = r.relistEffects(m)
				}
				return found == nil
			})
			return found == nil
		})
		if found != nil {
			return found
		}
	}
	return nil
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

// retriesTest reads a comparison with the receiver's retries field:
// whether it is one, and whether it holds once the retries are spent
// ("attempts >= e.retries", "e.retries <= attempts", "attempts ==
// e.retries") rather than while some remain ("attempts < e.retries").
func (r *loopReader) retriesTest(recv types.Object, cond ast.Expr, retries fieldPath) (ok, spentWhenHolds bool) {
	b, isBin := ast.Unparen(cond).(*ast.BinaryExpr)
	if !isBin {
		return false, false
	}
	onRight := false
	if p, ok := receiverPath(r.info, recv, b.Y); ok && p == retries {
		onRight = true
	} else if p, ok := receiverPath(r.info, recv, b.X); !ok || p != retries {
		return false, false
	}
	switch b.Op {
	case token.EQL:
		return true, true
	case token.GTR, token.GEQ:
		return true, onRight
	case token.LSS, token.LEQ:
		return true, !onRight
	}
	return false, false
}

// onFailure reads the code run once the retries are spent: a call
// handing over a relist duration (restore), else a return or a break out
// of the loop (stop), else unknown. at is the test; spent the statements
// run when the retries are spent; end says they run to the function's end.
func (r *loopReader) onFailure(at token.Pos, spent []ast.Stmt, end token.Pos) *StreamFailure {
	f := &StreamFailure{Test: srcpos.Of(r.fset, at)}
	block := &ast.BlockStmt{List: spent}
	if r.relistType != nil {
		if call := first(block, func(c *ast.CallExpr) bool {
			return slices.ContainsFunc(c.Args, func(a ast.Expr) bool { return namedOf(r.info.TypeOf(a)) == r.relistType })
		}); call != nil {
			f.Action, f.Pos = RestoreGenericRelist, srcpos.At(r.fset, call.Pos())
			return f
		}
	}
	if s := stops(block, true); s != nil {
		f.Action, f.Pos = StopWatching, srcpos.At(r.fset, s.Pos())
		return f
	}
	if end.IsValid() {
		f.Action, f.Pos = StopWatching, srcpos.At(r.fset, end)
		return f
	}
	f.Action = FailureUnknown
	f.Why = "what runs once the retries are spent neither hands a relist duration to the generic PLEG nor returns"
	if r.relistType == nil {
		f.Why += " (no relist-duration type was found: the package has no generic PLEG relisting on one)"
	}
	return f
}

// failureBranch reads, at an if or a loop testing the retries, the code
// run once they are spent; nil when n is neither. A loop running while
// retries remain is followed by that code in its block (rest); when
// nothing but the function's end follows it, it stops watching there.
func (r *loopReader) failureBranch(recv types.Object, n ast.Node, rest []ast.Stmt, funcEnd token.Pos, retries fieldPath) *StreamFailure {
	switch n := n.(type) {
	case *ast.IfStmt:
		ok, spent := r.retriesTest(recv, n.Cond, retries)
		if !ok {
			return nil
		}
		if spent {
			return r.onFailure(n.Pos(), n.Body.List, token.NoPos)
		}
		if b, isBlock := n.Else.(*ast.BlockStmt); isBlock {
			return r.onFailure(n.Pos(), b.List, token.NoPos)
		}
		return r.onFailure(n.Pos(), rest, endIfLast(rest, funcEnd))
	case *ast.ForStmt:
		ok, spent := r.retriesTest(recv, n.Cond, retries)
		if !ok || spent {
			return nil
		}
		return r.onFailure(n.Pos(), rest, endIfLast(rest, funcEnd))
	}
	return nil
}

// endIfLast is funcEnd when no statement follows (the function ends).
func endIfLast(rest []ast.Stmt, funcEnd token.Pos) token.Pos {
	if len(rest) == 0 {
		return funcEnd
	}
	return token.NoPos
}

// stops finds a return in n, or, with breaks, a break leaving the
// enclosing loop (not inside a nested loop, switch or select); never inside
// a function literal.
func stops(n ast.Node, breaks bool) ast.Stmt {
	var found ast.Stmt
	ast.Inspect(n, func(m ast.Node) bool {
		if found != nil {
			return false
		}
		switch s := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if breaks { // a return still leaves; a break no longer does
				found = stops(s, false)
				return false
			}
		case *ast.ReturnStmt:
			found = s
		case *ast.BranchStmt:
			if breaks && s.Tok == token.BREAK && s.Label == nil {
				found = s
			}
		}
		return true
	})
	return found
}

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

// eventSet is a set of container event types: the names in, or, with
// except, every type but those.
type eventSet struct {
	in     []string
	except bool
	typ    *types.Named // the enum, when typed: to list a complement
}

var allEvents = eventSet{except: true}

func (s eventSet) has(n string) bool { return slices.Contains(s.in, n) }

func union(a, b eventSet) eventSet {
	typ := cmp.Or(a.typ, b.typ)
	if a.except && !b.except {
		a, b = b, a
	}
	switch {
	case !a.except && !b.except:
		return eventSet{in: append(slices.Clone(a.in), filter(b.in, a, false)...), typ: typ}
	case a.except:
		return eventSet{in: filter(a.in, b, true), except: true, typ: typ}
	}
	// a lists, b excepts.
	return eventSet{in: filter(b.in, a, false), except: true, typ: typ}
}

// intersect is union's dual: the complement of the union of complements.
func intersect(a, b eventSet) eventSet {
	return union(a.complement(), b.complement()).complement()
}

// filter is the names of ns that are in s (or, with !in, not in s).
func filter(ns []string, s eventSet, in bool) []string {
	var out []string
	for _, n := range ns {
		if s.has(n) == in {
			out = append(out, n)
		}
	}
	return out
}

func (s eventSet) complement() eventSet {
	return eventSet{in: s.in, except: !s.except, typ: s.typ}
}

// names lists the set: [AllEventTypes] for every type, the enum's other
// constants for a complement when the enum is typed, else "all except X".
func (s eventSet) names() []string {
	if !s.except {
		return s.in
	}
	if len(s.in) == 0 {
		return []string{AllEventTypes}
	}
	if s.typ != nil {
		var out []string
		for _, c := range enumConsts(s.typ) {
			if n := constName(c, s.typ.Obj().Name()); !s.has(n) {
				out = append(out, n)
			}
		}
		return out
	}
	return []string{AllEventTypes + " except " + strings.Join(s.in, ", ")}
}

// enumConsts are the constants of an enum type in its package, by value.
func enumConsts(typ *types.Named) []*types.Const {
	pkg := typ.Obj().Pkg() // never nil: ContainerEventType is no universe type
	var out []*types.Const
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok && types.Identical(c.Type(), typ) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return constant.Compare(out[i].Val(), token.LSS, out[j].Val()) })
	return out
}

func constName(c *types.Const, typeName string) string {
	return strings.TrimPrefix(c.Name(), typeName+"_")
}

// eventTypeName is the name of a container event type constant: typed,
// a constant of a type named ContainerEventType; untyped (its package was
// stubbed), a selector pkg.ContainerEventType_X.
func (r *loopReader) eventTypeName(e ast.Expr) (string, *types.Named, bool) {
	e = ast.Unparen(e)
	if tv, ok := r.info.Types[e]; ok && tv.Value != nil {
		n, ok := types.Unalias(tv.Type).(*types.Named)
		if !ok || n.Obj().Name() != "ContainerEventType" {
			return "", nil, false
		}
		if c := astobj.Const(r.info, e); c != nil {
			return constName(c, n.Obj().Name()), n, true
		}
		return tv.Value.ExactString(), n, true
	}
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if _, isPkg := astobj.Of(r.info, sel.X).(*types.PkgName); isPkg {
			if rest, ok := strings.CutPrefix(sel.Sel.Name, "ContainerEventType_"); ok {
				return rest, nil, true
			}
		}
	}
	return "", nil, false
}

// eventTest reads a condition with truth holds as the event types it
// lets through; tests of anything else let every type through. tested
// says whether an event type was tested at all.
func (r *loopReader) eventTest(cond ast.Expr, holds bool) (set eventSet, tested bool) {
	switch x := ast.Unparen(cond).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return r.eventTest(x.X, !holds)
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND, token.LOR:
			a, ta := r.eventTest(x.X, holds)
			b, tb := r.eventTest(x.Y, holds)
			if (x.Op == token.LAND) == holds {
				return intersect(a, b), ta || tb
			}
			return union(a, b), ta || tb
		case token.EQL, token.NEQ:
			name, typ, ok := r.eventTypeName(x.Y)
			if !ok {
				name, typ, ok = r.eventTypeName(x.X)
			}
			if !ok {
				return allEvents, false
			}
			s := eventSet{in: []string{name}, typ: typ}
			if (x.Op == token.EQL) != holds {
				s = s.complement()
			}
			return s, true
		}
	}
	return allEvents, false
}

// guards reads the tests of the event type on the path to call: earlier
// "if test { continue }" (or return) in enclosing blocks, enclosing ifs,
// and switch cases.
func (r *loopReader) guards(file *ast.File, at ast.Node) (eventSet, token.Pos) {
	set := allEvents
	var guard token.Pos
	note := func(s eventSet, tested bool, at token.Pos) {
		if tested {
			set = intersect(set, s)
			if !guard.IsValid() || at < guard {
				guard = at
			}
		}
	}
	path, _ := astutil.PathEnclosingInterval(file, at.Pos(), at.End())
	for i := 1; i < len(path); i++ {
		child := path[i-1]
		switch n := path[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return set, guard
		case *ast.IfStmt:
			if child == n.Body || child == n.Else {
				s, t := r.eventTest(n.Cond, child == n.Body)
				note(s, t, n.Pos())
			}
		case *ast.BlockStmt:
			for _, s := range n.List {
				if s.Pos() >= child.Pos() {
					break
				}
				ifs, ok := s.(*ast.IfStmt)
				if !ok || ifs.Else != nil || !leaves(ifs.Body, true) {
					continue
				}
				es, t := r.eventTest(ifs.Cond, false)
				note(es, t, ifs.Pos())
			}
		case *ast.CaseClause:
			if i+2 < len(path) {
				if sw, ok := path[i+2].(*ast.SwitchStmt); ok && sw.Tag != nil {
					s, t := r.caseSet(sw, n)
					note(s, t, n.Pos())
				}
			}
		}
	}
	return set, guard
}

// caseSet is the event types a switch case on the event type takes.
func (r *loopReader) caseSet(sw *ast.SwitchStmt, cc *ast.CaseClause) (eventSet, bool) {
	list := func(c *ast.CaseClause) (eventSet, bool) {
		s := eventSet{in: []string{}}
		for _, e := range c.List { // never empty: default is handled below
			name, typ, ok := r.eventTypeName(e)
			if !ok {
				return allEvents, false
			}
			s = union(s, eventSet{in: []string{name}, typ: typ})
		}
		return s, true
	}
	if cc.List != nil {
		return list(cc)
	}
	// default: every type no other case takes.
	others := eventSet{in: []string{}}
	tested := false
	for _, st := range sw.Body.List {
		if c, ok := st.(*ast.CaseClause); ok && c != cc {
			s, t := list(c)
			if !t {
				return allEvents, false
			}
			others, tested = union(others, s), true
		}
	}
	return others.complement(), tested
}

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
		}
		c.EventLoop = r.read(structOf[c], usages[structOf[c]])
		c.Evented = &c.EventLoop.EventedRole
	}
}
