// Type-checking a package after the packages it imports that are loaded
// from the tree; its other imports are answered by models or stubs.

package srcload

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/workcount"
)

// check type-checks one requested package, after the requested packages it
// imports. stack guards against import cycles in a broken tree.
func (l *loader) check(ctx context.Context, importPath string, stack []string) (*packages.Package, error) {
	if p, ok := l.checked[importPath]; ok {
		return p, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: load stopped: %w", inputfile.QuoteName(importPath), err)
	}
	if slices.Contains(stack, importPath) {
		// An import path is a string literal of the source: it may hold
		// any character.
		return nil, errors.New(inputfile.OneLine(fmt.Sprintf("import cycle: %s -> %s", strings.Join(stack, " -> "), importPath)))
	}
	stack = append(stack, importPath)
	pp := l.parsed[importPath]
	ignoreBodies := l.ignoreBodies(importPath)
	if pkg, err := l.reuse(ctx, importPath, pp, ignoreBodies, stack); pkg != nil || err != nil {
		if err == nil {
			l.checked[importPath] = pkg
		}
		return pkg, err
	}
	files := pp.files
	if ignoreBodies && l.cutting {
		if pl := l.planned[importPath]; pl != nil {
			files = pl.files
		} else {
			var err error
			if files, err = l.cut(ctx, importPath, pp); err != nil {
				return nil, err
			}
		}
	}
	pkg, answers, err := l.typeCheck(importPath, pp, files, ignoreBodies, func(p string, pkg *packages.Package) (*types.Package, error) {
		return l.importFor(ctx, p, stack, pkg)
	})
	if err != nil {
		return nil, err
	}
	l.checked[importPath] = pkg
	if l.Cache != nil {
		l.Cache.checked[importPath] = &checkedPkg{pkg: pkg, files: pp.files, ignoreBodies: ignoreBodies, imports: answers}
	}
	return pkg, nil
}

// typeCheck type-checks a package's files (a cut package's, those left),
// asking imp for its imports; it touches nothing of the loader's but the
// file set, so packages whose imports are checked may be checked at once
// (checkRun). An error of imp's stops the check, but errStubbed, whose
// stand-in go/types takes and marks fake (answerOther).
func (l *loader) typeCheck(importPath string, pp *parsedPkg, files []*ast.File, ignoreBodies bool, imp func(p string, pkg *packages.Package) (*types.Package, error)) (*packages.Package, []importAnswer, error) {
	pkg := &packages.Package{
		ID:              importPath,
		Name:            pp.name,
		PkgPath:         importPath,
		Fset:            l.fset,
		Syntax:          files,
		GoFiles:         pp.names,
		CompiledGoFiles: pp.names,
		Imports:         map[string]*packages.Package{},
		TypesSizes:      types.SizesFor("gc", "amd64"),
	}
	var abortErr error
	var answers []importAnswer
	conf := types.Config{
		IgnoreFuncBodies: ignoreBodies,
		FakeImportC:      true,
		Sizes:            pkg.TypesSizes,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				pkg.TypeErrors = append(pkg.TypeErrors, te)
			}
		},
		Importer: importerFunc(func(p string) (*types.Package, error) {
			dep, err := imp(p, pkg)
			if errors.Is(err, errStubbed) {
				answers = append(answers, importAnswer{p, dep})
				return dep, err // which go/types marks fake
			}
			if err != nil {
				abortErr = err
				return nil, err
			}
			answers = append(answers, importAnswer{p, dep})
			return dep, nil
		}),
	}
	pkg.TypesInfo = newInfo(files, ignoreBodies)
	pkg.Types, _ = conf.Check(importPath, l.fset, files, pkg.TypesInfo)
	decls := 0
	for _, f := range files {
		decls += len(f.Decls)
	}
	workcount.PackageChecked(decls)
	if abortErr != nil {
		return nil, nil, abortErr
	}
	typeOrphanValues(l.fset, pkg.Types, files, pkg.TypesInfo)
	pkg.IllTyped = len(pkg.TypeErrors) > 0
	return pkg, answers, nil
}

// importFor answers an import of pkg, being checked: from the tree's
// source when it is requested or picked by also, else a model or a stub.
// stack is the chain of packages being checked, pkg's last.
func (l *loader) importFor(ctx context.Context, p string, stack []string, pkg *packages.Package) (*types.Package, error) {
	if err := l.takeImport(ctx, p); err != nil {
		return nil, err
	}
	if l.want[p] {
		dep, err := l.check(ctx, p, stack)
		if err != nil {
			return nil, err
		}
		pkg.Imports[p] = dep
		return dep.Types, nil
	}
	return l.answerOther(pkg.PkgPath, p)
}

