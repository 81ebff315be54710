// Package mutate rewrites a Go file's syntax by one mutation operator,
// for the mutation tests: each mutant of a look-alike fixture must change
// plegvet's answer or be refused, never leave the answer as it was with
// exit 0. The operators work on go/ast (no text substitution), each on a
// named target: a function (Name or Type.Method) or a constant.
package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
)

// Mutant is one mutation: an operator applied to a target of a file.
type Mutant struct {
	// Op is the operator (see ops), File the file's path relative to the
	// tree, Target the function or constant, Arg the operator's argument.
	Op, File, Target, Arg string
	// Expect says what the answer must do: "change" (the answer differs
	// from the unmutated one), "refuse" (exit 1: the tree could not be
	// read or followed), "either" of the two, or "equivalent" (the mutant
	// behaves as the unmutated code: the same answer, or refused).
	Expect string
}

func (m Mutant) String() string {
	return strings.TrimSpace(strings.Join([]string{m.Op, m.File, m.Target, m.Arg}, " "))
}

// ops are the operators, with what each does.
var ops = map[string]string{
	"invert-compare":    "the first ordered comparison in Target flipped (> to <)",
	"self-compare":      "the first ordered comparison in Target compares its right side, doubled, with itself",
	"offset-compare":    "the first ordered comparison in Target compares with its right side plus Arg",
	"healthy-past":      "in Target, the return in the body of the first ordered comparison's if returns true first",
	"scale-const":       "the constant Target's value multiplied by Arg",
	"set-const":         "the constant Target's value replaced by the expression Arg",
	"drop-call":         "in Target, the first statement calling Arg removed",
	"call-via-value":    "in Target, the first statement calling Arg made through a function value: f := X.Arg; f(...)",
	"reassign":          "in Target, after the statement defining the variable named before the dot in Arg, Arg (VAR.FIELD=EXPR) assigned",
	"wrap-func-value":   "in Target, the first use of the identifier Arg wrapped in a function literal called at once",
	"gate-true":         "in Target, the first call of a method Enabled replaced by true",
	"swap-format-args":  "in Target, the first call with a constant format string and two arguments after it: those two swapped",
	"index-format-args": "in Target, the first call with a constant format string and two arguments after it: its verbs indexed the other way round (%[2]v, %[1]v)",
	"append-decl":       "the declaration Arg appended to the file",
	"break-syntax":      "the file cut in the middle of a declaration",
}

// Apply applies m to src, a file's text; an error when the target or the
// construct the operator needs is not there (a mutant that mutates
// nothing is a broken list, not a pass).
func Apply(src []byte, m Mutant) ([]byte, error) {
	if _, ok := ops[m.Op]; !ok {
		return nil, fmt.Errorf("%s: no operator %q", m, m.Op)
	}
	if m.Op == "break-syntax" {
		return append(bytes.Clone(src), []byte("\nfunc broken(\n")...), nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, m.File, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	done := false
	switch m.Op {
	case "scale-const", "set-const":
		done = mutateConst(f, m)
	case "append-decl":
		var out bytes.Buffer
		if err := format.Node(&out, fset, f); err != nil {
			return nil, err
		}
		out.WriteString("\n" + m.Arg + "\n")
		return format.Source(out.Bytes())
	default:
		fd := findFunc(f, m.Target)
		if fd == nil {
			return nil, fmt.Errorf("%s: no function %s", m, m.Target)
		}
		done = mutateFunc(fd, m)
	}
	if !done {
		return nil, fmt.Errorf("%s: nothing to mutate", m)
	}
	var out bytes.Buffer
	if err := format.Node(&out, fset, f); err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	return out.Bytes(), nil
}

// expr parses an expression of the operator's argument.
func expr(s string) ast.Expr {
	e, err := parser.ParseExpr(s)
	if err != nil {
		panic(fmt.Sprintf("mutate: %q: %v", s, err))
	}
	return e
}

func findFunc(f *ast.File, name string) *ast.FuncDecl {
	typ, method, isMethod := strings.Cut(name, ".")
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		switch {
		case !isMethod && fd.Recv == nil && fd.Name.Name == name:
			return fd
		case isMethod && fd.Recv != nil && fd.Name.Name == method && recvType(fd) == typ:
			return fd
		}
	}
	return nil
}

