// Package constvalue reads a duration or a count the code sets as a
// compile-time constant: its value, the constant it came from and where
// that is declared, or why it is none. The relist periods (plegperiods)
// and the hang's deadlines (runtimehang) are read with it, so every value
// an answer cites has one form.
package constvalue

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

// Value is a duration (or a count) resolved to a constant, or why it
// could not be.
type Value struct {
	// Value is the duration as time.Duration prints it ("5m0s"), or a
	// count in decimal for a constant that is not typed as a duration.
	Value string `json:"value,omitempty"`
	// Const is the name of the constant it came from; "" for a literal.
	Const string `json:"const,omitempty"`
	// Expr is the constant's expression as written (time.Second * 300),
	// or the argument itself when it is not a named constant.
	Expr string `json:"expr,omitempty"`
	// Decl is the constant's declaration (or the literal's position).
	Decl *srcpos.Pos `json:"decl,omitempty"`
	// Unresolved says why the value is not a compile-time constant; the
	// other fields are then empty.
	Unresolved string `json:"unresolved,omitempty"`
	// Pos is where the value is written at the construction, for the
	// diagnostics of the package read; declPos is Decl there.
	Pos     token.Pos `json:"-"`
	declPos token.Pos
}

// DeclPos is where v's constant is declared, as a token.Pos of the
// package read; NoPos for a value carried by a fact from another.
func (v *Value) DeclPos() token.Pos { return v.declPos }

// Resolved reports whether v holds a constant.
func (v *Value) Resolved() bool { return v != nil && v.Unresolved == "" && v.Value != "" }

// Duration returns the value as a time.Duration, read from Value (so a
// value decoded from JSON answers the same); ok is false when unresolved.
func (v *Value) Duration() (time.Duration, bool) {
	if !v.Resolved() {
		return 0, false
	}
	if d, err := time.ParseDuration(v.Value); err == nil {
		return d, true
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return time.Duration(n), err == nil
}

// Int is the constant: nanoseconds for a duration; 0 when unresolved.
func (v *Value) Int() int64 {
	d, _ := v.Duration()
	return int64(d)
}

// String is "5m0s (eventedPlegRelistPeriod)", or the reason it is unresolved.
func (v *Value) String() string {
	switch {
	case v == nil:
		return "none"
	case v.Unresolved != "":
		return "unresolved: " + v.Unresolved
	case v.Const != "":
		return v.Value + " (" + v.Const + ")"
	}
	return v.Value
}

// RetryCount is a count (the evented PLEG's stream retries) as answers
// print it: the Value of a count, as a number.
type RetryCount struct {
	Value      *int64      `json:"value"`
	Const      string      `json:"const,omitempty"`
	Decl       *srcpos.Pos `json:"decl,omitempty"`
	Unresolved string      `json:"unresolved,omitempty"`
}

// Count is v read as a count; nil for nil.
func (v *Value) Count() *RetryCount {
	if v == nil {
		return nil
	}
	if !v.Resolved() {
		return &RetryCount{Unresolved: v.Unresolved}
	}
	return &RetryCount{Value: new(v.Int()), Const: v.Const, Decl: v.Decl}
}

// Resolver resolves expressions of one package to constants.
type Resolver struct {
	Fset *token.FileSet
	Info *types.Info
	// constExpr maps the package's constants to the expressions they are
	// declared with.
	constExpr map[*types.Const]ast.Expr
}

// NewResolver reads the constants the files declare, and the expressions
// they are declared with.
func NewResolver(fset *token.FileSet, files []*ast.File, info *types.Info) *Resolver {
	r := &Resolver{Fset: fset, Info: info, constExpr: map[*types.Const]ast.Expr{}}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if c, ok := info.Defs[n].(*types.Const); ok && i < len(vs.Values) {
						r.constExpr[c] = vs.Values[i]
					}
				}
			}
		}
	}
	return r
}

// ValueOf resolves e, an expression of the package whose files and info
// are given, to the constant it is, or says why it is none.
func ValueOf(fset *token.FileSet, files []*ast.File, info *types.Info, e ast.Expr) *Value {
	return NewResolver(fset, files, info).Value(e)
}

func isDuration(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Duration" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
}

