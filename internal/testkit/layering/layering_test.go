package layering_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/plegvet/plegvet"

// drivers are the packages under internal/ that depend on analyzers by
// design, each with why. Keep the list short: plumbing takes what it needs
// from its callers as plain data (internal/render/sarif takes the suite's rules).
var drivers = map[string]string{
	module + "/internal/analysis/suite":         "the one list of analyzers: it builds each and reads its checks and flags",
	module + "/internal/load/engine":            "the one place that loads a tree and runs the suite over it",
	module + "/internal/assemble":               "reads the analyzers' results into the library's answers (the root is its facade)",
	module + "/internal/frontend/driver":        "the standalone go/analysis driver: it runs the suite's analyzers and prints their findings",
	module + "/internal/assemble/nodeindex/gen": "go generate's command: the index holds the library's own answers (LoadNodeSource)",
}

// loaders are the packages that load a tree and run analyzers: only the
// engine imports them, so that every loading and run is configured once.
var loaders = []string{
	module + "/internal/load/srcload",
	"golang.org/x/tools/go/analysis/checker",
}

// The one importer of the loader and of x/tools' checker is the engine:
// not the library, not the command, not the language server.
func TestOnlyTheEngineLoads(t *testing.T) {
	listed := 0
	for _, p := range list(t, "-json=ImportPath,Imports", module+"/...") {
		listed++
		if p.ImportPath == module+"/internal/load/engine" {
			continue
		}
		for _, imp := range p.Imports {
			if slices.Contains(loaders, imp) {
				t.Errorf("%s imports %s: load and run analyzers through internal/load/engine", p.ImportPath, imp)
			}
		}
	}
	if listed < 10 {
		t.Fatalf("go list listed %d packages of the module", listed)
	}
}

// pkg is what go list says of a package.
type pkg struct {
	ImportPath    string
	Imports, Deps []string
}

// list runs go list with the arguments and decodes its packages.
func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("go list: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// above reports whether a package sits above the plumbing: the root
// package (the library) or an analyzer.
func above(path string) bool {
	return path == module || strings.HasPrefix(path, module+"/analyzer/")
}

// No package under internal/ depends, directly or through others, on the
// root package or on a package under analyzer/, except the drivers. Test
// files do not count: a test may exercise its package through the library.
func TestInternalDependsOnNothingAbove(t *testing.T) {
	listed := map[string]bool{}
	for _, p := range list(t, "-json=ImportPath,Imports,Deps", module+"/internal/...") {
		listed[p.ImportPath] = true
		if _, ok := drivers[p.ImportPath]; ok {
			continue
		}
		for _, d := range p.Deps {
			if !above(d) {
				continue
			}
			how := "depends on"
			for _, imp := range p.Imports {
				if imp == d {
					how = "imports"
				}
			}
			t.Errorf("%s %s %s: plumbing takes what it needs from its callers", p.ImportPath, how, d)
		}
	}
	if len(listed) < 2 {
		t.Fatalf("go list listed %d packages under internal/", len(listed))
	}
	for p := range drivers {
		if !listed[p] {
			t.Errorf("drivers names %s, which is no package under internal/", p)
		}
	}
}

// loading are the packages that find, fetch, parse or type-check a tree
// or a module: the first layer. The answer model, the extractors and the
// renderer take what they read as data and import none of them, directly
// or through others, so that a library user reading results, or a reader
// of an extractor, pulls in no loader.
var loading = []string{
	module + "/internal/load/", // every package of the first layer
	module + "/internal/assemble",
	module + "/internal/frontend/",
	"golang.org/x/tools/go/packages",
	"golang.org/x/tools/go/analysis/checker",
}

// data are the packages that must load nothing: the answer model, the
// extractors and the renderer.
var data = []string{
	module + "/answer",
	module + "/srcpos",
	module + "/featuregates",
	module + "/plegperiods",
	module + "/criproto",
	module + "/runtimestream",
	module + "/runtimehang",
	module + "/nodeverdict",
	module + "/ladder",
	module + "/internal/render",
}

func TestDataLoadsNothing(t *testing.T) {
	pkgs := list(t, append([]string{"-json=ImportPath,Deps"}, data...)...)
	if len(pkgs) != len(data) {
		t.Fatalf("go list listed %d of the %d data packages", len(pkgs), len(data))
	}
	for _, p := range pkgs {
		for _, d := range p.Deps {
			if slices.ContainsFunc(loading, func(l string) bool { return d == l || strings.HasSuffix(l, "/") && strings.HasPrefix(d, l) }) {
				t.Errorf("%s depends on %s: the answer, the extractors and the renderer take what was read as data", p.ImportPath, d)
			}
		}
	}
}

// frontEnds are the packages users run: flags and printing, no logic.
// Nothing under internal/ depends on one.
var frontEnds = []string{module + "/cmd/", module + "/lsp", module + "/gclplugin"}

func TestInternalDependsOnNoFrontEnd(t *testing.T) {
	for _, p := range list(t, "-json=ImportPath,Deps", module+"/internal/...") {
		for _, d := range p.Deps {
			for _, fe := range frontEnds {
				if d == fe || strings.HasPrefix(d, fe) || strings.HasPrefix(d, fe+"/") {
					t.Errorf("%s depends on the front end %s", p.ImportPath, d)
				}
			}
		}
	}
}

// The root returns package answer's types and re-exports none of them:
// a library user reads each type's fields where it is declared. What the
// root still aliases are internal types (doc.go says why each stays).
func TestRootAliasesNoAnswerType(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join("..", "..", ".."), func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	root := pkgs["plegvet"]
	if root == nil || len(root.Files) < 5 {
		t.Fatalf("the root package was not read: %v", pkgs)
	}
	fromAnswer := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		return ok && id.Name == "answer"
	}
	for name, f := range root.Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Assign.IsValid() && fromAnswer(s.Type) {
						t.Errorf("%s: type %s = %s: return package answer's type, do not alias it", filepath.Base(name), s.Name.Name, types.ExprString(s.Type))
					}
				case *ast.ValueSpec:
					for i, v := range s.Values {
						if fromAnswer(v) {
							t.Errorf("%s: %s = %s: use package answer's name, do not alias it", filepath.Base(name), s.Names[i].Name, types.ExprString(v))
						}
					}
				}
			}
		}
	}
}
