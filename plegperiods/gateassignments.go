// The package's index for following tests: every value each variable and
// field is given, its functions and their parameters.

package plegperiods

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// assignments are every value a variable or field is given in the package;
// why is set when one cannot be read (a tuple, its address taken).
type assignments struct {
	values []ast.Expr // nil entries: the zero value of a declaration
	why    string
}

// index reads, once, the package's functions, parameters and assignments.
func (g *gateReader) index() {
	if g.funcs != nil {
		return
	}
	g.funcs = map[*types.Func]*ast.FuncDecl{}
	g.params = map[*types.Var]string{}
	g.sets = map[*types.Var]*assignments{}
	for _, f := range g.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if fn, ok := g.info.Defs[n.Name].(*types.Func); ok && n.Body != nil {
					g.funcs[fn] = n
				}
				g.addParams(n.Name.Name, n.Recv, n.Type.Params, n.Type.Results)
			case *ast.FuncLit:
				g.addParams("a function literal", n.Type.Params, n.Type.Results)
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					switch v := g.assigned(l); {
					case v == nil:
					case n.Tok != token.ASSIGN && n.Tok != token.DEFINE:
						g.unreadable(v, fmt.Sprintf("%s is updated by %s", v.Name(), n.Tok))
					default:
						g.assign(v, i, len(n.Lhs), n.Rhs)
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if v, ok := g.info.Defs[id].(*types.Var); ok {
						g.assign(v, i, len(n.Names), n.Values)
					}
				}
			case *ast.RangeStmt:
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if v := g.assigned(e); v != nil {
						g.unreadable(v, fmt.Sprintf("%s is set by a range loop", v.Name()))
					}
				}
			case *ast.UnaryExpr:
				if v := g.assigned(n.X); v != nil && n.Op == token.AND {
					g.unreadable(v, fmt.Sprintf("its address is taken (%s): it can be set anywhere", types.ExprString(n)))
				}
			case *ast.CompositeLit:
				g.compositeLit(n)
			}
			return true
		})
	}
}

func (g *gateReader) addParams(fn string, lists ...*ast.FieldList) {
	for _, l := range lists {
		if l == nil {
			continue
		}
		for _, field := range l.List {
			for _, id := range field.Names {
				if v, ok := g.info.Defs[id].(*types.Var); ok {
					g.params[v] = fn
				}
			}
		}
	}
}

func (g *gateReader) set(v *types.Var) *assignments {
	a := g.sets[v]
	if a == nil {
		a = &assignments{}
		g.sets[v] = a
	}
	return a
}

// add records a value v is given (nil: its zero value).
func (g *gateReader) add(v *types.Var, value ast.Expr) {
	g.set(v).values = append(g.set(v).values, value)
}

func (g *gateReader) unreadable(v *types.Var, why string) {
	if a := g.set(v); a.why == "" {
		a.why = why
	}
}

// assign records the value given to v, the i-th of n names set to values
// (none: a declaration's zero values).
func (g *gateReader) assign(v *types.Var, i, n int, values []ast.Expr) {
	switch len(values) {
	case n:
		g.add(v, values[i])
	case 0:
		g.add(v, nil)
	default:
		g.unreadable(v, fmt.Sprintf("%s is one of the results of %s", v.Name(), types.ExprString(values[0])))
	}
}

// assigned is the variable or field an assignment's left side sets.
func (g *gateReader) assigned(e ast.Expr) *types.Var {
	v, _ := defOrUse(g.info, e).(*types.Var)
	return v
}

// compositeLit records the fields a struct literal sets, keyed or not.
func (g *gateReader) compositeLit(lit *ast.CompositeLit) {
	t := g.info.TypeOf(lit)
	if t == nil {
		return
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for i, el := range lit.Elts {
		kv, keyed := el.(*ast.KeyValueExpr)
		switch {
		case keyed:
			if v, ok := astobj.Of(g.info, kv.Key).(*types.Var); ok && v.IsField() {
				g.add(v, kv.Value)
			}
		case i < st.NumFields():
			g.add(st.Field(i), el)
		}
	}
}

// declaredHere reports whether obj is declared in the package's files,
// whose assignments the reader sees.
func (g *gateReader) declaredHere(obj types.Object) bool {
	return slices.ContainsFunc(g.files, func(f *ast.File) bool { return f.FileStart <= obj.Pos() && obj.Pos() < f.FileEnd })
}