// Value resolves e to a constant, or says why it is not one.
func (r *Resolver) Value(e ast.Expr) *Value {
	e = ast.Unparen(e)
	v := &Value{Pos: e.Pos()}
	tv, ok := r.Info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		v.Unresolved = r.whyNotConstant(e, tv, ok)
		return v
	}
	n, exact := constant.Int64Val(tv.Value)
	if !exact {
		v.Unresolved = fmt.Sprintf("%s overflows int64", types.ExprString(e))
		return v
	}
	v.Value = strconv.FormatInt(n, 10)
	if isDuration(tv.Type) {
		v.Value = time.Duration(n).String()
	}
	v.Expr, v.declPos = types.ExprString(e), e.Pos()
	// A constant of package time (time.Second) is a unit, not a setting:
	// the value is then the expression as written where it is used.
	if c := astobj.Const(r.Info, e); c != nil && (c.Pkg() == nil || c.Pkg().Path() != "time") {
		v.Const, v.declPos = c.Name(), c.Pos()
		if def, ok := r.constExpr[c]; ok {
			v.Expr = types.ExprString(def)
		}
	}
	v.Decl = srcpos.At(r.Fset, v.declPos)
	return v
}

func (r *Resolver) whyNotConstant(e ast.Expr, tv types.TypeAndValue, typed bool) string {
	what := types.ExprString(e)
	switch x := e.(type) {
	case *ast.CallExpr:
		return fmt.Sprintf("%s is computed by a call, not a compile-time constant", what)
	case *ast.SelectorExpr:
		if sel, ok := r.Info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			return fmt.Sprintf("%s is a field, set at run time (a flag or configuration), not a compile-time constant", what)
		}
		// A configuration's duration field (kubeCfg.RuntimeRequestTimeout,
		// a metav1.Duration) read through a variable whose type was not
		// loaded: no selection is recorded, and it is set at run time
		// all the same.
		if inner, ok := ast.Unparen(x.X).(*ast.SelectorExpr); ok && x.Sel.Name == "Duration" && r.rootIsVar(inner) {
			return fmt.Sprintf("%s is a configuration field (%s), set at run time, not a compile-time constant", what, inner.Sel.Name)
		}
	case *ast.Ident:
		if _, ok := r.Info.Uses[x].(*types.Var); ok {
			return fmt.Sprintf("%s is a variable, not a compile-time constant", what)
		}
	}
	if !typed || tv.Type == nil || tv.Type == types.Typ[types.Invalid] {
		if why := r.overflow(e); why != "" {
			return why
		}
		return fmt.Sprintf("%s has no type information (it depends on an import that was not loaded)", what)
	}
	return fmt.Sprintf("%s is not a compile-time constant", what)
}

// rootIsVar reports whether a chain of selections starts at a variable
// (a parameter, a local, a package-level var), not at a package name.
func (r *Resolver) rootIsVar(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.Ident:
			_, ok := r.Info.Uses[x].(*types.Var)
			return ok
		default:
			return false
		}
	}
}

// overflow says why a constant has no value when it is because its value
// does not fit an int64 (a duration of 1e12 seconds): go/types then drops
// the value, and the tree does not compile. It folds the constant's
// declaration from the values go/types kept for its operands.
func (r *Resolver) overflow(e ast.Expr) string {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return ""
	}
	def, ok := r.constExpr[astobj.Const(r.Info, id)]
	if !ok {
		return ""
	}
	v := r.fold(def, 0)
	if v == nil || (v.Kind() != constant.Int && v.Kind() != constant.Float) {
		return ""
	}
	if n := constant.ToInt(v); n.Kind() == constant.Int {
		if _, exact := constant.Int64Val(n); exact {
			return ""
		}
	}
	return fmt.Sprintf("%s = %s is %s, which does not fit a time.Duration (int64 nanoseconds): the tree does not compile", id.Name, types.ExprString(def), v.ExactString())
}

// fold evaluates a constant expression from its operands' known values.
func (r *Resolver) fold(e ast.Expr, depth int) constant.Value {
	e = ast.Unparen(e)
	if tv, ok := r.Info.Types[e]; ok && tv.Value != nil {
		return tv.Value
	}
	switch x := e.(type) {
	case *ast.BinaryExpr:
		a, b := r.fold(x.X, depth+1), r.fold(x.Y, depth+1)
		if a == nil || b == nil || a.Kind() == constant.Unknown || b.Kind() == constant.Unknown {
			return nil
		}
		switch x.Op {
		case token.ADD, token.SUB, token.MUL:
			return constant.BinaryOp(a, x.Op, b)
		}
	case *ast.Ident:
		if def, ok := r.constExpr[astobj.Const(r.Info, x)]; ok && depth < 8 {
			return r.fold(def, depth+1)
		}
	}
	return nil
}

// Files visits the file of the value's declaration (an answer's Files).
func (v *Value) Files(visit srcpos.FileVisitor) {
	if v != nil {
		srcpos.Files(visit, v.Decl)
	}
}

// Files visits the file of the count's declaration (an answer's Files).
func (r *RetryCount) Files(visit srcpos.FileVisitor) {
	if r != nil {
		srcpos.Files(visit, r.Decl)
	}
}
