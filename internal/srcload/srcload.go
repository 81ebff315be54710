// Package srcload type-checks the few packages of a Kubernetes tree that
// plegvet needs straight from their source, without compiling anything
// and without running the go command: the APIs the answer is made of
// (package time, the feature-gate API) come from small built-in models,
// and every other import, the rest of the standard library included, is
// stubbed as an empty package. The result is partially typed: the
// tree's own declarations are fully typed, expressions that reach into a
// stubbed package are not, and the result says which imports were stubbed.
package srcload

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/tree"
)

// Mode names how packages were loaded, for the result's "load" field.
const Mode = "source"

//go:embed stubs/*.go.txt
var stubFS embed.FS

// models maps an import path to the built-in model that stands in for it.
var models = map[string]string{
	"k8s.io/component-base/featuregate":    "stubs/featuregate.go.txt",
	"k8s.io/apimachinery/pkg/util/version": "stubs/version.go.txt",
	"k8s.io/apiserver/pkg/util/feature":    "stubs/utilfeature.go.txt",
	"time":                                 "stubs/time.go.txt",
}

// Problem is a file that could not be read or parsed in full. The rest of
// its package is still analysed.
type Problem struct {
	Pos token.Position
	Msg string
}

// Error is the problem on one line: the file name is quoted when it holds
// control characters, and so are those of the message.
func (p Problem) Error() string {
	name, msg := inputfile.QuoteName(p.Pos.Filename), inputfile.OneLine(p.Msg)
	if p.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", name, p.Pos.Line, p.Pos.Column, msg)
	}
	return fmt.Sprintf("%s: %s", name, msg)
}

// Result is what Load produced.
type Result struct {
	Fset *token.FileSet
	// Packages are the requested packages, in the order requested, each
	// with syntax and (partial) type information, ready for
	// golang.org/x/tools/go/analysis/checker. Imports between requested
	// packages are linked, so facts flow from one to the next.
	Packages []*packages.Package
	Modelled []string // imports answered by built-in models of their API
	Stubbed  []string // imports answered by empty packages
	// Problems are the files of the loaded packages that were not read in
	// full: unreadable, not Go source, syntax errors, another package
	// clause. Nothing is left out without one.
	Problems []Problem
	// LeftOut say why requested packages were left out of Packages
	// (Imports.LeaveOut): the tree does not hold them, or none of their
	// files could be loaded (their Problems say why).
	LeftOut []error
}

type loader struct {
	cutting  bool                                     // declarations-only imports are cut to what is reached
	cutNames map[string]map[string]bool               // per cut package, the names cut
	sels     map[*ast.File]map[string]map[string]bool // selectedFrom's walks, once a file
	Imports
	requested map[string]bool
	tree      *tree.Tree
	fset      *token.FileSet
	want      map[string]bool
	parsed    map[string]*parsedPkg
	checked   map[string]*packages.Package
	pkgs      map[string]*types.Package // every import answered so far
	modelled  map[string]bool
	stubbed   map[string]bool
	tried     map[string]bool // imports parsed for also, usable or not
	problems  []Problem
}

type parsedPkg struct {
	dir      string
	name     string // the package name its files agree on
	files    []*ast.File
	names    []string
	problems []Problem // of this directory's files
}

// Load parses and type-checks the packages with the given import paths
// from the tree's source. A package the tree does not hold, or none of
// whose files can be loaded, is an error naming it; files with syntax
// errors are kept as far as they parsed, and they and every file left out
// are reported in Result.Problems. A cancelled ctx stops the load between
// files and between packages.
func Load(ctx context.Context, t *tree.Tree, importPaths ...string) (*Result, error) {
	return LoadWith(ctx, t, nil, importPaths...)
}

// LoadWith is Load, and also type-checks from source every import for
// which also returns true and that the tree holds (in staging/ or
// vendor/), instead of stubbing it, so that its constants resolve and its
// facts reach the requested packages.
func LoadWith(ctx context.Context, t *tree.Tree, also func(importPath string) bool, importPaths ...string) (*Result, error) {
	return LoadImports(ctx, t, Imports{FromSource: also}, importPaths...)
}

