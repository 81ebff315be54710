package plegperiods

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// Kind says which PLEG a constructor builds.
type Kind string

const (
	// Generic PLEGs relist on a period: a relist loop consumes a duration.
	Generic Kind = "generic"
	// Evented PLEGs consume the runtime's container event stream.
	Evented Kind = "evented"
)

// ParamRef names where a constructor takes a value: parameter Index (-1:
// it takes none), and, when the parameter is a struct (RelistDuration),
// which of its fields.
type ParamRef struct {
	Index int
	Field string
}

func (p ParamRef) ok() bool { return p.Index >= 0 }

var none = ParamRef{Index: -1}

// Constructor is a function of the pleg package that builds a PLEG.
type Constructor struct {
	Func   *types.Func
	Struct string // the struct it builds
	// StreamCalls are the calls that read the container event stream
	// (GetContainerEvents) in the struct's methods.
	StreamCalls []StreamCall
	// EventLoop is what an evented PLEG's event loop does; nil for a
	// generic PLEG.
	EventLoop *EventLoop
	Shape
}

// Shape is what the packages that call a constructor need to read their
// calls: which parameter feeds what, and what the PLEG it builds does. It
// crosses packages (as an analysis fact), so its positions are resolved.
type Shape struct {
	Kind Kind

	// Period feeds the relist loop; Threshold the health check.
	Period, Threshold ParamRef
	// ThresholdConst is the health threshold when it is a constant of
	// the pleg package rather than a parameter (before v1.26).
	ThresholdConst *Value
	// PeriodField and ThresholdField are the period's and threshold's
	// fields in the relist-duration struct (from the generic constructor
	// of the same package), to read what the fallback restores.
	PeriodField, ThresholdField string
	// Retries is how many failed streams the evented PLEG tolerates.
	Retries ParamRef
	// Fallback is the relist duration the evented PLEG restores on the
	// generic PLEG after the stream fails for good; Index -1 when it
	// restores nothing. FallbackThreshold is the threshold it restores
	// beside a bare period; Index -1 when it restores none that way.
	Fallback, FallbackThreshold ParamRef
	// FallbackConst and FallbackThresholdConst are the values restored
	// when written at the call handing them over rather than taken from
	// the constructor's parameters (unresolved, with why, when they are
	// not constants).
	FallbackConst, FallbackThresholdConst *Value

	Loop     srcpos.Pos // where the relist loop consumes the period
	LoopCall string     // how: "wait.Until", "Reset", ...
	// Evented is what an evented PLEG's event loop does, its role and
	// the positions it rests on (EventLoop's); nil for a generic PLEG.
	Evented *EventedRole
	// Health is what the PLEG's health method checks; nil without one.
	Health *HealthMethod
	// Reconcile is how a generic PLEG's relist reconciles; nil for an
	// evented PLEG.
	Reconcile *Reconcile
}

// StreamCall is a call of the CRI client's GetContainerEvents.
type StreamCall struct {
	Pos srcpos.Pos
	// Method is the method called, as go/types prints it; "" when its
	// type is not known (its package was not loaded).
	Method string
	// Shape is how the Go method hands over the server stream: "stream"
	// (it returns a value with Recv), "channel" (it takes a channel it
	// fills from the stream), "unary" (neither: one response), or
	// "unknown".
	Shape string
}

// streamShape classifies the signature of a GetContainerEvents method.
func streamShape(fn *types.Func) string {
	if fn == nil {
		return "unknown"
	}
	for res := range fn.Signature().Results().Variables() {
		obj, _, _ := types.LookupFieldOrMethod(res.Type(), true, nil, "Recv")
		if _, isFunc := obj.(*types.Func); isFunc {
			return "stream"
		}
	}
	for p := range fn.Signature().Params().Variables() {
		if _, isChan := p.Type().Underlying().(*types.Chan); isChan {
			return "channel"
		}
	}
	return "unary"
}

// fieldPath is a selection rooted at a method's receiver: g.f or g.f.sub.
type fieldPath struct {
	field, sub string
}

