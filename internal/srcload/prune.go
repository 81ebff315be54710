package srcload

import (
	"go/ast"
	"go/token"
	"strconv"
)

// A package read for its declarations only is cut down, before it is
// type-checked, to the top-level declarations its importers can reach: the
// names they select from it and, transitively, every name a kept
// declaration mentions, with every method of a kept type (a method set
// decides which interfaces a type implements). The CRI API's generated
// package declares thousands of methods, descriptor tables and enum maps,
// of which the kubelet's PLEG code reaches a part.
//
// Cutting is sound only if no loaded file selects a name that was cut. A
// package parsed after the cut (imported later in the load) might; the
// load checks every file once it is done (uncut), and is run again without
// cutting when one does.

// cutUnreached returns files with only the declarations reachable from
// wanted, and the top-level names it cut.
func cutUnreached(files []*ast.File, wanted map[string]bool) ([]*ast.File, map[string]bool) {
	declares := map[string][]ast.Decl{} // a top-level name -> the declarations of it
	methods := map[string][]ast.Decl{}  // a type's name -> its method declarations
	names := map[ast.Decl][]string{}
	aliasOf := map[string]string{} // type A = B (or *B, B[T]): A -> B
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					if len(d.Recv.List) == 1 {
						if base := receiverBase(d.Recv.List[0].Type); base != "" {
							methods[base] = append(methods[base], d)
						}
					}
					continue
				}
				declares[d.Name.Name] = append(declares[d.Name.Name], d)
				names[d] = append(names[d], d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Assign.IsValid() {
							if base := receiverBase(s.Type); base != "" {
								aliasOf[s.Name.Name] = base
							}
						}
						declares[s.Name.Name] = append(declares[s.Name.Name], d)
						names[d] = append(names[d], s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declares[n.Name] = append(declares[n.Name], d)
							names[d] = append(names[d], n.Name)
						}
					}
				}
			}
		}
	}
	// A method declared on an alias belongs to the aliased type: reaching
	// the type reaches it (through a chain of aliases too).
	for a := range aliasOf {
		seen := map[string]bool{a: true}
		for t := aliasOf[a]; t != "" && !seen[t]; t = aliasOf[t] {
			seen[t] = true
			methods[t] = append(methods[t], methods[a]...)
		}
	}
	kept := map[ast.Decl]bool{}
	seen := map[string]bool{}
	var queue []string
	want := func(name string) {
		if !seen[name] {
			seen[name] = true
			queue = append(queue, name)
		}
	}
	for n := range wanted {
		want(n)
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, list := range [][]ast.Decl{declares[name], methods[name]} {
			for _, d := range list {
				if !kept[d] {
					kept[d] = true
					mentions(d, want)
				}
			}
		}
	}
	cut := map[string]bool{}
	out := make([]*ast.File, len(files))
	for i, f := range files {
		nf := *f
		nf.Decls = nil
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				nf.Decls = append(nf.Decls, d)
				continue
			}
			if kept[d] {
				nf.Decls = append(nf.Decls, d)
				continue
			}
			for _, n := range names[d] {
				cut[n] = true
			}
		}
		out[i] = &nf
	}
	// A name declared twice, once kept, is not cut (a broken tree).
	for n := range cut {
		for _, d := range declares[n] {
			if kept[d] {
				delete(cut, n)
				break
			}
		}
	}
	return out, cut
}

// mentions calls want with every identifier of a declaration outside
// function bodies, which a declarations-only check skips: over-approximate
// (a field named like a type keeps the type), never short.
func mentions(d ast.Decl, want func(string)) {
	visit := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				ast.Inspect(n.Type, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						want(id.Name)
					}
					return true
				})
				return false
			case *ast.SelectorExpr:
				// pkg.Name and x.field: only the left side can be ours.
				ast.Inspect(n.X, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						want(id.Name)
					}
					return true
				})
				return false
			case *ast.Ident:
				want(n.Name)
			}
			return true
		})
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil {
			visit(d.Recv)
		}
		visit(d.Type)
	default:
		visit(d)
	}
}

// receiverBase is the name of a method's receiver type: T of T, *T, T[P].
func receiverBase(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// selectedFrom collects the names files select from the package with the
// given import path: pkg.Name for the file's name of the import. It
// reports false when a file imports it with a dot, whose uses are bare
// names: then nothing may be cut. Each file is walked once per load
// (sels), whichever packages are asked about.
func (l *loader) selectedFrom(files []*ast.File, importPath, pkgName string, into map[string]bool) bool {
	for _, f := range files {
		var locals []string
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != importPath {
				continue
			}
			local := pkgName
			if imp.Name != nil {
				local = imp.Name.Name
			}
			switch local {
			case ".":
				return false
			case "_":
			default:
				locals = append(locals, local)
			}
		}
		if len(locals) == 0 {
			continue
		}
		sels := l.selections(f)
		for _, local := range locals {
			for n := range sels[local] {
				into[n] = true
			}
		}
	}
	return true
}

// selections are a file's x.Name selectors by the identifier x.
func (l *loader) selections(f *ast.File) map[string]map[string]bool {
	if s, ok := l.sels[f]; ok {
		return s
	}
	s := map[string]map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if s[id.Name] == nil {
					s[id.Name] = map[string]bool{}
				}
				s[id.Name][sel.Sel.Name] = true
			}
		}
		return true
	})
	if l.sels == nil {
		l.sels = map[*ast.File]map[string]map[string]bool{}
	}
	l.sels[f] = s
	return s
}

// cut cuts a declarations-only package down to what the packages parsed so
// far select from it, and records what it cut.
func (l *loader) cut(importPath string, pp *parsedPkg) []*ast.File {
	wanted := map[string]bool{}
	for q, qp := range l.parsed {
		if q != importPath && !l.selectedFrom(qp.files, importPath, pp.name, wanted) {
			return pp.files
		}
	}
	files, cut := cutUnreached(pp.files, wanted)
	l.cutNames[importPath] = cut
	return files
}

// cutTooMuch reports whether a loaded package selects a name cut from
// another (or dot-imports it): the load must then be run uncut.
func (l *loader) cutTooMuch() bool {
	for p, cut := range l.cutNames {
		if len(cut) == 0 {
			continue
		}
		name := l.parsed[p].name
		for q, qp := range l.parsed {
			if q == p {
				continue
			}
			sel := map[string]bool{}
			if !l.selectedFrom(qp.files, p, name, sel) {
				return true
			}
			for n := range sel {
				if cut[n] {
					return true
				}
			}
		}
	}
	return false
}
