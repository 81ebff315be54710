package srcload

import (
	"context"
	"go/ast"
	"go/token"
	"iter"
	"maps"
	"slices"
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
// A kept type's methods are kept when a load may call them or need them
// to implement an interface: their name is selected (x.Name, whatever x)
// in a parsed file, or is a method of an interface type written in one,
// in a built-in model or error's. The CRI API's messages each have a
// dozen methods (getters of every field, Reset, String, ProtoReflect...),
// which the kubelet's code mostly does not call.
//
// Cutting is sound only if no loaded file selects a name that was cut. A
// package type-checked after the cut (imported later in the load, such as
// the CRI client runtimehang reads) might: so before the first cut, every
// package the rest of the load will read from source is parsed ahead (the
// imports FromSource picks, of the packages parsed so far, transitively),
// and the cut keeps what they select too. The load still checks every
// file once it is done (uncut), and is run again without cutting should
// one select a cut name.

// cutUnreached returns files with only the declarations reachable from
// wanted, and the top-level names it cut. Of a kept type's methods, it
// keeps those methodsUsed names (all when methodsUsed is nil) and returns
// the names of those it cut.
func cutUnreached(files []*ast.File, wanted, methodsUsed map[string]bool) (kept []*ast.File, cut, methodsCut map[string]bool) {
	declares := map[string][]ast.Decl{} // a top-level name -> the declarations of it
	methods := map[string][]ast.Decl{}  // a type's name -> its method declarations
	names := map[ast.Decl][]string{}
	declare := func(name string, d ast.Decl) {
		declares[name] = append(declares[name], d)
		names[d] = append(names[d], name)
	}
	aliasOf := map[string]string{} // type A = B (or *B, B[T]): A -> B
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declare(d.Name.Name, d)
				} else if len(d.Recv.List) == 1 {
					base := receiverBase(d.Recv.List[0].Type) // "" is never reached
					methods[base] = append(methods[base], d)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Assign.IsValid() {
							if base := receiverBase(s.Type); base != "" {
								aliasOf[s.Name.Name] = base
							}
						}
						declare(s.Name.Name, d)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declare(n.Name, d)
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
	keep := map[ast.Decl]bool{}
	methodsCut = map[string]bool{}
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
		for _, d := range slices.Concat(declares[name], methods[name]) {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && methodsUsed != nil && !methodsUsed[fd.Name.Name] {
				methodsCut[fd.Name.Name] = true
				continue
			}
			if !keep[d] {
				keep[d] = true
				mentions(d, want)
			}
		}
	}
	cut = map[string]bool{}
	out := make([]*ast.File, len(files))
	for i, f := range files {
		nf := *f
		nf.Decls = nil
		for _, d := range f.Decls {
			gd, isGen := d.(*ast.GenDecl)
			if keep[d] || (isGen && gd.Tok == token.IMPORT) {
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
		if slices.ContainsFunc(declares[n], func(d ast.Decl) bool { return keep[d] }) {
			delete(cut, n)
		}
	}
	return out, cut, methodsCut
}

// mentions calls want with every identifier of a declaration outside
// function bodies, which a declarations-only check skips: over-approximate
// (a field named like a type keeps the type), never short.
func mentions(d ast.Decl, want func(string)) {
	idents := func(n ast.Node) {
		for n := range ast.Preorder(n) {
			if id, ok := n.(*ast.Ident); ok {
				want(id.Name)
			}
		}
	}
	visit := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				idents(n.Type)
				return false
			case *ast.SelectorExpr:
				idents(n.X) // pkg.Name and x.field: only the left side can be ours.
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

// selected collects the names the other parsed packages select from the
// package with the given import path: pkg.Name for a file's name of the
// import. It reports false when a file imports it with a dot, whose uses
// are bare names: then nothing may be cut. Each file is walked once per
// load (sels), whichever packages are asked about.
func (l *loader) selected(importPath, pkgName string) (map[string]bool, bool) {
	names := map[string]bool{}
	for q, qp := range l.parsedAndAhead() {
		if q == importPath {
			continue
		}
		for _, f := range qp.files {
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
					return nil, false
				case "_":
				default:
					maps.Copy(names, l.selections(f)[local])
				}
			}
		}
	}
	return names, true
}

// selections are a file's x.Name selectors by the identifier x; the walk
// also adds to methodNames every name selected (whatever x is) and the
// methods of the file's interface types. The walk was done as the file was
// parsed, when the load cuts (parseAll), or is done here.
func (l *loader) selections(f *ast.File) map[string]map[string]bool {
	if s, ok := l.sels[f]; ok {
		return s
	}
	w, ok := l.walked[f]
	if !ok {
		w = walkSelections(f)
	}
	delete(l.walked, f)
	maps.Copy(l.methodNamesSeen(), w.methods)
	l.sels[f] = w.byIdent
	return w.byIdent
}

// fileSelections are what selections reads of a file.
type fileSelections struct {
	byIdent map[string]map[string]bool // x.Name selectors by x
	methods map[string]bool            // names selected, whatever x is, and interface methods
}

// walkSelections walks a file for selections; it touches nothing else,
// so that files are walked at once.
func walkSelections(f *ast.File) fileSelections {
	w := fileSelections{byIdent: map[string]map[string]bool{}, methods: map[string]bool{}}
	for n := range ast.Preorder(f) {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			w.methods[n.Sel.Name] = true // a method, whatever x is
			if id, ok := n.X.(*ast.Ident); ok {
				if w.byIdent[id.Name] == nil {
					w.byIdent[id.Name] = map[string]bool{}
				}
				w.byIdent[id.Name][n.Sel.Name] = true
			}
		case *ast.InterfaceType:
			for _, m := range n.Methods.List {
				for _, id := range m.Names {
					w.methods[id.Name] = true
				}
			}
		}
	}
	return w
}

