package featurelist

import (
	"fmt"
	"go/ast"
	"go/constant"
	goparser "go/parser"
	"go/token"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
)

// The files that decide what Kubernetes' own verifier checks, relative
// to a checkout's root: its feature-list tool (v1.33 on), and the
// component-base file holding the version the tool calls current.
const (
	GeneratorFile     = "test/compatibility_lifecycle/cmd/feature_gates.go"
	BinaryVersionFile = "staging/src/k8s.io/component-base/version/base.go"
)

// Generator is what Kubernetes' feature-list tool (GeneratorFile) does,
// read from its source, so that a tree is held to its own release's
// rules: the header it writes, where the list lives, and its removal rule.
type Generator struct {
	// Header is the text written before the list (generatedFileWarning).
	Header string `json:"header"`
	// ListFile is the list's path in the checkout (versionedFeatureListFile).
	ListFile string `json:"listFile"`
	// RemovalMinors is how many minors after its last spec a GA or
	// Deprecated gate, locked to its default, must stay (AddMinor(N) in
	// verifyFeatureRemoval).
	RemovalMinors int `json:"removalMinors"`
	// ExemptThrough, when set ("1.31"), exempts gates whose last spec is
	// at or before it from that wait (thresholdVersion, v1.33 to v1.36).
	ExemptThrough string `json:"exemptThrough,omitempty"`
	// Current is the version the tool calls current (component-base's
	// DefaultKubeBinaryVersion, BinaryVersionFile): not read by
	// ReadGenerator.
	Current string `json:"current,omitempty"`
}

// ReadGenerator reads the tool's source. A tool without the constants or
// the removal check plegvet reads is an *Error saying which was missing.
func ReadGenerator(name string, src []byte) (Generator, error) {
	fset := token.NewFileSet()
	f, err := parseGo(fset, name, src)
	if err != nil {
		return Generator{}, err
	}
	values := topLevelValues(f)
	var g Generator
	var ok bool
	if g.Header, ok = stringValue(values["generatedFileWarning"]); !ok {
		return Generator{}, &Error{File: name, Msg: "want a string constant generatedFileWarning (the list's header)"}
	}
	if g.ListFile, ok = stringValue(values["versionedFeatureListFile"]); !ok {
		return Generator{}, &Error{File: name, Msg: "want a string constant versionedFeatureListFile (the list's path)"}
	}
	i := slices.IndexFunc(f.Decls, func(d ast.Decl) bool {
		fd, ok := d.(*ast.FuncDecl)
		return ok && fd.Recv == nil && fd.Name.Name == "verifyFeatureRemoval"
	})
	if i < 0 {
		return Generator{}, &Error{File: name, Msg: "want a func verifyFeatureRemoval (the removal rule)"}
	}
	removal := f.Decls[i]
	usesThreshold := false
	ast.Inspect(removal, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, isSel := n.Fun.(*ast.SelectorExpr); isSel && sel.Sel.Name == "AddMinor" && len(n.Args) == 1 {
				if v, isInt := intValue(n.Args[0]); isInt {
					g.RemovalMinors = v
				}
			}
		case *ast.Ident:
			usesThreshold = usesThreshold || n.Name == "thresholdVersion"
		}
		return true
	})
	if g.RemovalMinors <= 0 {
		return Generator{}, &Error{File: name, Line: fset.Position(removal.Pos()).Line, Msg: "want verifyFeatureRemoval to call AddMinor(N) with a constant N (the minors a locked gate stays)"}
	}
	if usesThreshold {
		if g.ExemptThrough, ok = versionCall(values["thresholdVersion"]); !ok {
			return Generator{}, &Error{File: name, Msg: "want thresholdVersion to be version.MajorMinor(X, Y) or version.MustParse(\"X.Y\")"}
		}
	}
	return g, nil
}

// ReadBinaryVersion reads component-base's DefaultKubeBinaryVersion
// ("1.37"): the version the feature-list tool calls current.
func ReadBinaryVersion(name string, src []byte) (string, error) {
	f, err := parseGo(token.NewFileSet(), name, src)
	if err != nil {
		return "", err
	}
	v, ok := stringValue(topLevelValues(f)["DefaultKubeBinaryVersion"])
	if !ok {
		return "", &Error{File: name, Msg: "want a string constant DefaultKubeBinaryVersion"}
	}
	if _, _, ok := majorMinor(v); !ok {
		return "", &Error{File: name, Msg: fmt.Sprintf("DefaultKubeBinaryVersion is %q; want MAJOR.MINOR", v)}
	}
	return v, nil
}

// parseGo parses a generator's source; a *Error when it is not Go.
func parseGo(fset *token.FileSet, name string, src []byte) (*ast.File, error) {
	f, err := goparser.ParseFile(fset, name, src, goparser.SkipObjectResolution)
	if err != nil {
		return nil, &Error{File: name, Msg: "not Go: " + err.Error()}
	}
	return f, nil
}

// topLevelValues maps each top-level const and var with one value to it.
func topLevelValues(f *ast.File) map[string]ast.Expr {
	out := map[string]ast.Expr{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST && gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					out[n.Name] = vs.Values[i]
				}
			}
		}
	}
	return out
}

// stringValue is the value of a string literal or a sum of them.
func stringValue(e ast.Expr) (string, bool) {
	v := constValue(e)
	if v == nil || v.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(v), true
}

func intValue(e ast.Expr) (int, bool) {
	v := constValue(e)
	if v == nil || v.Kind() != constant.Int {
		return 0, false
	}
	n, ok := constant.Int64Val(v)
	return int(n), ok && n >= 0 && n < 1<<16
}

// constValue evaluates literals and + of literals; nil for anything else.
func constValue(e ast.Expr) constant.Value {
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil
		}
		return v
	case *ast.ParenExpr:
		return constValue(e.X)
	case *ast.BinaryExpr:
		x, y := constValue(e.X), constValue(e.Y)
		if e.Op != token.ADD || x == nil || y == nil || x.Kind() != y.Kind() {
			return nil
		}
		return constant.BinaryOp(x, token.ADD, y)
	}
	return nil
}

// versionCall reads version.MajorMinor(X, Y) or version.MustParse("X.Y").
func versionCall(e ast.Expr) (string, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	switch {
	case sel.Sel.Name == "MajorMinor" && len(call.Args) == 2:
		x, okX := intValue(call.Args[0])
		y, okY := intValue(call.Args[1])
		return fmt.Sprintf("%d.%d", x, y), okX && okY
	case sel.Sel.Name == "MustParse" && len(call.Args) == 1:
		s, ok := stringValue(call.Args[0])
		_, _, isMM := majorMinor(s)
		return s, ok && isMM
	}
	return "", false
}

// majorMinor reads "1.37" ("1.37.0" too: the tool's versions compare by
// minor).
func majorMinor(s string) (major, minor int, ok bool) {
	v, ok := kubeversion.Parse(s)
	if !ok || v.Pre != "" || strings.HasPrefix(strings.TrimSpace(s), "v") {
		return 0, 0, false
	}
	return int(v.Major), int(v.Minor), true
}
