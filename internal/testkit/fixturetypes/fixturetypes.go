// Package fixturetypes type-checks small Go sources for table tests
// against the look-alike packages of the repository's testdata/src, with
// type errors tolerated as in partially typed source.
package fixturetypes

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
)

// Importer type-checks the packages under Root (a GOPATH src directory)
// from source, and the standard library from export data.
type Importer struct {
	Root string
	Fset *token.FileSet
	pkgs map[string]*types.Package
	std  types.Importer // one, so that every package sees the same "time"
	// StubUnknown answers imports not under Root with empty packages
	// instead of the standard library's export data: a fuzzer that
	// mutates import paths must not wait for the go command each time.
	StubUnknown bool
}

// NewImporter returns an importer of the packages under root.
func NewImporter(fset *token.FileSet, root string) *Importer {
	return &Importer{Root: root, Fset: fset, pkgs: map[string]*types.Package{}, std: importer.ForCompiler(fset, "gc", nil)}
}

func (im *Importer) Import(path string) (*types.Package, error) {
	if p, ok := im.pkgs[path]; ok {
		return p, nil
	}
	names, _ := filepath.Glob(filepath.Join(im.Root, filepath.FromSlash(path), "*.go"))
	if len(names) == 0 {
		if im.StubUnknown {
			p := types.NewPackage(path, filepath.Base(path))
			p.MarkComplete()
			im.pkgs[path] = p
			return p, nil
		}
		return im.std.Import(path)
	}
	_, _, p, err := im.Load(path)
	return p, err
}

// Load type-checks the package at path under Root with full type
// information; later imports of path get the same package.
func (im *Importer) Load(path string) ([]*ast.File, *types.Info, *types.Package, error) {
	names, _ := filepath.Glob(filepath.Join(im.Root, filepath.FromSlash(path), "*.go"))
	var files []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(im.Fset, n, nil, parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, f)
	}
	// Check the whole package even past an error: a package whose check
	// stopped half way has types go/types itself trips over later.
	var first error
	conf := types.Config{Importer: im, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	info := newInfo()
	p, _ := conf.Check(path, im.Fset, files, info)
	im.pkgs[path] = p
	return files, info, p, first
}

func newInfo() *types.Info {
	return &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
}

// Check parses src as one file of package path and type-checks it,
// ignoring type errors. A syntax error is returned with the part of the
// file that parsed, type-checked too.
func (im *Importer) Check(path, src string) (*ast.File, *types.Info, *types.Package, error) {
	f, err := parser.ParseFile(im.Fset, path+".go", src, parser.ParseComments)
	if f == nil {
		return nil, nil, nil, err
	}
	info := newInfo()
	pkg, _ := (&types.Config{Importer: im, Error: func(error) {}}).Check(path, im.Fset, []*ast.File{f}, info)
	return f, info, pkg, err
}

// Replace is Check, and later imports of path get the package checked
// from src: a test edits a package its importers then see.
func (im *Importer) Replace(path, src string) (*ast.File, *types.Info, *types.Package, error) {
	f, info, pkg, err := im.Check(path, src)
	if pkg != nil {
		im.pkgs[path] = pkg
	}
	return f, info, pkg, err
}

// ReplaceFiles is Replace for a package of several files: srcs are its
// files' sources, by name, one edited by the test.
func (im *Importer) ReplaceFiles(path string, srcs map[string]string) ([]*ast.File, *types.Info, *types.Package, error) {
	var files []*ast.File
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		f, err := parser.ParseFile(im.Fset, path+"/"+name, srcs[name], parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, f)
	}
	info := newInfo()
	pkg, _ := (&types.Config{Importer: im, Error: func(error) {}}).Check(path, im.Fset, files, info)
	if pkg != nil {
		im.pkgs[path] = pkg
	}
	return files, info, pkg, nil
}
