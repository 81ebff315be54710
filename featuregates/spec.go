// One FeatureSpec literal: its default, lock, stage and versions.

package featuregates

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
)

// spec reads one FeatureSpec literal.
func (x *extractor) spec(lit *ast.CompositeLit) Spec {
	s := Spec{Start: lit.Pos(), End: lit.End(), PreRelease: GA}
	var whys []string
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			whys = append(whys, "spec fields are not named")
			break
		}
		field, _ := kv.Key.(*ast.Ident)
		if field == nil {
			continue
		}
		switch field.Name {
		case "Default", "LockToDefault":
			b := x.constValue(kv.Value, constant.Bool)
			if b == nil {
				whys = append(whys, fmt.Sprintf("%s is %s, not a constant", field.Name, types.ExprString(kv.Value)))
			} else if field.Name == "Default" {
				s.Default, s.DefaultValue = constant.BoolVal(b), kv.Value
			} else {
				s.LockToDefault = constant.BoolVal(b)
			}
		case "PreRelease":
			p, why := x.preRelease(kv.Value)
			if why != "" {
				whys = append(whys, why)
			}
			s.PreRelease = p // "" when unresolved: unknown, not GA
		case "Version", "MinCompatibilityVersion":
			v, why := x.version(kv.Value)
			if why != "" {
				whys = append(whys, field.Name+" "+why)
			} else if field.Name == "Version" {
				s.Version = v
				if call, ok := ast.Unparen(kv.Value).(*ast.CallExpr); ok && len(call.Args) == 1 {
					s.VersionLit, _ = ast.Unparen(call.Args[0]).(*ast.BasicLit)
				}
			} else {
				s.MinCompatibilityVersion = v
			}
		}
	}
	s.Unresolved = strings.Join(whys, "; ")
	return s
}

func (x *extractor) preRelease(e ast.Expr) (PreRelease, string) {
	if v := x.constValue(e, constant.String); v != nil {
		for p, value := range preReleaseValue {
			if value == constant.StringVal(v) {
				return p, ""
			}
		}
		return "", fmt.Sprintf("PreRelease %s has the unknown value %s", types.ExprString(e), v)
	}
	return "", fmt.Sprintf("PreRelease %s is not a constant", types.ExprString(e))
}

// version reads version.MustParse("1.26") and version.MajorMinor(1, 26).
func (x *extractor) version(e ast.Expr) (string, string) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return "", fmt.Sprintf("is %s, not a call of %s", types.ExprString(e), VersionPath)
	}
	fn := astobj.Func(x.info, call)
	if fn == nil || fn.Pkg() == nil || !pathIs(fn.Pkg().Path(), VersionPath) {
		return "", fmt.Sprintf("is %s, not a call of %s", types.ExprString(call), VersionPath)
	}
	args := make([]constant.Value, len(call.Args))
	for i, a := range call.Args {
		tv, ok := x.info.Types[ast.Unparen(a)]
		if !ok || tv.Value == nil {
			return "", fmt.Sprintf("argument %s of %s is not a constant", types.ExprString(a), fn.Name())
		}
		args[i] = tv.Value
	}
	switch {
	case strings.HasPrefix(fn.Name(), "MustParse") && len(args) == 1 && args[0].Kind() == constant.String:
		raw := constant.StringVal(args[0])
		v, ok := ParseVersion(raw)
		if !ok {
			return "", fmt.Sprintf("%q is not a version", raw)
		}
		return v.String(), ""
	case fn.Name() == "MajorMinor" && len(args) == 2:
		maj, ok1 := constant.Uint64Val(constant.ToInt(args[0]))
		min, ok2 := constant.Uint64Val(constant.ToInt(args[1]))
		if !ok1 || !ok2 {
			return "", "has non-integer arguments"
		}
		return Version{Major: uint(maj), Minor: uint(min)}.String(), ""
	}
	return "", fmt.Sprintf("is %s, which plegvet does not evaluate", types.ExprString(call))
}
