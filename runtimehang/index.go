// The index of the packages read: each function's declaration and its
// package, the struct fields' tags and type expressions, and the named
// types that may implement an interface, with the implementations found.

package runtimehang

import (
	"cmp"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

// prog indexes the packages read: each function's declaration and the
// package it is in, and the named types that may implement an interface.
type prog struct {
	fset  *token.FileSet
	decls map[*types.Func]*ast.FuncDecl
	pkgOf map[*types.Func]*Package
	named []*types.Named
	pkgs  []*Package
	// tags are the struct fields' tags; registeredFields the fields whose
	// method values are registered with a collector (kl.StatsProvider).
	tags             map[*types.Var]string
	registeredFields map[types.Object]bool
	// fieldTypes are the struct fields' type expressions, with the info
	// of their package: what names an untyped field's package.
	fieldTypes map[*types.Var]fieldType
	// impls are implementations' answers, by interface method: the walk
	// asks again for each call through the same method.
	impls map[*types.Func][]*types.Func
	// fieldGates are the bool fields' gates (branchgate.go), by field;
	// fieldSets the values each field is given, callers the static calls
	// of each function, both built on first use.
	fieldGates map[*types.Var]*BranchGate
	fieldSets  map[*types.Var][]fieldSet
	callers    map[*types.Func][]callSite
}

type fieldType struct {
	expr ast.Expr
	info *types.Info
}

func newProg(in Input) *prog {
	p := &prog{fset: in.Fset, decls: map[*types.Func]*ast.FuncDecl{}, pkgOf: map[*types.Func]*Package{}, tags: map[*types.Var]string{}, registeredFields: map[types.Object]bool{}, fieldTypes: map[*types.Var]fieldType{}, impls: map[*types.Func][]*types.Func{}, fieldGates: map[*types.Var]*BranchGate{}}
	all := append([]Package{in.Kubelet}, in.Others...)
	for i := range all {
		pkg := &all[i]
		if pkg.Info == nil {
			continue
		}
		p.pkgs = append(p.pkgs, pkg)
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if fn, ok := pkg.Info.Defs[d.Name].(*types.Func); ok && d.Body != nil && pkg.Bodies {
						p.decls[fn] = d
						p.pkgOf[fn] = pkg
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						if ts, ok := s.(*ast.TypeSpec); ok {
							if tn, ok := pkg.Info.Defs[ts.Name].(*types.TypeName); ok {
								if st, ok := tn.Type().Underlying().(*types.Struct); ok {
									for i := 0; i < st.NumFields(); i++ {
										p.tags[st.Field(i)] = st.Tag(i)
									}
								}
								if st, ok := ts.Type.(*ast.StructType); ok {
									for _, fl := range st.Fields.List {
										for _, n := range fl.Names {
											if v, ok := pkg.Info.Defs[n].(*types.Var); ok {
												p.fieldTypes[v] = fieldType{fl.Type, pkg.Info}
											}
										}
									}
								}
								if n, ok := tn.Type().(*types.Named); ok && !types.IsInterface(n) && pkg.Bodies {
									p.named = append(p.named, n)
								}
							}
						}
					}
				}
			}
		}
	}
	return p
}

// funcName is fn as a step names it: Type.Method or pkg.Func.
func funcName(fn *types.Func) string {
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		t := sig.Recv().Type()
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok {
			return n.Obj().Name() + "." + fn.Name()
		}
		return fn.Name()
	}
	if fn.Pkg() != nil {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	return fn.Name()
}

func (p *prog) declPos(fn *types.Func) *srcpos.Pos {
	if d := p.decls[fn]; d != nil {
		return srcpos.At(p.fset, d.Name.Pos())
	}
	return nil
}

// ifaceOf is the interface fn is a method of, and its name; nil for a
// concrete method or a function.
func ifaceOf(fn *types.Func) (*types.Interface, string) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return nil, ""
	}
	t := sig.Recv().Type()
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return nil, ""
	}
	name := "interface"
	if n, ok := types.Unalias(t).(*types.Named); ok {
		name = n.Obj().Name()
	}
	return it, name
}

// isCRI reports whether fn is a method of an interface the CRI API
// package declares.
func isCRI(fn *types.Func) bool {
	it, _ := ifaceOf(fn)
	return it != nil && fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), CRIAPIPackage)
}

// implementations are the methods implementing the interface method fn
// among the named types of the packages read, sorted by position. An
// unexported interface's implementations are its own package's types:
// the values it holds are built there (the stats provider's
// containerStatsProvider is criStatsProvider or cadvisorStatsProvider,
// not the kubelet, whose ListPodStats has the same signature). The
// callers share the slice and only read it.
func (p *prog) implementations(fn *types.Func) []*types.Func {
	if out, ok := p.impls[fn]; ok {
		return out
	}
	out := p.findImplementations(fn)
	p.impls[fn] = out
	return out
}

// findImplementations is implementations, computed.
func (p *prog) findImplementations(fn *types.Func) []*types.Func {
	if onFindImplementations != nil {
		onFindImplementations(fn)
	}
	it, name := ifaceOf(fn)
	if it == nil {
		return nil
	}
	var out []*types.Func
	for _, n := range p.named {
		if !token.IsExported(name) && n.Obj().Pkg() != fn.Pkg() {
			continue
		}
		for _, t := range []types.Type{n, types.NewPointer(n)} {
			if !types.Implements(t, it) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(t, true, fn.Pkg(), fn.Name())
			if m, ok := obj.(*types.Func); ok && p.decls[m] != nil && !slices.Contains(out, m) {
				out = append(out, m)
			}
			break
		}
	}
	slices.SortFunc(out, func(a, b *types.Func) int { return cmp.Compare(a.Pos(), b.Pos()) })
	return out
}

// onFindImplementations, when set (by tests), is told of each search
// for an interface method's implementations.
var onFindImplementations func(fn *types.Func)

// lookupType is the type pkg declares by name; nil when none.
func lookupType(pkg *Package, name string) *types.TypeName {
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.Name == name {
						tn, _ := pkg.Info.Defs[ts.Name].(*types.TypeName)
						return tn
					}
				}
			}
		}
	}
	return nil
}