// Imports say how LoadImports answers the imports of the packages it
// loads.
type Imports struct {
	// FromSource picks the imports type-checked from source when the
	// tree holds them, as LoadWith's also.
	FromSource func(importPath string) bool
	// DeclarationsOnly picks, among those, the ones whose function bodies
	// are not type-checked: their importers read only their declarations
	// (constants, types, signatures), and the bodies of a generated
	// package such as the CRI API's cost more than the rest of a load.
	// Requested packages are always checked whole.
	DeclarationsOnly func(importPath string) bool
	// TreeRelativeNames names the files in the result's FileSet as
	// tree.Rel does (relative to the checkout root), so the positions an
	// analyzer resolves from it are those an answer prints.
	TreeRelativeNames bool
	// Overlay holds the content of files as edited but not saved, by
	// absolute file name: read instead of the disk's (a language
	// server's open buffers). A name the directory lacks is added to it.
	Overlay map[string][]byte
	// LeaveOut leaves out a requested package that cannot be loaded (the
	// result's LeftOut says why) instead of failing the load: a language
	// server still checks the open files that load.
	LeaveOut bool
	// Cache, when set, keeps what a load parsed and type-checked for the
	// next load with the same cache: a file whose content is unchanged
	// is not parsed again, and a package whose files and imports are
	// unchanged is not checked again. Loads sharing a cache share its
	// FileSet and must not run at once.
	Cache *Cache
}

// LoadImports is LoadWith with the imports' handling spelled out.
func LoadImports(ctx context.Context, t *tree.Tree, imports Imports, importPaths ...string) (*Result, error) {
	// Cutting depends on what the importers select, which a cached
	// importer does not say again: with a cache, nothing is cut.
	res, cutTooMuch, err := loadImports(ctx, t, imports, imports.Cache == nil, importPaths)
	if err == nil && cutTooMuch {
		res, _, err = loadImports(ctx, t, imports, false, importPaths)
	}
	return res, err
}

func loadImports(ctx context.Context, t *tree.Tree, imports Imports, cut bool, importPaths []string) (*Result, bool, error) {
	l := &loader{
		cutting:   cut,
		cutNames:  map[string]map[string]bool{},
		sels:      map[*ast.File]map[string]map[string]bool{},
		Imports:   imports,
		requested: map[string]bool{},
		tree:      t,
		fset:      token.NewFileSet(),
		want:      map[string]bool{},
		parsed:    map[string]*parsedPkg{},
		checked:   map[string]*packages.Package{},
		pkgs:      map[string]*types.Package{},
		modelled:  map[string]bool{},
		stubbed:   map[string]bool{},
		tried:     map[string]bool{},
	}
	if l.Cache != nil {
		l.fset, l.pkgs, l.Cache.used = l.Cache.fset, l.Cache.pkgs, map[fileKey]bool{}
	}
	for _, p := range importPaths {
		l.want[p] = true
		l.requested[p] = true
	}
	res := &Result{Fset: l.fset}
	var loadable []string
	for _, p := range importPaths {
		err := l.parseRequested(ctx, p)
		if err != nil && imports.LeaveOut && ctx.Err() == nil {
			res.LeftOut = append(res.LeftOut, err)
			delete(l.want, p)
			continue
		}
		if err != nil {
			return nil, false, err
		}
		loadable = append(loadable, p)
	}
	for _, p := range loadable {
		pkg, err := l.check(ctx, p, nil)
		if err != nil {
			return nil, false, err
		}
		res.Packages = append(res.Packages, pkg)
	}
	if l.Cache != nil {
		l.Cache.end(l.checked)
	}
	res.Modelled = sortedKeys(l.modelled)
	res.Stubbed = sortedKeys(l.stubbed)
	res.Problems = l.problems
	return res, l.cutTooMuch(), nil
}

