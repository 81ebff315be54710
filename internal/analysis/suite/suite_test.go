package suite_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/gatefacts"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/analysis/check"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render/sarif"
)

const module = "github.com/plegvet/plegvet"

// checkConstants finds, by syntax, every constant declared with the type
// check.Check in the module's non-test Go files, by package directory
// (relative to the module root, with /).
func checkConstants(t *testing.T) map[string]map[string]string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{} // dir -> constant name -> value
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "tools" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				sel, ok := vs.Type.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Check" || types.ExprString(sel.X) != "check" {
					continue
				}
				for i, n := range vs.Names {
					v, _ := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
					dir := filepath.ToSlash(rel)
					if out[dir] == nil {
						out[dir] = map[string]string{}
					}
					out[dir][n.Name] = v
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every check is a typed constant beside the bullet that documents it (in
// the package of its analyzer, or the check package of a group with no
// analyzer) and
// a SARIF rule, and every constant, bullet and rule is a check.
func TestChecksConstantsDocsAndRules(t *testing.T) {
	consts := checkConstants(t)
	homes := map[string][]string{"check/rpcstream": {suite.Stream().Name}, "check/stalelist": {suite.FeatureList().Name}} // package dir -> groups
	for _, a := range suite.Analyzers() {
		homes[strings.TrimPrefix(a.URL, "https://pkg.go.dev/"+module+"/")] = []string{a.Name}
	}
	documented := map[string][]string{} // group -> checks of its doc
	for _, g := range suite.Groups() {
		for _, c := range g.Checks {
			documented[g.Name] = append(documented[g.Name], string(c.Check))
			if !strings.HasSuffix(c.Text, ".") {
				t.Errorf("%s/%s: its doc bullet is cut short: %q", g.Name, c.Check, c.Text)
			}
		}
	}
	for dir, cs := range consts {
		gs, ok := homes[dir]
		if !ok {
			t.Errorf("%s declares check constants %v, but is the home of no group of the suite", dir, cs)
			continue
		}
		var values []string
		for _, v := range cs {
			values = append(values, v)
		}
		slices.Sort(values)
		var docs []string
		for _, g := range gs {
			docs = append(docs, documented[g]...)
		}
		slices.Sort(docs)
		if !slices.Equal(values, docs) {
			t.Errorf("%s: constants %v\ndoc bullets %v", dir, values, docs)
		}
	}
	for dir, gs := range homes {
		for _, g := range gs {
			if len(consts[dir]) == 0 && len(documented[g]) > 0 {
				t.Errorf("%s documents checks but %s declares no constant", g, dir)
			}
		}
	}
	var buf bytes.Buffer
	if err := sarif.Write(&buf, sarif.Run{Version: "test", Rules: suite.Rules()}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	var rules, want []string
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		rules = append(rules, r.ID)
	}
	for g, cs := range documented {
		for _, c := range cs {
			want = append(want, g+"/"+c)
		}
	}
	sort.Strings(want)
	if !slices.Equal(rules, want) {
		t.Errorf("SARIF rules %v\nwant %v", rules, want)
	}
}

// Every check's findings are warnings but gate-note's, which inform.
func TestSeverities(t *testing.T) {
	for _, r := range suite.Rules() {
		want := check.Warning
		if r.Check == pleg.GateNote {
			want = check.Note
		}
		if r.Severity != want {
			t.Errorf("%s: severity %q, want %q", r.ID, r.Severity, want)
		}
	}
}

// Each analyzer's settings are the fields of its Config, each a flag of
// the same name in kebab case, and the flag's default is DefaultConfig's.
func TestSettingsAreConfigFieldsAndFlags(t *testing.T) {
	cfgType := reflect.TypeFor[suite.Config]()
	for _, a := range suite.Analyzers() {
		field, ok := cfgType.FieldByNameFunc(func(n string) bool {
			f, _ := cfgType.FieldByName(n)
			return f.Tag.Get("json") == a.Name
		})
		if !ok {
			t.Errorf("suite.Config has no field named %q in JSON", a.Name)
			continue
		}
		var keys []string
		for _, s := range suite.Settings() {
			if s.Analyzer == a.Name {
				keys = append(keys, s.Flag)
				if s.Doc == "" || s.Flag != suite.FlagName(s.Key) {
					t.Errorf("%s.%s: flag -%s, doc %q", a.Name, s.Key, s.Flag, s.Doc)
				}
			}
		}
		var flags []string
		a.Default.Flags.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
		slices.Sort(keys)
		if !slices.Equal(keys, flags) {
			t.Errorf("%s: settings %v (fields of %s), flags %v", a.Name, keys, field.Type, flags)
		}
		// A freshly built analyzer's flags read DefaultConfig.
		fresh := a.New(suite.DefaultConfig())
		a.Default.Flags.VisitAll(func(f *flag.Flag) {
			if got := fresh.Flags.Lookup(f.Name).Value.String(); got != f.DefValue {
				t.Errorf("-%s.%s: %q built from DefaultConfig, %q as the default", a.Name, f.Name, got, f.DefValue)
			}
		})
	}
	got := map[string]string{}
	for _, s := range suite.Settings() {
		got[s.Analyzer+"."+s.Key] = s.Default
	}
	want := map[string]string{"featuregate.rules": "auto", "featuregate.alphaDefaultExempt": "WindowsHostNetwork", "pleg.note": "false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings %v, want %v", got, want)
	}
}

func TestConfigValidate(t *testing.T) {
	c := suite.DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Featuregate.Rules = "soon"
	if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), `featuregate.rules: "soon" is neither`) {
		t.Errorf("Validate() = %v", err)
	}
}

