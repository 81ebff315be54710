// The kubelet configuration's defaults: a setting's default read from
// the packages read (runtimeRequestTimeout, nodeStatusUpdateFrequency).

package runtimehang

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"strings"
	"unicode"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/srcpos"
)

func lowerCamel(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}

// settingDefault reads the default of a configuration setting (its JSON
// name) from the packages read: a struct field with that JSON tag, and an
// assignment obj.Field = metav1.Duration{Duration: X} of it.
func (p *prog) settingDefault(setting string) *constvalue.Value {
	for _, pkg := range p.pkgs {
		if !pkg.Bodies {
			continue
		}
		var found []assignedDefault
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				as, ok := n.(*ast.AssignStmt)
				if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
					return true
				}
				sel, ok := ast.Unparen(as.Lhs[0]).(*ast.SelectorExpr)
				if !ok {
					return true
				}
				// The field's JSON name from its tag; when the versioned
				// type is not read (k8s.io/kubelet's, outside the tree),
				// its Go name, as the setting was named.
				if fv, ok := pkg.Info.Uses[sel.Sel].(*types.Var); ok && fv.IsField() && p.tags[fv] != "" {
					if p.jsonName(fv) != setting {
						return true
					}
				} else if lowerCamel(sel.Sel.Name) != setting {
					return true
				}
				cl, ok := ast.Unparen(as.Rhs[0]).(*ast.CompositeLit)
				if !ok {
					return true
				}
				for _, e := range cl.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Duration" {
							found = append(found, assignedDefault{constvalue.ValueOf(p.fset, pkg.Files, pkg.Info, kv.Value), srcpos.At(p.fset, as.Pos())})
						}
					}
				}
				return true
			})
		}
		// Every assignment counts: a fork may assign the default again
		// after the one that sets it when unset.
		if out := oneDefault(setting, found); out != nil {
			return out
		}
	}
	return &constvalue.Value{Unresolved: fmt.Sprintf("no package read from source sets a default for %s (the kubelet configuration's defaults, pkg/kubelet/apis/config/v1beta1, were not read)", setting)}
}

// jsonName is a struct field's JSON name from its tag; "" without one.
func (p *prog) jsonName(fv *types.Var) string {
	tag := p.tags[fv]
	name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
	return name
}

// NodeStatusFrequencySetting is the configuration setting the node status
// update's period comes from.
const NodeStatusFrequencySetting = "nodeStatusUpdateFrequency"

// ConfigDefaultsPackage is the kubelet configuration's defaults (relative
// to the tree's module): not imported by pkg/kubelet in every release, so
// a caller requests it beside pkg/kubelet to read runtimeRequestTimeout's default.
const ConfigDefaultsPackage = "pkg/kubelet/apis/config/v1beta1"