// takeImport takes an import from source when FromSource picks it and the
// tree holds it, the first time it is asked for: its files join the load
// (l.want) and its problems are recorded.
func (l *loader) takeImport(ctx context.Context, p string) error {
	if !l.want[p] && !l.tried[p] && l.FromSource != nil && l.FromSource(p) && !isStd(p) {
		l.tried[p] = true
		if dir := l.tree.PackageDir(p); dir != "" {
			var pp *parsedPkg
			var err error
			if a := l.ahead[p]; a != nil {
				pp, err = a.pp, a.err // parsed ahead of a cut
			} else {
				pp, err = l.parse(ctx, p, dir)
			}
			if err != nil && ctx.Err() != nil {
				return err
			}
			if err == nil {
				// Its files are named even when none is usable and the
				// import is stubbed instead.
				l.problems = append(l.problems, pp.problems...)
				if len(pp.files) > 0 {
					l.parsed[p] = pp
					l.want[p] = true
				}
			}
		}
	}
	return nil
}

// isStd reports whether an import path belongs to the standard library:
// its first element has no dot.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && p != "C"
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// typeOrphanValues types the values of map literal entries whose key could
// not be typed. go/types skips the value of an entry whose key is invalid,
// and in partially typed source a key that is a constant of a stubbed
// package is invalid; the value (a feature spec, say) is still worth
// reading, so it is type-checked on its own, with the element type of the
// map written in the literal standing in for the elided type.
func typeOrphanValues(fset *token.FileSet, pkg *types.Package, files []*ast.File, info *types.Info) {
	for _, f := range files {
		for n := range ast.Preorder(f) {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				continue
			}
			mt, ok := lit.Type.(*ast.MapType)
			if !ok {
				continue
			}
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if _, typed := info.Types[kv.Value]; typed {
					continue
				}
				expr := kv.Value
				if vl, ok := expr.(*ast.CompositeLit); ok && vl.Type == nil {
					expr = &ast.CompositeLit{Type: mt.Value, Lbrace: vl.Lbrace, Elts: vl.Elts, Rbrace: vl.Rbrace}
				}
				_ = types.CheckExpr(fset, pkg, kv.Value.Pos(), expr, info)
			}
		}
	}
}

// checkSize is the length of the source a check reads: with its bodies,
// a package's files; without them, its declarations outside function
// bodies.
func checkSize(files []*ast.File, ignoreBodies bool) int {
	size := 0
	for _, f := range files {
		if !ignoreBodies {
			size += int(f.FileEnd - f.FileStart)
			continue
		}
		for _, d := range f.Decls {
			size += int(d.End() - d.Pos())
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				size -= int(fd.Body.End() - fd.Body.Pos())
			}
		}
	}
	return size
}

// newInfo makes a package's types.Info with its maps sized for about
// what go/types records in them, from the length of the source checked: a
// map grown one entry at a time from empty rehashes and re-initialises its
// tables at each doubling, which cost the driver's load of ./pkg/... (10
// MB of function bodies, 300,000 expressions typed) more CPU than parsing
// it. With its bodies, a package's source is its files; without them, its
// declarations outside function bodies (a cut package's that are left):
// the CRI API's api.pb.go, cut to a quarter and its bodies blanked, was
// sized as if whole, and a map made too large costs a fresh process its
// pages as surely as one grown. The sizes are per KB of that source as
// measured on Kubernetes v1.37.2 (./pkg/...'s 180 packages and the
// report's 17), a little under the averages: a map that needs more grows
// from there. Scopes are not recorded: no analyzer plegvet runs over
// these loads reads them (their packages' and x/tools' passes do not),
// and pkg/kubelet's cost the report's last check a map of 3,800.
func newInfo(files []*ast.File, ignoreBodies bool) *types.Info {
	kb := checkSize(files, ignoreBodies) / 1024
	// Entries per KB of source: function bodies checked, then
	// declarations only (most expressions and uses are in bodies).
	types_, defs, uses := 36, 10, 36
	if ignoreBodies {
		types_, defs, uses = 17, 12, 11
	}
	return &types.Info{
		Types:      make(map[ast.Expr]types.TypeAndValue, kb*types_),
		Defs:       make(map[*ast.Ident]types.Object, kb*defs),
		Uses:       make(map[*ast.Ident]types.Object, kb*uses),
		Implicits:  map[ast.Node]types.Object{},
		Selections: make(map[*ast.SelectorExpr]*types.Selection, kb*2),
		Instances:  map[*ast.Ident]types.Instance{},
	}
}