// receiverPath reports whether e is recv.field or recv.field.sub for the
// receiver variable recv.
func receiverPath(info *types.Info, recv types.Object, e ast.Expr) (fieldPath, bool) {
	isRecv := func(x ast.Expr) bool { return recv != nil && astobj.Of(info, x) == recv }
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return fieldPath{}, false
	}
	if isRecv(sel.X) {
		return fieldPath{field: sel.Sel.Name}, true
	}
	if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok && isRecv(inner.X) {
		return fieldPath{field: inner.Sel.Name, sub: sel.Sel.Name}, true
	}
	return fieldPath{}, false
}

// funcDecls yields the package's functions and methods that have a body,
// with their file, in source order.
func funcDecls(files []*ast.File) iter.Seq2[*ast.File, *ast.FuncDecl] {
	return func(yield func(*ast.File, *ast.FuncDecl) bool) {
		for _, f := range files {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && !yield(f, fd) {
					return
				}
			}
		}
	}
}

// methodsOf groups the package's methods by the struct they belong to.
func methodsOf(files []*ast.File, info *types.Info) map[*types.TypeName][]*ast.FuncDecl {
	out := map[*types.TypeName][]*ast.FuncDecl{}
	for _, fd := range funcDecls(files) {
		if fd.Recv == nil || len(fd.Recv.List) == 0 {
			continue
		}
		if tn := namedOf(info.TypeOf(fd.Recv.List[0].Type)); tn != nil {
			out[tn] = append(out[tn], fd)
		}
	}
	return out
}

func namedOf(t types.Type) *types.TypeName {
	if t == nil {
		return nil
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj()
	}
	return nil
}

// receiverObj is a method's receiver variable; nil for a function or an
// unnamed receiver.
func receiverObj(info *types.Info, fd *ast.FuncDecl) types.Object {
	if fd.Recv == nil || len(fd.Recv.List) == 0 || len(fd.Recv.List[0].Names) == 0 { // "func () M()" parses
		return nil
	}
	return info.Defs[fd.Recv.List[0].Names[0]]
}

// usage is what the methods of one PLEG struct do with its fields.
type usage struct {
	loop                           fieldPath
	loopPos                        token.Pos
	loopCall                       string
	threshold                      fieldPath
	thresholdConst                 ast.Expr // the threshold, when a constant rather than a field
	retries                        fieldPath
	fallback, fallbackThreshold    fieldPath
	streams                        []*ast.CallExpr // of GetContainerEvents
	hasLoop, hasThreshold, hasRetr bool
	hasFallback                    bool
	hasFallbackThreshold           bool
	// fallbackArgs are the period and threshold (nil: none) handed over
	// as written at the call, when not held by the receiver's fields.
	fallbackArgs [2]ast.Expr
}

// loopFuncs are the functions and methods through which a relist loop
// consumes its period: k8s.io/apimachinery/pkg/util/wait's loops, and a
// timer's or ticker's Reset and constructors.
var loopMethods = map[string]bool{"Reset": true, "NewTimer": true, "NewTicker": true, "Tick": true}

func calleeName(info *types.Info, call *ast.CallExpr) (pkgPath, name string) {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		if pn, ok := astobj.Of(info, f.X).(*types.PkgName); ok {
			return pn.Imported().Path(), f.Sel.Name
		}
		return "", f.Sel.Name
	case *ast.Ident:
		return "", f.Name
	}
	return "", ""
}

func isWait(path string) bool {
	return path == "k8s.io/apimachinery/pkg/util/wait" || strings.HasSuffix(path, "/vendor/k8s.io/apimachinery/pkg/util/wait")
}