// The package variables are what the library runs; New builds fresh
// analyzers from a configuration, never the package variables.
func TestDefaultsAndNew(t *testing.T) {
	if got := suite.Defaults(); !slices.Equal(got, []*analysis.Analyzer{featuregate.Analyzer, pleg.Analyzer}) {
		t.Errorf("Defaults() = %v", got)
	}
	cfg := suite.DefaultConfig()
	cfg.Pleg.Note = true
	as := suite.New(cfg)
	if err := analysis.Validate(as); err != nil {
		t.Fatal(err)
	}
	for i, a := range as {
		if a == suite.Defaults()[i] || a.Name != suite.Defaults()[i].Name {
			t.Errorf("New()[%d] = %s", i, a.Name)
		}
	}
	if as[1].Flags.Lookup("note").Value.String() != "true" || pleg.Analyzer.Flags.Lookup("note").Value.String() != "false" {
		t.Error("New's configuration is not the new analyzer's alone")
	}
}

// The gates' facts come from gatefacts, which reports nothing: pleg
// requires it and not featuregate, so leaving featuregate out runs none
// of its checks while pleg still sees gate specs.
func TestFactsApartFromChecks(t *testing.T) {
	for _, a := range suite.Analyzers() {
		if !slices.Contains(a.Default.Requires, gatefacts.Analyzer) {
			t.Errorf("%s does not require gatefacts", a.Name)
		}
		for _, r := range closure(a.Default) {
			if r != a.Default && len(r.FactTypes) > 0 && r != gatefacts.Analyzer {
				t.Errorf("%s requires %s, which exports facts", a.Name, r.Name)
			}
			if r != a.Default && slices.ContainsFunc(suite.Analyzers(), func(b suite.Analyzer) bool { return b.Default == r }) {
				t.Errorf("%s requires the checking analyzer %s", a.Name, r.Name)
			}
		}
	}
	if len(featuregate.Analyzer.FactTypes) != 0 {
		t.Error("featuregate exports facts")
	}
}

func closure(a *analysis.Analyzer) []*analysis.Analyzer {
	out := []*analysis.Analyzer{a}
	for _, r := range a.Requires {
		out = append(out, closure(r)...)
	}
	return out
}

func TestMatters(t *testing.T) {
	for _, c := range []struct {
		path    string
		imports []string
		want    bool
	}{
		{"k8s.io/kubernetes/pkg/util/hash", []string{"fmt", "hash"}, false},
		{"k8s.io/kubernetes/pkg/kubelet/pleg", []string{"time"}, true},
		{"pkg/kubelet/pleg", nil, true},
		{"k8s.io/kubernetes/pkg/kubelet", []string{"k8s.io/kubernetes/pkg/kubelet/pleg"}, true},
		// A features package's importer reads its gate constants, which
		// matter only where a PLEG is built or gates are declared.
		{"k8s.io/kubernetes/pkg/proxy", []string{"k8s.io/apiserver/pkg/util/feature", "k8s.io/kubernetes/pkg/features"}, false},
		{"k8s.io/kubernetes/pkg/kubelet/lifecycle", []string{"k8s.io/component-base/featuregate", "k8s.io/kubernetes/pkg/features"}, true},
		{"k8s.io/apiserver/pkg/features", []string{"k8s.io/component-base/featuregate"}, true},
		{"example.com/fork/x", []string{"example.com/fork/vendor/k8s.io/component-base/featuregate"}, true},
		{"example.com/notfeatures", []string{"example.com/featuregate"}, false},
		{"k8s.io/kubernetes/pkg/kubelet/cri", []string{"k8s.io/cri-api/pkg/apis"}, false}, // the stream's checks are the library's
	} {
		if got := suite.Matters(c.path, slices.Values(c.imports)); got != c.want {
			t.Errorf("Matters(%s, %v) = %t, want %t", c.path, c.imports, got, c.want)
		}
	}
	if !suite.FromSource("k8s.io/apiserver/pkg/features") || !suite.FromSource("k8s.io/kubernetes/pkg/kubelet/pleg") || suite.FromSource("k8s.io/component-base/featuregate") {
		t.Error("FromSource: want features packages and pleg, not the modelled API")
	}
	if !suite.Stream().FromSource("k8s.io/cri-api/pkg/apis") || suite.FromSource("k8s.io/cri-api/pkg/apis") {
		t.Error("the CRI API is the stream's to load, not the analyzers'")
	}
}