func recvType(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func mutateConst(f *ast.File, m Mutant) bool {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name != m.Target || i >= len(vs.Values) {
					continue
				}
				if m.Op == "scale-const" {
					vs.Values[i] = &ast.BinaryExpr{X: expr(m.Arg), Op: token.MUL, Y: &ast.ParenExpr{X: vs.Values[i]}}
				} else {
					vs.Values[i] = expr(m.Arg)
				}
				return true
			}
		}
	}
	return false
}

var flip = map[token.Token]token.Token{token.GTR: token.LSS, token.GEQ: token.LEQ, token.LSS: token.GTR, token.LEQ: token.GEQ}

func mutateFunc(fd *ast.FuncDecl, m Mutant) bool {
	done := false
	switch m.Op {
	case "invert-compare", "self-compare", "offset-compare", "healthy-past":
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if done {
				return false
			}
			is, ok := n.(*ast.IfStmt)
			if !ok {
				return true
			}
			be, ok := ast.Unparen(is.Cond).(*ast.BinaryExpr)
			if _, ordered := flip[be.Op]; !ok || !ordered {
				return true
			}
			switch m.Op {
			case "invert-compare":
				be.Op = flip[be.Op]
			case "self-compare":
				be.X = &ast.BinaryExpr{X: &ast.BasicLit{Kind: token.INT, Value: "2"}, Op: token.MUL, Y: be.Y}
			case "offset-compare":
				be.Y = &ast.ParenExpr{X: &ast.BinaryExpr{X: be.Y, Op: token.ADD, Y: expr(m.Arg)}}
			case "healthy-past":
				for _, s := range is.Body.List {
					if r, ok := s.(*ast.ReturnStmt); ok && len(r.Results) > 0 {
						r.Results[0] = ast.NewIdent("true")
						done = true
						return false
					}
				}
				return false
			}
			done = true
			return false
		})
	case "drop-call":
		done = dropCall(fd.Body, m.Arg)
	case "call-via-value":
		done = callViaValue(fd.Body, m.Arg)
	case "reassign":
		done = reassign(fd.Body, m.Arg)
	case "wrap-func-value":
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if done {
				return false
			}
			return replaceIdent(n, m.Arg, func(id *ast.Ident) ast.Expr {
				done = true
				return &ast.CallExpr{Fun: &ast.FuncLit{
					Type: &ast.FuncType{Params: &ast.FieldList{}, Results: &ast.FieldList{List: []*ast.Field{{Type: expr("time.Duration")}}}},
					Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ReturnStmt{Results: []ast.Expr{ast.NewIdent(id.Name)}}}},
				}}
			})
		})
	case "swap-format-args", "index-format-args":
		done = mutateFormat(fd.Body, m.Op == "index-format-args")
	case "gate-true":
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if done {
				return false
			}
			switch p := n.(type) {
			case *ast.IfStmt:
				if isEnabledCall(p.Cond) {
					p.Cond, done = ast.NewIdent("true"), true
				}
			}
			return !done
		})
	}
	return done
}

func isEnabledCall(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Enabled"
}

// dropCall removes the first statement of body (at any depth) that is a
// call of a function or method named callee.
func dropCall(body *ast.BlockStmt, callee string) bool {
	return rewriteCallStmt(body, callee, func(*ast.CallExpr, *ast.ExprStmt) []ast.Stmt { return []ast.Stmt{} })
}

// callViaValue makes the first statement calling callee call it through a
// local function value instead: the same behaviour, a dynamic call.
func callViaValue(body *ast.BlockStmt, callee string) bool {
	return rewriteCallStmt(body, callee, func(call *ast.CallExpr, es *ast.ExprStmt) []ast.Stmt {
		value := ast.NewIdent("viaValue")
		hold := &ast.AssignStmt{Lhs: []ast.Expr{value}, Tok: token.DEFINE, Rhs: []ast.Expr{call.Fun}}
		call.Fun = ast.NewIdent(value.Name)
		return []ast.Stmt{hold, es}
	})
}