func (u *usage) scan(info *types.Info, fd *ast.FuncDecl, relistType *types.TypeName) {
	recv := receiverObj(info, fd)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			pkg, name := calleeName(info, n)
			if name == "GetContainerEvents" {
				u.streams = append(u.streams, n)
			}
			if (isWait(pkg) || (pkg == "" || pkg == "time") && loopMethods[name]) && !u.hasLoop {
				for _, a := range n.Args {
					if p, ok := receiverPath(info, recv, a); ok && isDuration(info.TypeOf(a)) {
						u.loop, u.loopPos, u.hasLoop = p, n.Pos(), true
						u.loopCall = name
						if isWait(pkg) {
							u.loopCall = "wait." + name
						}
					}
				}
			}
			// A method call handing a relist duration held by the receiver
			// to someone (EventedPLEG.Update(e.relistDuration)): the fallback.
			if _, isSel := ast.Unparen(n.Fun).(*ast.SelectorExpr); isSel && pkg == "" && !u.hasFallback {
				for _, a := range n.Args {
					if p, ok := receiverPath(info, recv, a); ok && p.sub == "" && relistType != nil && namedOf(info.TypeOf(a)) == relistType {
						u.fallback, u.hasFallback = p, true
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op != token.GTR && n.Op != token.GEQ && n.Op != token.LSS && n.Op != token.LEQ {
				return true
			}
			for _, side := range []ast.Expr{n.X, n.Y} {
				if p, ok := receiverPath(info, recv, side); ok {
					t := info.TypeOf(side)
					switch {
					case isDuration(t) && fd.Name.Name == "Healthy" && !u.hasThreshold:
						u.threshold, u.hasThreshold = p, true
					case t != nil && isInt(t) && !u.hasRetr:
						u.retries, u.hasRetr = p, true
					}
				}
				// A named constant, or a constant expression of them
				// (staleAfter + time.Minute): its value is computed.
				if tv, ok := info.Types[side]; ok && tv.Value != nil && isDuration(tv.Type) && fd.Name.Name == "Healthy" && !u.hasThreshold {
					u.thresholdConst, u.hasThreshold = side, true
				}
			}
		}
		return true
	})
}