// fixtures are the packages the analyzers' tests run on.
var fixtures = []string{
	"k8s.io/kubernetes/...", "k8s.io/apiserver/...",
	"gateshapes/...", "gaterules/...", "gatefixes",
	"kubeletforks/...", "notes/...", "oldtree/...", "newtree/...",
}

// Under go vet, a package for which Matters is false is not analysed:
// its facts file is empty and it reports nothing. So every package an
// analyzer (or one it requires) imports facts from, exports facts on or
// reports in must be one for which Matters holds; this runs each analyzer
// over the fixtures, recording them.
func TestMattersCoversEveryFactRead(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := packages.Load(&packages.Config{
		Mode:  packages.LoadAllSyntax,
		Dir:   testdata,
		Tests: true,
		Env:   append(os.Environ(), "GOPATH="+testdata, "GO111MODULE=off", "GOWORK=off", "GOPROXY=off"),
	}, fixtures...)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string][]string{} // package path -> paths of its direct imports
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, imp := range p.Imports {
			imports[p.PkgPath] = append(imports[p.PkgPath], imp.PkgPath)
		}
	})
	var all []*analysis.Analyzer
	for _, a := range suite.Analyzers() {
		for _, r := range closure(a.Default) {
			if !slices.Contains(all, r) {
				all = append(all, r)
			}
		}
	}
	for _, a := range all {
		rec := &recorder{touched: map[string]string{}}
		graph, err := checker.Analyze([]*analysis.Analyzer{rec.wrap(a)}, pkgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for act := range graph.All() {
			if act.Err != nil {
				t.Errorf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err)
			}
		}
		if len(rec.touched) == 0 || len(a.FactTypes) > 0 && rec.reads == 0 {
			t.Errorf("%s: %d facts read, %d packages touched: the fixtures do not exercise it", a.Name, rec.reads, len(rec.touched))
		}
		for path, how := range rec.touched {
			if !suite.Matters(path, slices.Values(imports[path])) {
				t.Errorf("%s %s, for which suite.Matters is false: go vet would not analyse it (imports %v)", a.Name, how, imports[path])
			}
		}
	}
}

// recorder wraps an analyzer to record the packages whose facts it
// imports, on which it exports facts, and in which it reports.
type recorder struct {
	mu      sync.Mutex
	touched map[string]string // package path -> what the analyzer did there
	reads   int
}

func (r *recorder) note(pkg *types.Package, how string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if pkg != nil {
		r.touched[pkg.Path()] = how + " " + pkg.Path()
	}
	if strings.HasPrefix(how, "imported") {
		r.reads++
	}
}

func (r *recorder) wrap(a *analysis.Analyzer) *analysis.Analyzer {
	w := &analysis.Analyzer{
		Name: a.Name, Doc: a.Doc, Requires: a.Requires, FactTypes: a.FactTypes,
		ResultType: a.ResultType, RunDespiteErrors: a.RunDespiteErrors,
	}
	w.Run = func(pass *analysis.Pass) (any, error) {
		importObj, importPkg := pass.ImportObjectFact, pass.ImportPackageFact
		exportObj, exportPkg, report := pass.ExportObjectFact, pass.ExportPackageFact, pass.Report
		pass.ImportObjectFact = func(obj types.Object, f analysis.Fact) bool {
			ok := importObj(obj, f)
			if ok {
				r.note(obj.Pkg(), "imported a fact of")
			}
			return ok
		}
		pass.ImportPackageFact = func(pkg *types.Package, f analysis.Fact) bool {
			ok := importPkg(pkg, f)
			if ok {
				r.note(pkg, "imported a fact of")
			}
			return ok
		}
		pass.ExportObjectFact = func(obj types.Object, f analysis.Fact) {
			r.note(pass.Pkg, "exported a fact on")
			exportObj(obj, f)
		}
		pass.ExportPackageFact = func(f analysis.Fact) {
			r.note(pass.Pkg, "exported a fact on")
			exportPkg(f)
		}
		pass.Report = func(d analysis.Diagnostic) {
			r.note(pass.Pkg, "reported in")
			report(d)
		}
		return a.Run(pass)
	}
	return w
}