// cut cuts a declarations-only package down to what the packages parsed so
// far, and those the load will parse after it (parsed ahead), select from
// it, and records what it cut.
func (l *loader) cut(ctx context.Context, importPath string, pp *parsedPkg) ([]*ast.File, error) {
	if err := l.parseAhead(ctx); err != nil {
		return nil, err
	}
	wanted, ok := l.selected(importPath, pp.name)
	if !ok {
		return pp.files, nil
	}
	files, cut, methodsCut := cutUnreached(pp.files, wanted, l.methodsUsed())
	l.cutNames[importPath] = cut
	l.cutMethods[importPath] = methodsCut
	return files, nil
}

// methodsUsed are the method names the packages parsed so far, and those
// parsed ahead, may need of another package's types: the names they
// select, those of the methods of the interface types they write, of the
// built-in models' interfaces and error's.
func (l *loader) methodsUsed() map[string]bool {
	for _, qp := range l.parsedAndAhead() {
		for _, f := range qp.files {
			l.selections(f) // walked once, adding to l.methodNames
		}
	}
	return l.methodNamesSeen()
}

// methodNamesSeen are the method names of the files walked so far
// (selections) and those of the models and error.
func (l *loader) methodNamesSeen() map[string]bool {
	if l.methodNames == nil {
		l.methodNames = map[string]bool{"Error": true}
		maps.Copy(l.methodNames, modelMethods())
	}
	return l.methodNames
}

// aheadPkg is a package parsed ahead of its import (parseAhead): what
// parse returned, for importFor to take as its own.
type aheadPkg struct {
	pp  *parsedPkg
	err error
}

// parsedAndAhead are the packages parsed so far: those the load took
// (parsed) and those parsed ahead that it has not taken yet.
func (l *loader) parsedAndAhead() iter.Seq2[string, *parsedPkg] {
	return func(yield func(string, *parsedPkg) bool) {
		for q, qp := range l.parsed {
			if !yield(q, qp) {
				return
			}
		}
		for q, a := range l.ahead {
			if _, ok := l.parsed[q]; ok || a.err != nil || len(a.pp.files) == 0 {
				continue
			}
			if !yield(q, a.pp) {
				return
			}
		}
	}
}

// parseAhead parses every package importFor will parse later in the load:
// the imports FromSource picks that the tree holds, of the packages parsed
// so far, and theirs, transitively. go/types asks its importer for every
// import of a file, used or not, so these are the packages the load reads,
// no more. They are parsed in a fixed order (import paths sorted, then
// each file's imports in order), so positions are the same from run to
// run; their problems are recorded when importFor takes them, as before.
func (l *loader) parseAhead(ctx context.Context) error {
	queue := slices.Sorted(maps.Keys(l.parsed))
	for q := range l.ahead {
		if _, ok := l.parsed[q]; !ok {
			queue = append(queue, q)
		}
	}
	slices.Sort(queue[len(l.parsed):])
	seen := map[string]bool{}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		if seen[q] {
			continue
		}
		seen[q] = true
		qp := l.parsed[q]
		if qp == nil {
			if a := l.ahead[q]; a != nil && a.err == nil {
				qp = a.pp
			}
		}
		if qp == nil {
			continue
		}
		for _, f := range qp.files {
			for _, imp := range f.Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				if err != nil || l.want[p] || l.tried[p] || l.ahead[p] != nil || l.FromSource == nil || !l.FromSource(p) || isStd(p) {
					if l.ahead[p] != nil {
						queue = append(queue, p)
					}
					continue
				}
				dir := l.tree.PackageDir(p)
				if dir == "" {
					continue
				}
				pp, err := l.parse(ctx, p, dir)
				if err != nil && ctx.Err() != nil {
					return err
				}
				l.ahead[p] = &aheadPkg{pp, err}
				queue = append(queue, p)
			}
		}
	}
	return nil
}

// cutTooMuch reports whether a loaded package selects a name cut from
// another (or dot-imports it): the load must then be run uncut.
func (l *loader) cutTooMuch() bool {
	var used map[string]bool
	for _, cut := range l.cutMethods {
		if len(cut) > 0 && used == nil {
			used = l.methodsUsed()
		}
		for n := range cut {
			if used[n] {
				return true
			}
		}
	}
	for p, cut := range l.cutNames {
		if len(cut) == 0 {
			continue
		}
		sel, ok := l.selected(p, l.parsed[p].name)
		if !ok {
			return true
		}
		for n := range sel {
			if cut[n] {
				return true
			}
		}
	}
	return false
}
