// Judging a concrete type's GetContainerEvents: its own method, one
// promoted from an embedded field, the generated one it inherits, or none.

package runtimestream

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
)

// fromType judges the GetContainerEvents of a concrete type.
func (r *reader) fromType(t types.Type, ctx *callCtx, via []Step, seen map[any]bool) {
	r.budget--
	key := types.TypeString(t, nil)
	if seen[key] || r.budget < 0 {
		return
	}
	seen = maps.Clone(seen)
	seen[key] = true
	obj, index, _ := types.LookupFieldOrMethod(t, true, nil, methodName)
	if fn, ok := obj.(*types.Func); ok {
		var field *types.Var
		if len(index) > 1 {
			var step Step
			step, field = r.promotion(t, index)
			via = append(slices.Clip(via), step)
		}
		if fi := r.funcs[fn]; fi != nil {
			r.fromMethod(fi, ctx, via, seen)
			return
		}
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) && field != nil {
			// Promoted from an embedded interface: whatever fills the field serves.
			r.fromField(field, ctx, via, seen)
			return
		}
		r.add(Server{Method: r.typeName(t) + "." + methodName, Pos: r.position(fn.Pos()), Shape: Unknown,
			Why: fmt.Sprintf("%s's %s is declared in %s, which plegvet did not read", r.typeName(t), methodName, fn.Pkg().Path())}, via)
		return
	}
	r.fromEmbedded(t, ctx, via, seen)
}

// promotion describes the embedded fields a promoted method comes
// through; last is the last of them.
func (r *reader) promotion(t types.Type, index []int) (step Step, last *types.Var) {
	var names []string
	var first token.Pos
	cur := t
	for _, i := range index[:len(index)-1] {
		st, ok := derefUnder(cur).(*types.Struct)
		if !ok || i >= st.NumFields() {
			last = nil
			break
		}
		last = st.Field(i)
		if !first.IsValid() {
			first = last.Pos()
		}
		names = append(names, last.Name())
		cur = last.Type()
	}
	return r.step(first, fmt.Sprintf("%s's %s is promoted from its embedded field %s", r.typeName(t), methodName, strings.Join(names, "."))), last
}

// fromField follows what an embedded interface field holds.
func (r *reader) fromField(f *types.Var, ctx *callCtx, via []Step, seen map[any]bool) {
	srcs := r.fieldSrc[f]
	if len(srcs) == 0 {
		r.everyImplementation(via, seen, fmt.Sprintf("no value is stored in the field %s in the code read: every implementation in the module counts", f.Name()))
		return
	}
	r.fromValues(srcs, ctx, via, seen, "what the field "+f.Name()+" holds")
}

// fromEmbedded finds the GetContainerEvents a type has through an
// embedded field whose type plegvet did not load: the CRI API's generated
// UnimplementedRuntimeServiceServer, or its RuntimeServiceServer
// interface (then whatever fills the field serves). As for Go's
// selectors, the shallowest depth wins.
func (r *reader) fromEmbedded(t types.Type, ctx *callCtx, via []Step, seen map[any]bool) {
	level := []types.Type{t}
	var stubbed []string
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var next []types.Type
		for _, cur := range level {
			st, ok := derefUnder(cur).(*types.Struct)
			if !ok {
				continue
			}
			for i := range st.NumFields() {
				f := st.Field(i)
				if !f.Embedded() {
					continue
				}
				if f.Type() != types.Typ[types.Invalid] {
					next = append(next, f.Type())
					continue
				}
				expr := r.fieldExpr[f]
				sel, _ := unstar(expr).(*ast.SelectorExpr)
				pkg := r.files[r.fset.File(f.Pos())]
				switch {
				case sel != nil && pkg != nil && isPkgSel(pkg.Info, sel, CRIAPIPackage, unimplemented):
					r.add(Server{
						Method: fmt.Sprintf("%s.%s (promoted from %s)", r.typeName(t), methodName, exprString(expr)),
						Pos:    r.position(expr.Pos()),
						Shape:  Inherited,
						Why: fmt.Sprintf("%s declares no %s of its own: it inherits the generated %s's, which returns codes.Unimplemented (%s embeds it at %s)",
							r.typeName(t), methodName, exprString(expr), r.typeName(cur), r.at(expr.Pos())),
					}, via)
					return
				case sel != nil && pkg != nil && isPkgSel(pkg.Info, sel, CRIAPIPackage, serverInterface):
					r.fromField(f, ctx, append(slices.Clip(via), r.step(expr.Pos(), fmt.Sprintf("%s's %s is promoted from its embedded %s field: whatever the field holds serves the rpc", r.typeName(t), methodName, exprString(expr)))), seen)
					return
				case expr != nil:
					stubbed = append(stubbed, exprString(expr))
				}
			}
		}
		level = next
	}
	why, shape := fmt.Sprintf("%s has no %s method in the code read", r.typeName(t), methodName), Missing
	if len(stubbed) > 0 {
		why += "; it may come from its embedded " + strings.Join(stubbed, ", ") + ", which plegvet did not read"
		shape = Unknown
	}
	pos := token.NoPos
	if n, ok := types.Unalias(derefType(t)).(*types.Named); ok {
		pos = n.Obj().Pos()
	}
	r.add(Server{Method: r.typeName(t) + "." + methodName, Pos: r.position(pos), Shape: shape, Why: why}, via)
}

// fromMethod judges a loaded method, following it when it hands the
// stream on.
func (r *reader) fromMethod(fi *funcInfo, ctx *callCtx, via []Step, seen map[any]bool) {
	r.budget--
	if seen[fi.obj] || r.budget < 0 {
		return
	}
	seen = maps.Clone(seen)
	seen[fi.obj] = true
	out := r.classified(fi)
	via = append(slices.Clip(via), out.via...)
	if out.target != nil {
		via = append(slices.Clip(via), r.step(out.call.Pos(), fmt.Sprintf("%s hands the stream to %s", r.methodName(fi), exprString(out.call.Fun))))
		r.fromValues([]valueSrc{*out.target}, ctx, via, seen, "the receiver "+exprString(out.target.e))
		return
	}
	r.add(Server{Method: r.methodName(fi), Pos: r.position(fi.decl.Pos()), Shape: out.shape, Evidence: r.step(out.evidence, "").Pos, Why: r.methodName(fi) + " " + out.why}, via)
}

// classified is classify of a GetContainerEvents method, once.
func (r *reader) classified(fi *funcInfo) outcome {
	if out, ok := r.outcomes[fi]; ok {
		return out
	}
	out := r.classify(fi, 1, 0)
	r.outcomes[fi] = out
	return out
}

func (r *reader) add(s Server, via []Step) {
	key := s.Pos.String() // a server reached again keeps the first way to it
	if r.byPos[key] {
		return
	}
	r.byPos[key] = true
	s.Via, s.StreamsEvents = append([]Step{}, via...), s.Shape.Streams()
	r.servers = append(r.servers, s)
}