// parseRequested parses a requested package: an error when the tree
// does not hold it or none of its files can be loaded.
func (l *loader) parseRequested(ctx context.Context, p string) error {
	t := l.tree
	dir := t.PackageDir(p)
	if dir == "" {
		return fmt.Errorf("%s: the tree has no package %s (looked for %s)", inputfile.QuoteName(t.Dir), inputfile.QuoteName(p), inputfile.QuoteName(t.Rel(filepath.Join(t.Dir, strings.TrimPrefix(p, t.Module+"/")))))
	}
	pp, err := l.parse(ctx, p, dir)
	if err != nil {
		return err
	}
	l.problems = append(l.problems, pp.problems...)
	if err := l.usable(pp); err != nil {
		return err
	}
	l.parsed[p] = pp
	return nil
}

func sortedKeys(m map[string]bool) []string {
	keys := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m)) // [], not null, in JSON
	slices.Sort(keys)
	return keys
}

// parse reads the non-test Go files of dir that build on linux/amd64 (the
// platform kubelets run on), in name order, and keeps those whose package
// clause names the package; every other file it was given is a problem.
func (l *loader) parse(ctx context.Context, importPath, dir string) (*parsedPkg, error) {
	rel := l.tree.Rel(dir)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: load stopped: %w", inputfile.QuoteName(rel), err)
	}
	entries, err := l.dirNames(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(rel), inputfile.Cause(err))
	}
	// The file is read once, by the OpenFile hook, when its name says it
	// may build; build constraints are then read from memory.
	var src []byte
	var readErr error
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = "linux", "amd64", true
	ctxt.OpenFile = func(path string) (io.ReadCloser, error) {
		var ok bool
		if src, ok = l.Overlay[path]; !ok {
			src, readErr = inputfile.Read(path)
		}
		if readErr != nil {
			return nil, readErr
		}
		return io.NopCloser(bytes.NewReader(src)), nil
	}
	pp := &parsedPkg{dir: dir}
	var files []*ast.File
	var names []string
	var sources []source
	for _, name := range entries {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: load stopped: %w", inputfile.QuoteName(rel), err)
		}
		filename := filepath.Join(dir, name)
		fileProblem := func(msg string) {
			pp.problems = append(pp.problems, Problem{Pos: token.Position{Filename: l.tree.Rel(filename)}, Msg: inputfile.OneLine(msg)})
		}
		src, readErr = nil, nil
		ok, err := ctxt.MatchFile(dir, name)
		nul := bytes.IndexByte(src, 0)
		switch {
		case readErr != nil:
			fileProblem(readErr.Error())
		case err != nil && nul < 0:
			fileProblem("build constraints: " + strings.TrimPrefix(strings.TrimPrefix(err.Error(), "read "+filename+": "), name+": "))
		case err == nil && !ok:
			// not part of the package on linux/amd64, as for go build
		case nul >= 0:
			fileProblem(fmt.Sprintf("holds a NUL byte at offset %d; not Go source", nul))
		case l.TreeRelativeNames:
			sources = append(sources, source{filename, l.tree.Rel(filename), WithoutLineDirectives(src)})
		default:
			sources = append(sources, source{filename, filename, WithoutLineDirectives(src)})
		}
	}
	// Comments are kept for the packages whose syntax the analyzers read;
	// a declarations-only import's (the CRI API's generated field docs)
	// are parsed past.
	mode := parser.ParseComments | parser.SkipObjectResolution
	if !l.requested[importPath] && l.DeclarationsOnly != nil && l.DeclarationsOnly(importPath) {
		mode = parser.SkipObjectResolution
	}
	for i, r := range l.parseCached(sources, mode) {
		filename, f, err := sources[i].filename, r.file, r.err
		if err != nil {
			pp.problems = append(pp.problems, l.syntaxProblem(filename, err))
		}
		if f == nil || f.Name == nil || f.Package == token.NoPos || f.Name.Name == "" {
			continue // the package clause did not parse: named by its syntax problem
		}
		if f.Name.Name == "_" {
			pp.problems = append(pp.problems, Problem{Pos: l.position(f.Name.Pos()), Msg: "package _ is not a valid package name"})
			continue
		}
		files = append(files, f)
		names = append(names, filename)
	}
	// Files that disagree on the name cannot be checked together (go build
	// refuses the directory): the majority's are kept, the others named.
	pp.name = majorityName(files, guessName(importPath))
	for i, f := range files {
		if f.Name.Name != pp.name {
			pp.problems = append(pp.problems, Problem{Pos: l.position(f.Name.Pos()), Msg: fmt.Sprintf("package %s, want %s (the package's other files)", f.Name.Name, pp.name)})
			continue
		}
		pp.files = append(pp.files, f)
		pp.names = append(pp.names, names[i])
	}
	sort.SliceStable(pp.problems, func(i, j int) bool { return pp.problems[i].Pos.Filename < pp.problems[j].Pos.Filename })
	return pp, nil
}

