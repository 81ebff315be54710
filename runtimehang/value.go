package runtimehang

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"time"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// Value is a duration read from the code, with the constant it came from
// and where that is declared; the same JSON form as the relist values
// (plegperiods.Value), which the report's health rule carries beside it.
type Value struct {
	// Value is the duration as time.Duration prints it ("2m0s").
	Value string `json:"value,omitempty"`
	// Const is the name of the constant it came from; "" for a literal.
	Const string `json:"const,omitempty"`
	// Expr is the constant's expression as written (5 * time.Second), or
	// the value as written where it is not a named constant.
	Expr string `json:"expr,omitempty"`
	// Decl is the constant's declaration (or the literal's position).
	Decl *srcpos.Pos `json:"decl,omitempty"`
	// Unresolved says why the value is not a compile-time constant; the
	// other fields are then empty.
	Unresolved string `json:"unresolved,omitempty"`
}

// Resolved reports whether v holds a constant.
func (v *Value) Resolved() bool { return v != nil && v.Unresolved == "" && v.Value != "" }

// Duration is the value; false when unresolved or not a duration.
func (v *Value) Duration() (time.Duration, bool) {
	if !v.Resolved() {
		return 0, false
	}
	d, err := time.ParseDuration(v.Value)
	return d, err == nil
}

// Files visits the file of the value's declaration.
func (v *Value) Files(visit srcpos.FileVisitor) {
	if v != nil {
		srcpos.Files(visit, v.Decl)
	}
}

// valueOf resolves e, an expression of the package whose files and info
// are given, to the duration constant it is, or says why it is none.
func valueOf(fset *token.FileSet, files []*ast.File, info *types.Info, e ast.Expr) *Value {
	e = ast.Unparen(e)
	what := types.ExprString(e)
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		why := fmt.Sprintf("%s is not a compile-time constant", what)
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if s, ok := info.Selections[sel]; ok && s.Kind() == types.FieldVal {
				why = fmt.Sprintf("%s is a field, set at run time (a flag or configuration), not a compile-time constant", what)
			} else if inner, ok := ast.Unparen(sel.X).(*ast.SelectorExpr); ok && sel.Sel.Name == "Duration" {
				why = fmt.Sprintf("%s is a configuration field (%s), set at run time, not a compile-time constant", what, inner.Sel.Name)
			}
		}
		return &Value{Unresolved: why}
	}
	n, exact := constant.Int64Val(tv.Value)
	if !exact {
		return &Value{Unresolved: fmt.Sprintf("%s overflows int64", what)}
	}
	v := &Value{Value: strconv.FormatInt(n, 10), Expr: what, Decl: srcpos.At(fset, e.Pos())}
	if isDuration(tv.Type) {
		v.Value = time.Duration(n).String()
	}
	// A constant of package time (time.Second) is a unit, not a setting.
	if c := astobj.Const(info, e); c != nil && (c.Pkg() == nil || c.Pkg().Path() != "time") {
		v.Const, v.Decl = c.Name(), srcpos.At(fset, c.Pos())
		if def := constExpr(files, info, c); def != nil {
			v.Expr = types.ExprString(def)
		}
	}
	return v
}

// constExpr is the expression c is declared with, when files declare it.
func constExpr(files []*ast.File, info *types.Info, c *types.Const) ast.Expr {
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if info.Defs[n] == c && i < len(vs.Values) {
						return vs.Values[i]
					}
				}
			}
		}
	}
	return nil
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Duration" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
}
