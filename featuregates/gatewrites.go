// Writes to the process's feature gates made in code: a fork that turns
// a gate on in an init function changes what a node that sets nothing runs.

package featuregates

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// GateWrite is a gate set in code: a call of the feature-gate API's Set
// ("A=true,B=false") or SetFromMap (map[string]bool{"A": true}).
type GateWrite struct {
	// Gate is the gate's name; "" when the write could not be read.
	Gate string `json:"gate,omitempty"`
	// On is the value written; nil when it is not a constant.
	On  *bool      `json:"on,omitempty"`
	Pos srcpos.Pos `json:"pos"`
	// Func is the function making the call ("init").
	Func string `json:"func,omitempty"`
	// Unresolved says why the write could not be read (a key or value
	// that is not a constant); Gate or On is then empty.
	Unresolved string `json:"unresolved,omitempty"`
	// At is the call, for the diagnostics of the package read.
	At token.Pos `json:"-"`
}

// String is "EventedPLEG=true at pkg/kubelet/kubelet.go:12 (init)", or
// what could not be read.
func (w GateWrite) String() string {
	at := fmt.Sprintf("%s (%s)", srcpos.Line(&w.Pos), w.Func)
	if w.Unresolved != "" {
		return "a gate write at " + at + " that plegvet could not read: " + w.Unresolved
	}
	return fmt.Sprintf("%s=%t at %s", w.Gate, *w.On, at)
}

// GateWrites finds the package's calls of the feature-gate API's Set and
// SetFromMap (known by the package declaring the method, so the
// interfaces and the implementation alike), each gate they write with its
// value, or why it could not be read.
func GateWrites(fset *token.FileSet, files []*ast.File, info *types.Info) []GateWrite {
	var out []GateWrite
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Body != nil {
				out = append(out, callWrites(fset, info, fd)...)
			}
		}
	}
	return out
}

// callWrites reads the writes of one function's calls.
func callWrites(fset *token.FileSet, info *types.Info, fd *ast.FuncDecl) []GateWrite {
	var out []GateWrite
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := astobj.Func(info, call)
		if fn == nil || !IsAPI(fn.Pkg()) || len(call.Args) != 1 || fn.Signature().Recv() == nil {
			return true
		}
		at := GateWrite{Pos: srcpos.Of(fset, call.Pos()), Func: fd.Name.Name, At: call.Pos()}
		switch fn.Name() {
		case "Set":
			out = append(out, setWrites(info, call.Args[0], at)...)
		case "SetFromMap":
			out = append(out, mapWrites(info, call.Args[0], at)...)
		}
		return true
	})
	return out
}

// setWrites reads Set's "A=true,B=false".
func setWrites(info *types.Info, arg ast.Expr, at GateWrite) []GateWrite {
	tv := info.Types[arg]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		at.Unresolved = fmt.Sprintf("Set's argument %s is not a constant string", types.ExprString(arg))
		return []GateWrite{at}
	}
	var out []GateWrite
	for pair := range strings.SplitSeq(constant.StringVal(tv.Value), ",") {
		w := at
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if !ok || err != nil {
			w.Unresolved = fmt.Sprintf("Set's %q is not NAME=BOOL", pair)
		} else {
			w.Gate, w.On = strings.TrimSpace(name), &on
		}
		out = append(out, w)
	}
	return out
}

// mapWrites reads SetFromMap's map literal.
func mapWrites(info *types.Info, arg ast.Expr, at GateWrite) []GateWrite {
	lit, ok := ast.Unparen(arg).(*ast.CompositeLit)
	if !ok {
		at.Unresolved = fmt.Sprintf("SetFromMap's argument %s is not a map literal", types.ExprString(arg))
		return []GateWrite{at}
	}
	var out []GateWrite
	for _, e := range lit.Elts {
		w := at
		kv, _ := e.(*ast.KeyValueExpr)
		if kv == nil {
			continue
		}
		k, v := info.Types[kv.Key], info.Types[kv.Value]
		switch {
		case k.Value == nil || k.Value.Kind() != constant.String:
			w.Unresolved = fmt.Sprintf("SetFromMap's key %s is not a constant string", types.ExprString(kv.Key))
		case v.Value == nil || v.Value.Kind() != constant.Bool:
			w.Gate = constant.StringVal(k.Value)
			w.Unresolved = fmt.Sprintf("SetFromMap's value for %s, %s, is not a constant", w.Gate, types.ExprString(kv.Value))
		default:
			on := constant.BoolVal(v.Value)
			w.Gate, w.On = constant.StringVal(k.Value), &on
		}
		out = append(out, w)
	}
	return out
}