// usable says why a parsed package cannot be checked: it has no file.
func (l *loader) usable(pp *parsedPkg) error {
	if len(pp.files) > 0 {
		return nil
	}
	rel := inputfile.QuoteName(l.tree.Rel(pp.dir))
	switch len(pp.problems) {
	case 0:
		return fmt.Errorf("%s: no Go files for %s/%s", rel, build.Default.GOOS, build.Default.GOARCH)
	case 1:
		return fmt.Errorf("%s: no Go file could be loaded: %s", rel, pp.problems[0].Error())
	}
	return fmt.Errorf("%s: none of its %d Go files could be loaded: %s (and %d more)", rel, len(pp.problems), pp.problems[0].Error(), len(pp.problems)-1)
}

func (l *loader) position(pos token.Pos) token.Position {
	p := l.fset.Position(pos)
	p.Filename = l.tree.Rel(p.Filename)
	return p
}

func (l *loader) syntaxProblem(filename string, err error) Problem {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		pos := list[0].Pos
		pos.Filename = l.tree.Rel(pos.Filename)
		msg := list[0].Msg
		if len(list) > 1 {
			msg += fmt.Sprintf(" (and %d more syntax errors)", len(list)-1)
		}
		return Problem{Pos: pos, Msg: inputfile.OneLine("syntax error: " + msg)}
	}
	return Problem{Pos: token.Position{Filename: l.tree.Rel(filename)}, Msg: inputfile.OneLine(err.Error())}
}

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
	ignoreBodies := !l.requested[importPath] && l.DeclarationsOnly != nil && l.DeclarationsOnly(importPath)
	if pkg, err := l.reuse(ctx, importPath, pp, ignoreBodies, stack); pkg != nil || err != nil {
		if err == nil {
			l.checked[importPath] = pkg
		}
		return pkg, err
	}
	pkg := &packages.Package{
		ID:              importPath,
		Name:            pp.name,
		PkgPath:         importPath,
		Fset:            l.fset,
		Syntax:          pp.files,
		GoFiles:         pp.names,
		CompiledGoFiles: pp.names,
		Imports:         map[string]*packages.Package{},
		TypesSizes:      types.SizesFor("gc", "amd64"),
		TypesInfo: &types.Info{
			Types:      map[ast.Expr]types.TypeAndValue{},
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Implicits:  map[ast.Node]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
			Scopes:     map[ast.Node]*types.Scope{},
			Instances:  map[*ast.Ident]types.Instance{},
		},
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
			dep, err := l.importFor(ctx, p, stack, pkg)
			if err != nil {
				abortErr = err
				return nil, err
			}
			answers = append(answers, importAnswer{p, dep})
			return dep, nil
		}),
	}
	files := pp.files
	if conf.IgnoreFuncBodies && l.cutting {
		files = l.cut(importPath, pp)
		pkg.Syntax = files
	}
	pkg.Types, _ = conf.Check(importPath, l.fset, files, pkg.TypesInfo)
	if abortErr != nil {
		return nil, abortErr
	}
	typeOrphanValues(l.fset, pkg.Types, files, pkg.TypesInfo)
	pkg.IllTyped = len(pkg.TypeErrors) > 0
	l.checked[importPath] = pkg
	if l.Cache != nil {
		l.Cache.checked[importPath] = &checkedPkg{pkg: pkg, files: pp.files, ignoreBodies: ignoreBodies, imports: answers}
	}
	return pkg, nil
}

