// Package housecheck holds the module's house rules that no compiler or
// vet check enforces, as checks over typed syntax; its tests run them
// over the module's own non-test code (go test ./internal/housecheck):
//
//   - ExportedVars: no exported package-level variable, which any
//     importer could change under every other. Two kinds are allowed:
//     an analyzer's Analyzer (*analysis.Analyzer), which go/analysis
//     drivers (multichecker, nogo, golangci-lint) require as a package
//     variable, and a sentinel error ErrX initialised with errors.New or
//     with another package's sentinel, which errors.Is needs by identity.
//   - UnwrappedErrors: an error value that fmt.Errorf formats is wrapped,
//     with %w, so that errors.Is and errors.As see through it. To quote
//     an error's text without wrapping it, format err.Error().
//   - LongFiles: no non-test Go file of MaxLines (500) lines or more, in
//     the whole repository (the tools/ modules too); it reads files as
//     text, so its test runs in -short.
package housecheck

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Package is one type-checked package: what the checks read.
type Package struct {
	Fset  *token.FileSet
	Files []*ast.File
	Types *types.Package
	Info  *types.Info // Types, Defs and Uses, at least
}

// Finding is one breach of a house rule.
type Finding struct {
	Pos     token.Position
	Message string
}

func (f Finding) String() string { return fmt.Sprintf("%s: %s", f.Pos, f.Message) }

// ExportedVars reports each exported package-level variable of p, but an
// analyzer's Analyzer and a sentinel error (see the package doc).
func ExportedVars(p Package) []Finding {
	var out []Finding
	for _, f := range p.Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					v, _ := p.Info.Defs[name].(*types.Var)
					if !name.IsExported() || v == nil {
						continue
					}
					var init ast.Expr
					if len(vs.Values) == len(vs.Names) {
						init = vs.Values[i]
					}
					if isAnalyzer(v) || isSentinel(p.Info, v, init) {
						continue
					}
					out = append(out, Finding{p.Fset.Position(name.Pos()),
						fmt.Sprintf("exported package-level variable %s: any importer can change it; make it a constant, a function returning a new value, or unexported", name.Name)})
				}
			}
		}
	}
	return out
}

// isAnalyzer: var Analyzer *analysis.Analyzer.
func isAnalyzer(v *types.Var) bool {
	return v.Name() == "Analyzer" && v.Type().String() == "*golang.org/x/tools/go/analysis.Analyzer"
}

// isSentinel: var ErrX = errors.New("...") or = otherpkg.ErrY.
func isSentinel(info *types.Info, v *types.Var, init ast.Expr) bool {
	if !strings.HasPrefix(v.Name(), "Err") || !types.Identical(v.Type(), errorType) || init == nil {
		return false
	}
	switch e := ast.Unparen(init).(type) {
	case *ast.CallExpr:
		return calls(info, e, "errors.New")
	case *ast.SelectorExpr:
		other, ok := info.Uses[e.Sel].(*types.Var)
		return ok && other.Pkg() != v.Pkg() && strings.HasPrefix(other.Name(), "Err") && types.Identical(other.Type(), errorType)
	}
	return false
}

var errorType = types.Universe.Lookup("error").Type()

// calls reports whether call calls the function of that full name
// (errors.New).
func calls(info *types.Info, call *ast.CallExpr, name string) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	return ok && fn.FullName() == name
}

// UnwrappedErrors reports each argument of fmt.Errorf whose type is an
// error (implements it) and whose verb is not %w. A format that is not
// a constant is reported too: its verbs cannot be read.
func UnwrappedErrors(p Package) []Finding {
	var out []Finding
	errIface := errorType.Underlying().(*types.Interface)
	for _, f := range p.Files {
		for n := range ast.Preorder(f) {
			call, ok := n.(*ast.CallExpr)
			if !ok || !calls(p.Info, call, "fmt.Errorf") || len(call.Args) == 0 {
				continue
			}
			format := p.Info.Types[call.Args[0]].Value
			if format == nil || format.Kind() != constant.String {
				out = append(out, Finding{p.Fset.Position(call.Pos()), "fmt.Errorf with a format that is not a constant: its verbs cannot be checked"})
				continue
			}
			verbs, ok := argVerbs(constant.StringVal(format))
			if !ok {
				continue // a malformed format: vet's printf check says so
			}
			for i, arg := range call.Args[1:] {
				t := p.Info.Types[arg].Type
				if b, ok := t.(*types.Basic); t == nil || ok && b.Info()&types.IsUntyped != 0 || !types.Implements(t, errIface) {
					continue
				}
				if vs := verbs[i]; !allW(vs) {
					out = append(out, Finding{p.Fset.Position(arg.Pos()),
						fmt.Sprintf("fmt.Errorf formats the error %s with %%%s: use %%w to wrap it (or format its .Error() to quote it unwrapped)", types.ExprString(arg), firstVerb(vs))})
				}
			}
		}
	}
	return out
}

func allW(vs string) bool { return vs != "" && strings.Trim(vs, "w") == "" }

// firstVerb is the first verb of vs that is not w.
func firstVerb(vs string) string {
	if i := strings.IndexFunc(vs, func(r rune) bool { return r != 'w' }); i >= 0 {
		return vs[i : i+1]
	}
	return "(none)"
}

// argVerbs reads a printf format: for each argument index (0-based), the
// verbs that format it, in order ("" for an argument only a * width or
// precision reads). It reports false for a format it cannot read.
func argVerbs(format string) (map[int]string, bool) {
	verbs := map[int]string{}
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		// flags
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		index := func() bool {
			if i < len(format) && format[i] == '[' {
				end := strings.IndexByte(format[i:], ']')
				if end < 0 {
					return false
				}
				var n int
				if _, err := fmt.Sscanf(format[i+1:i+end], "%d", &n); err != nil || n < 1 {
					return false
				}
				arg = n - 1
				i += end + 1
			}
			return true
		}
		number := func() {
			if i < len(format) && format[i] == '*' {
				verbs[arg] += ""
				arg++
				i++
				return
			}
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
		}
		if !index() {
			return nil, false
		}
		number() // width
		if i < len(format) && format[i] == '.' {
			i++
			if !index() {
				return nil, false
			}
			number() // precision
		}
		if !index() || i >= len(format) {
			return nil, false
		}
		if format[i] == '%' {
			continue
		}
		verbs[arg] += string(format[i])
		arg++
	}
	return verbs, true
}
