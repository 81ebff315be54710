package astobj

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

const src = `package p

type T struct{}

func (T) M() int { return 0 }

type I interface{ N() int }

type G[E any] struct{ e E }

func (g G[E]) Get() E { return g.e }

func f() int            { return 0 }
func gen[E any](e E) E  { return e }

var (
	t  T
	i  I
	g  G[int]
	fv = f
	mv = t.M
)

func calls() {
	f()          // a function
	(f)()        // parenthesised
	t.M()        // a method
	T.M(t)       // a method expression
	i.N()        // an interface method: not static, but named
	I.N(i)       // an interface method expression
	g.Get()      // a method of an instantiated type: the generic method
	gen(1)       // a generic function, type arguments inferred
	gen[int](1)  // a generic function, type arguments written
	fv()         // a function value
	mv()         // a method value held in a variable
	_ = T(t)     // a conversion
	_ = len("")  // a builtin
	func() {}()  // a literal
}
`

// TestFunc pins what Func resolves: typeutil.StaticCallee's answer, plus
// the interface methods it leaves out.
func TestFunc(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	method := func(typ, name string) types.Object {
		obj, _, _ := types.LookupFieldOrMethod(pkg.Scope().Lookup(typ).Type(), true, pkg, name)
		return obj
	}
	want := []types.Object{
		pkg.Scope().Lookup("f"),
		pkg.Scope().Lookup("f"),
		method("T", "M"),
		method("T", "M"),
		method("I", "N"),
		method("I", "N"),
		method("G", "Get"),
		pkg.Scope().Lookup("gen"),
		pkg.Scope().Lookup("gen"),
		nil, nil, nil, nil, nil,
	}
	var got []*types.Func
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			got = append(got, Func(info, call))
		}
		return true
	})
	if len(got) != len(want) {
		t.Fatalf("%d calls, want %d", len(got), len(want))
	}
	for i, fn := range got {
		var obj types.Object
		if fn != nil {
			obj = fn
		}
		if obj != want[i] {
			t.Errorf("call %d: Func = %v, want %v", i, obj, want[i])
		}
	}
}
