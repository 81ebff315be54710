package constvalue_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/plegvet/plegvet/constvalue"
)

// A look-alike of the values a kubelet is built with: a named constant,
// a literal in time's units, a field of a typed configuration, and the
// duration field of a configuration whose package was not loaded.
const src = `package kubelet

import (
	"time"

	"example.com/unloaded/config"
)

const relistPeriod = 5 * time.Minute

type settings struct{ Timeout time.Duration }

func build(s settings, kubeCfg *config.KubeletConfiguration) {
	use(relistPeriod)
	use(2 * time.Second)
	use(s.Timeout)
	use(kubeCfg.RuntimeRequestTimeout.Duration)
}

func use(time.Duration) {}
`

func TestValueOf(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "kubelet.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.Default(), Error: func(error) {}} // config is not found: its uses are untyped
	conf.Check("example.com/kubelet", fset, []*ast.File{f}, info)
	var args []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && types.ExprString(c.Fun) == "use" {
			args = append(args, c.Args[0])
		}
		return true
	})
	want := []struct{ value, constName, expr, unresolved string }{
		{"5m0s", "relistPeriod", "5 * time.Minute", ""},
		{"2s", "", "2 * time.Second", ""},
		{"", "", "", "s.Timeout is a field, set at run time (a flag or configuration), not a compile-time constant"},
		{"", "", "", "kubeCfg.RuntimeRequestTimeout.Duration is a configuration field (RuntimeRequestTimeout), set at run time, not a compile-time constant"},
	}
	if len(args) != len(want) {
		t.Fatalf("%d calls of use, want %d", len(args), len(want))
	}
	for i, w := range want {
		v := constvalue.ValueOf(fset, []*ast.File{f}, info, args[i])
		if v.Value != w.value || v.Const != w.constName || v.Expr != w.expr || v.Unresolved != w.unresolved {
			t.Errorf("%s: value %q const %q expr %q unresolved %q; want %q %q %q %q", types.ExprString(args[i]), v.Value, v.Const, v.Expr, v.Unresolved, w.value, w.constName, w.expr, w.unresolved)
		}
		if d, ok := v.Duration(); ok != (w.value != "") || ok && d.String() != w.value {
			t.Errorf("%s: Duration() = %v, %v", types.ExprString(args[i]), d, ok)
		}
	}
}