// importFor answers an import of pkg, being checked: from the tree's
// source when it is requested or picked by also, else a model or a stub.
// stack is the chain of packages being checked, pkg's last.
func (l *loader) importFor(ctx context.Context, p string, stack []string, pkg *packages.Package) (*types.Package, error) {
	if !l.want[p] && !l.tried[p] && l.FromSource != nil && l.FromSource(p) && !isStd(p) {
		l.tried[p] = true
		if dir := l.tree.PackageDir(p); dir != "" {
			pp, err := l.parse(ctx, p, dir)
			if err != nil && ctx.Err() != nil {
				return nil, err
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
	if l.want[p] {
		dep, err := l.check(ctx, p, stack)
		if err != nil {
			return nil, err
		}
		pkg.Imports[p] = dep
		return dep.Types, nil
	}
	return l.importOther(p), nil
}

// majorityName is the package name most files declare; on a tie, the one
// the import path suggests, then the first in order.
func majorityName(files []*ast.File, guess string) string {
	count := map[string]int{}
	for _, f := range files {
		count[f.Name.Name]++
	}
	better := func(n, best string) bool {
		if count[n] != count[best] {
			return count[n] > count[best]
		}
		if (n == guess) != (best == guess) {
			return n == guess
		}
		return n < best
	}
	best := ""
	for n := range count {
		if best == "" || better(n, best) {
			best = n
		}
	}
	return best
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// importOther answers an import that is not loaded from the tree: a model
// of its API, or an empty stand-in.
func (l *loader) importOther(p string) *types.Package {
	model, isModel := models[p]
	if isModel {
		l.modelled[p] = true
	} else {
		l.stubbed[p] = true
	}
	if pkg, ok := l.pkgs[p]; ok {
		return pkg
	}
	var pkg *types.Package
	if isModel {
		pkg = l.checkModel(p, model)
	} else {
		pkg = types.NewPackage(p, guessName(p))
		pkg.MarkComplete()
	}
	l.pkgs[p] = pkg
	return pkg
}

func (l *loader) checkModel(p, file string) *types.Package {
	src, err := stubFS.ReadFile(file)
	if err != nil {
		panic(err) // the embedded models are part of this program
	}
	f, err := parser.ParseFile(l.fset, "plegvet-model:"+p+"/"+path.Base(p)+".go", src, parser.SkipObjectResolution)
	if err != nil {
		panic(err)
	}
	conf := types.Config{Importer: importerFunc(func(q string) (*types.Package, error) { return l.importOther(q), nil })}
	pkg, err := conf.Check(p, l.fset, []*ast.File{f}, nil)
	if err != nil {
		panic(fmt.Sprintf("model of %s: %v", p, err))
	}
	return pkg
}

// isStd reports whether an import path belongs to the standard library:
// its first element has no dot.
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && p != "C"
}

// guessName is the package name an import path most likely declares.
func guessName(p string) string {
	elems := strings.Split(p, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.Index(name, ".v"); i > 0 {
		name = name[:i]
	}
	return strings.NewReplacer("-", "_", ".", "_").Replace(name)
}

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

// Modelled reports whether an import is answered by a built-in model of
// its API (unless it is requested or loaded from source).
func Modelled(importPath string) bool {
	_, ok := models[importPath]
	return ok
}
