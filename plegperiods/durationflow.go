// Where bare durations handed over by the evented PLEG end: through the
// parameters of the methods and functions they are passed to, in the
// generic PLEG's relist period or health threshold field.

package plegperiods

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// durationFlow follows durations to the fields of a generic PLEG that
// holds its period and threshold bare (time.Duration fields rather than
// one relist-duration struct).
type durationFlow struct {
	fset              *token.FileSet
	info              *types.Info
	decls             map[*types.Func]*ast.FuncDecl
	generic           *types.TypeName
	period, threshold string // the generic PLEG's fields
}

// newDurationFlow is nil unless the generic PLEG's loop reads a bare
// duration field of its own.
func newDurationFlow(fset *token.FileSet, files []*ast.File, info *types.Info, generic *types.TypeName, u *usage) *durationFlow {
	if generic == nil || u == nil || !u.hasLoop || u.loop.sub != "" {
		return nil
	}
	d := &durationFlow{fset: fset, info: info, decls: map[*types.Func]*ast.FuncDecl{}, generic: generic, period: u.loop.field}
	if u.hasThreshold && u.thresholdConst == nil && u.threshold.sub == "" {
		d.threshold = u.threshold.field
	}
	for _, fd := range funcDecls(files) {
		if fn, ok := info.Defs[fd.Name].(*types.Func); ok {
			d.decls[fn] = fd
		}
	}
	return d
}

// handover is what one call does with the durations it is passed.
type handover struct {
	// period and threshold are the caller's receiver fields passed on to
	// the generic PLEG's period and threshold (set when has*).
	period, threshold       fieldPath
	hasPeriod, hasThreshold bool
	// periodArg and thresholdArg are the arguments as written.
	periodArg, thresholdArg ast.Expr
	// why names an argument that could not be followed, and why.
	why string
}

// handover reads the duration arguments of call, made in a method whose
// receiver is recv (nil: any function).
func (d *durationFlow) handover(recv types.Object, call *ast.CallExpr) handover {
	var h handover
	fn := astobj.Func(d.info, call)
	for i, a := range call.Args {
		if !isDuration(d.info.TypeOf(a)) {
			continue
		}
		var field, why string
		if fn == nil {
			why = "it is a call of a function value"
		} else {
			field, why = d.sink(fn, i, 0)
		}
		p, _ := receiverPath(d.info, recv, a)
		switch {
		case field != "" && field == d.period:
			h.period, h.hasPeriod, h.periodArg = p, true, a
		case field != "" && field == d.threshold:
			h.threshold, h.hasThreshold, h.thresholdArg = p, true, a
		case why != "" && h.why == "":
			at := d.fset.Position(call.Pos())
			h.why = fmt.Sprintf("%s at %s:%d hands over %s, which plegvet could not follow to a field of %s: %s",
				types.ExprString(call.Fun), filepath.Base(at.Filename), at.Line, types.ExprString(a), d.generic.Name(), why)
		}
	}
	return h
}

// sink follows parameter i of fn to the generic PLEG's field it is
// assigned to: the field's name; "" with why when some use of it could
// not be followed; both "" when it reaches no field.
func (d *durationFlow) sink(fn *types.Func, i, depth int) (field, why string) {
	fn = fn.Origin()
	sig := fn.Signature()
	if recv := sig.Recv(); recv != nil {
		if iface, ok := recv.Type().Underlying().(*types.Interface); ok {
			if !types.Implements(types.NewPointer(d.generic.Type()), iface) {
				return "", fmt.Sprintf("%s is a method of an interface %s does not implement", fn.FullName(), d.generic.Name())
			}
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(d.generic.Type()), true, d.generic.Pkg(), fn.Name())
			fn, _ = obj.(*types.Func)
			if fn == nil {
				return "", fmt.Sprintf("%s has no method %s", d.generic.Name(), obj.Name())
			}
			sig = fn.Signature()
		}
	}
	fd := d.decls[fn]
	switch {
	case fd == nil:
		return "", fmt.Sprintf("it is passed to %s, whose body plegvet does not read here", fn.FullName())
	case depth > maxForward:
		return "", fmt.Sprintf("it is passed on through more than %d calls", maxForward)
	case i >= sig.Params().Len() || sig.Variadic() && i >= sig.Params().Len()-1:
		return "", fmt.Sprintf("it is passed to %s as a variadic argument", fn.FullName())
	}
	param := sig.Params().At(i)
	recv := receiverObj(d.info, fd)
	isParam := func(e ast.Expr) bool { return astobj.Of(d.info, e) == param }
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if field != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) || !methodOf(fn, d.generic) {
				return true
			}
			for k, r := range n.Rhs {
				if p, ok := receiverPath(d.info, recv, n.Lhs[k]); ok && p.sub == "" && isParam(r) {
					field = p.field
				}
			}
		case *ast.CallExpr:
			callee := astobj.Func(d.info, n)
			for k, a := range n.Args {
				if !isParam(a) {
					continue
				}
				f, w := "", "it is passed to a function value"
				if callee != nil {
					f, w = d.sink(callee, k, depth+1)
				}
				if f != "" {
					field = f
				} else if why == "" {
					why = w
				}
			}
		}
		return true
	})
	if field != "" {
		return field, ""
	}
	return "", why
}

// bareFallback finds, in the evented PLEG's methods, a call handing the
// receiver's duration fields on to the generic PLEG's period (and
// threshold): the fallback of a fork without a relist-duration struct.
func (d *durationFlow) bareFallback(u *usage, methods []*ast.FuncDecl) {
	for _, fd := range methods {
		recv := receiverObj(d.info, fd)
		ast.Inspect(fd.Body, func(n ast.Node) bool { // function literals too: the loop may run in one
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return u.fallbackArgs[0] == nil && !u.hasFallback
			}
			if pkg, _ := calleeName(d.info, call); pkg != "" {
				return true
			}
			h := d.handover(recv, call)
			switch {
			case h.hasPeriod && h.period.field != "":
				u.fallback, u.hasFallback = h.period, true
				u.fallbackThreshold, u.hasFallbackThreshold = h.threshold, h.hasThreshold && h.threshold.field != ""
			case h.hasPeriod: // written at the call: a constant, or why not
				u.fallbackArgs = [2]ast.Expr{h.periodArg, h.thresholdArg}
			}
			return !h.hasPeriod
		})
		if u.hasFallback || u.fallbackArgs[0] != nil {
			return
		}
	}
}
