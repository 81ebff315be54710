package housecheck

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"golang.org/x/tools/go/packages"
)

// moduleRoot is the root of the module, from this package's directory.
const moduleRoot = "../../.."

// modulePackages loads, once, every package of the module (./..., which
// leaves out testdata and the tools/ modules) without its tests, typed.
var modulePackages = sync.OnceValues(func() ([]Package, error) {
	dir, err := filepath.Abs(moduleRoot)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	var out []Package
	var errs []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
		out = append(out, Package{Fset: p.Fset, Files: p.Syntax, Types: p.Types, Info: p.TypesInfo})
	}
	if len(errs) > 0 {
		return nil, &loadError{errs}
	}
	return out, nil
})

type loadError struct{ errs []string }

func (e *loadError) Error() string {
	return "the module's packages do not load (the checks would read them in part):\n\t" + strings.Join(e.errs, "\n\t")
}

func checkModule(t *testing.T, check func(Package) []Finding) {
	t.Helper()
	if testing.Short() {
		t.Skip("loads and type-checks the whole module")
	}
	pkgs, err := modulePackages()
	if err != nil {
		t.Fatal(err)
	}
	root := slices.ContainsFunc(pkgs, func(p Package) bool { return p.Types != nil && p.Types.Path() == "github.com/plegvet/plegvet" })
	if len(pkgs) < 10 || !root {
		t.Fatalf("%d packages loaded from %s, the root package among them: %t; not the module", len(pkgs), moduleRoot, root)
	}
	for _, p := range pkgs {
		for _, f := range check(p) {
			t.Error(f)
		}
	}
}

// TestNoExportedVars: no exported package-level variable in the module's
// non-test code, but analyzers' Analyzer (go/analysis drivers need the
// variable) and sentinel errors ErrX = errors.New(...) (errors.Is
// compares them by identity).
func TestNoExportedVars(t *testing.T) { checkModule(t, ExportedVars) }

// TestErrorsWrap: every fmt.Errorf in the module's non-test code that
// formats an error wraps it with %w.
func TestErrorsWrap(t *testing.T) { checkModule(t, UnwrappedErrors) }

// TestFilesAreShort: no non-test Go file of the repository, the tools/
// modules included, is 500 lines long or more.
func TestFilesAreShort(t *testing.T) {
	long, err := LongFiles(os.DirFS(moduleRoot))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Error(f)
	}
}

// LongFiles counts lines as wc -l does (a last line without its newline
// counts too) and leaves tests, testdata and dot folders alone.
func TestLongFilesOnSamples(t *testing.T) {
	lines := func(n int, last string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(strings.Repeat("x\n", n-1) + last)}
	}
	fsys := fstest.MapFS{
		"a/long.go":             lines(MaxLines, "x\n"),
		"a/unterminated.go":     lines(MaxLines, "x"),
		"a/short.go":            lines(MaxLines-1, "x\n"),
		"a/long_test.go":        lines(2*MaxLines, "x\n"),
		"a/long.txt":            lines(2*MaxLines, "x\n"),
		"a/testdata/long.go":    lines(2*MaxLines, "x\n"),
		".git/long.go":          lines(2*MaxLines, "x\n"),
		"tools/m/cmd/longer.go": lines(MaxLines+1, "x\n"),
	}
	found, err := LongFiles(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.String())
	}
	compare(t, "LongFiles", got, []string{"a/long.go: 500 lines", "a/unterminated.go: 500 lines", "tools/m/cmd/longer.go: 501 lines"})
}

// checkSource type-checks src as package p (importing only the standard
// library) and runs the check over it.
func checkSource(t *testing.T, src string, check func(Package) []Finding) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range check(Package{Fset: fset, Files: []*ast.File{f}, Types: pkg, Info: info}) {
		got = append(got, fd.String())
	}
	return got
}

// The checks catch what the module held before they were added, and
// leave alone what they allow.
func TestChecksOnSamples(t *testing.T) {
	vars := checkSource(t, `package p

import (
	"errors"
	"io/fs"
	"time"
)

var ErrSentinel = errors.New("sentinel")
var ErrAlias = fs.ErrNotExist
var (
	FetchTimeout = 5 * time.Minute // set from the environment by a command
	ReferenceLists = []string{"a", "b"}
	yes, no = true, false
	ErrNotSentinel = wrapped()
	Analyzer = 3
)
var errUnexported = errors.New("x")

func wrapped() error { return errUnexported }
`, ExportedVars)
	wantVars := []string{
		"p.go:12:2: exported package-level variable FetchTimeout",
		"p.go:13:2: exported package-level variable ReferenceLists",
		"p.go:15:2: exported package-level variable ErrNotSentinel",
		"p.go:16:2: exported package-level variable Analyzer",
	}
	compare(t, "ExportedVars", vars, wantVars)

	errs := checkSource(t, `package p

import (
	"errors"
	"fmt"
)

type myErr struct{}

func (*myErr) Error() string { return "mine" }

func f(err error, e *myErr, s string) []error {
	return []error{
		fmt.Errorf("reading %s: %v", s, err),
		fmt.Errorf("%s: %s", s, e),
		fmt.Errorf("%[2]s: %[1]v", err, s),
		fmt.Errorf("%*d %v", 3, 4, err),
		fmt.Errorf("%d%% of %s: %w", 3, s, err),
		fmt.Errorf("%w and %w", err, e),
		fmt.Errorf("%[1]w (%[1]v)", err),
		fmt.Errorf("quoted, not wrapped: %s", err.Error()),
		fmt.Errorf("no error: %v", s),
		errors.New(s),
	}
}
`, UnwrappedErrors)
	wantErrs := []string{
		"p.go:14:35: fmt.Errorf formats the error err with %v",
		"p.go:15:27: fmt.Errorf formats the error e with %s",
		"p.go:16:30: fmt.Errorf formats the error err with %v",
		"p.go:17:30: fmt.Errorf formats the error err with %v",
		"p.go:20:31: fmt.Errorf formats the error err with %v",
	}
	compare(t, "UnwrappedErrors", errs, wantErrs)
}

// compare checks that each finding starts with its wanted prefix.
func compare(t *testing.T, name string, got, want []string) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("%s found:\n\t%s\nwant findings starting:\n\t%s", name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