// rewriteCallStmt replaces the first statement of body (at any depth)
// that is a call of a function or method named callee by what rewrite
// returns for it.
func rewriteCallStmt(body *ast.BlockStmt, callee string, rewrite func(*ast.CallExpr, *ast.ExprStmt) []ast.Stmt) bool {
	return rewriteStmt(body, func(s ast.Stmt) []ast.Stmt {
		es, ok := s.(*ast.ExprStmt)
		if !ok {
			return nil
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok || calleeName(call) != callee {
			return nil
		}
		return rewrite(call, es)
	})
}

// rewriteStmt replaces the first statement of body (at any depth) for
// which rewrite returns statements by those; rewrite returns nil for a
// statement it leaves, and an empty, non-nil slice to drop one.
func rewriteStmt(body *ast.BlockStmt, rewrite func(ast.Stmt) []ast.Stmt) bool {
	done := false
	ast.Inspect(body, func(n ast.Node) bool {
		b, ok := n.(*ast.BlockStmt)
		if done || !ok {
			return !done
		}
		for i, s := range b.List {
			if with := rewrite(s); with != nil {
				b.List = append(b.List[:i:i], append(with, b.List[i+1:]...)...)
				done = true
				return false
			}
		}
		return true
	})
	return done
}

// calleeName is the name a call calls: f in f(...) or x.f(...).
func calleeName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// reassign inserts VAR.FIELD = EXPR (assign) after the first statement
// defining VAR.
func reassign(body *ast.BlockStmt, assign string) bool {
	lhs, rhs, ok := strings.Cut(assign, "=")
	if !ok {
		return false
	}
	v, _, _ := strings.Cut(strings.TrimSpace(lhs), ".")
	stmt := &ast.AssignStmt{Lhs: []ast.Expr{expr(strings.TrimSpace(lhs))}, Tok: token.ASSIGN, Rhs: []ast.Expr{expr(strings.TrimSpace(rhs))}}
	return rewriteStmt(body, func(s ast.Stmt) []ast.Stmt {
		as, ok := s.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE {
			return nil
		}
		for _, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name == v {
				return []ast.Stmt{s, stmt}
			}
		}
		return nil
	})
}

// replaceIdent replaces, among n's direct expression children, the first
// identifier named name with what with gives; it reports whether to go on.
func replaceIdent(n ast.Node, name string, with func(*ast.Ident) ast.Expr) bool {
	swap := func(e *ast.Expr) bool {
		if id, ok := (*e).(*ast.Ident); ok && id.Name == name {
			*e = with(id)
			return true
		}
		return false
	}
	switch p := n.(type) {
	case *ast.KeyValueExpr:
		return !swap(&p.Value)
	case *ast.CallExpr:
		for i := range p.Args {
			if swap(&p.Args[i]) {
				return false
			}
		}
	case *ast.BinaryExpr:
		return !swap(&p.X) && !swap(&p.Y)
	case *ast.AssignStmt:
		for i := range p.Rhs {
			if swap(&p.Rhs[i]) {
				return false
			}
		}
	}
	return true
}

// formatVerb is a verb of a format string, without flags or width.
var formatVerb = regexp.MustCompile(`%[a-zA-Z]`)

// mutateFormat swaps the two arguments after the first constant format
// string with exactly two verbs in body, or, with index, indexes its
// verbs the other way round: the arguments stay, the message reads them
// swapped.
func mutateFormat(body *ast.BlockStmt, index bool) bool {
	done := false
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if done || !ok {
			return !done
		}
		for i, a := range call.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || len(call.Args) != i+3 {
				continue
			}
			verbs := formatVerb.FindAllStringIndex(lit.Value, -1)
			if len(verbs) != 2 {
				continue
			}
			if index {
				v := lit.Value
				lit.Value = v[:verbs[0][0]] + "%[2]" + v[verbs[0][0]+1:verbs[1][0]] + "%[1]" + v[verbs[1][0]+1:]
			} else {
				call.Args[i+1], call.Args[i+2] = call.Args[i+2], call.Args[i+1]
			}
			done = true
			return false
		}
		return true
	})
	return done
}