func isInt(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// Constructors finds the PLEG constructors of a package (pkg/kubelet/pleg):
// functions that return a composite literal of a struct whose methods run
// a relist loop (generic) or read the container event stream (evented).
func Constructors(fset *token.FileSet, files []*ast.File, info *types.Info) []*Constructor {
	methods := methodsOf(files, info)
	res := newResolver(fset, files, info)
	// The relist-duration type is whatever struct the generic PLEG's
	// period field has (pleg.RelistDuration); found by the first pass.
	usages := map[*types.TypeName]*usage{}
	var relistType *types.TypeName
	structs := slices.SortedFunc(maps.Keys(methods), func(a, b *types.TypeName) int { return cmp.Compare(a.Pos(), b.Pos()) })
	scanAll := func() {
		for _, tn := range structs {
			u := &usage{}
			for _, fd := range methods[tn] {
				u.scan(info, fd, relistType)
			}
			usages[tn] = u
		}
	}
	scanAll()
	for _, tn := range structs {
		if u := usages[tn]; u.hasLoop && u.loop.sub != "" && relistType == nil {
			if v := fieldVar(tn, u.loop.field); v != nil {
				relistType = namedOf(v.Type())
			}
		}
	}
	if relistType != nil { // second pass: fallbacks hand over a relist duration
		scanAll()
	}
	generic := genericStruct(structs, usages)
	if flow := newDurationFlow(fset, files, info, generic, usages[generic]); flow != nil {
		for _, tn := range structs { // the evented PLEG hands over bare durations
			if u := usages[tn]; !u.hasLoop && len(u.streams) > 0 && !u.hasFallback {
				flow.bareFallback(u, methods[tn])
			}
		}
	}
	var out []*Constructor
	structOf := map[*Constructor]*types.TypeName{}
	for _, fd := range funcDecls(files) {
		fn, _ := info.Defs[fd.Name].(*types.Func)
		if fd.Recv != nil || fn == nil {
			continue
		}
		lit, tn := returnedStruct(info, fd)
		if lit == nil {
			continue
		}
		u := usages[tn]
		if u == nil {
			continue
		}
		c := &Constructor{Func: fn, Struct: tn.Name(), Shape: Shape{Period: none, Threshold: none, Retries: none, Fallback: none, FallbackThreshold: none}}
		switch {
		case u.hasLoop:
			c.Kind = Generic
		case len(u.streams) > 0:
			c.Kind = Evented
		default:
			continue
		}
		fields := fieldParams(info, lit, paramIndex(info, fd))
		if u.hasLoop {
			c.Period = ref(fields, u.loop)
			c.Loop, c.LoopCall = srcpos.Of(fset, u.loopPos), u.loopCall
		}
		if u.hasThreshold {
			if u.thresholdConst != nil {
				c.ThresholdConst = res.Value(u.thresholdConst)
			} else {
				c.Threshold = ref(fields, u.threshold)
			}
		}
		if u.hasRetr && c.Kind == Evented {
			c.Retries = ref(fields, u.retries)
		}
		if a := u.fallbackArgs; a[0] != nil && c.Kind == Evented {
			c.FallbackConst = res.Value(a[0])
			if a[1] != nil {
				c.FallbackThresholdConst = res.Value(a[1])
			}
		}
		if u.hasFallback && c.Kind == Evented {
			c.Fallback = ref(fields, u.fallback)
			if u.hasFallbackThreshold {
				c.FallbackThreshold = ref(fields, u.fallbackThreshold)
			}
		}
		c.Health = readHealthMethod(fset, info, tn, methods[tn], fields)
		if c.Kind == Generic {
			c.Reconcile = readReconcile(fset, files, info, methods[tn], u.loopPos)
		}
		for _, call := range u.streams {
			method := astobj.Func(info, call)
			sc := StreamCall{Pos: srcpos.Of(fset, call.Pos()), Shape: streamShape(method)}
			if method != nil {
				sc.Method = types.ObjectString(method, nil)
			}
			c.StreamCalls = append(c.StreamCalls, sc)
		}
		out = append(out, c)
		structOf[c] = tn
	}
	for _, c := range out {
		if c.Kind == Generic && c.Period.Field != "" {
			for _, d := range out {
				d.PeriodField, d.ThresholdField = c.Period.Field, c.Threshold.Field
			}
		}
	}
	readEventLoops(fset, files, info, out, structOf, usages, relistType)
	return out
}

// genericStruct is the first struct whose methods run a relist loop; nil
// when none does.
func genericStruct(structs []*types.TypeName, usages map[*types.TypeName]*usage) *types.TypeName {
	for _, tn := range structs {
		if usages[tn].hasLoop {
			return tn
		}
	}
	return nil
}

func ref(fields map[string]int, p fieldPath) ParamRef {
	i, ok := fields[p.field]
	if !ok {
		return none
	}
	return ParamRef{Index: i, Field: p.sub}
}

// returnedStruct finds the struct literal a function returns (&T{...}).
func returnedStruct(info *types.Info, fd *ast.FuncDecl) (*ast.CompositeLit, *types.TypeName) {
	var lit *ast.CompositeLit
	var tn *types.TypeName
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || lit != nil {
			return lit == nil
		}
		for _, r := range ret.Results {
			e := ast.Unparen(r)
			if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
				e = ast.Unparen(u.X)
			}
			if cl, ok := e.(*ast.CompositeLit); ok {
				if t := namedOf(info.TypeOf(cl)); t != nil {
					if _, isStruct := t.Type().Underlying().(*types.Struct); isStruct {
						lit, tn = cl, t
						return false
					}
				}
			}
		}
		return true
	})
	return lit, tn
}

func paramIndex(info *types.Info, fd *ast.FuncDecl) map[types.Object]int {
	out := map[types.Object]int{}
	i := 0
	for _, field := range fd.Type.Params.List {
		for j, n := range field.Names {
			if obj := info.Defs[n]; obj != nil {
				out[obj] = i + j
			}
		}
		i += max(len(field.Names), 1) // an unnamed parameter counts too
	}
	return out
}

// fieldParams maps the literal's fields to the parameters assigned to them.
func fieldParams(info *types.Info, lit *ast.CompositeLit, params map[types.Object]int) map[string]int {
	out := map[string]int{}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			k, isKey := kv.Key.(*ast.Ident)
			if i, isParam := params[astobj.Of(info, kv.Value)]; isKey && isParam {
				out[k.Name] = i
			}
		}
	}
	return out
}
