// Package gosig says a Go method's signature as its source writes it,
// not as go/types prints it where imports were stubbed: what plegvet rpc
// shows of the CRI client method the evented PLEG calls.
package gosig

import (
	"bytes"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"
)

// WrittenMethod finds, among the loaded packages (pkgs and their imports), the method go/types
// prints as objString and returns its signature as its source writes it
// (ctx context.Context, not a stubbed import's "invalid type"), qualified
// by its receiver: "(k8s.io/cri-api/pkg/apis.ContainerManager)
// GetContainerEvents(ctx context.Context, ...) error". "" when it is not
// in the loaded source.
func WrittenMethod(pkgs []*packages.Package, objString string) string {
	var found string
	packages.Visit(pkgs, func(p *packages.Package) bool {
		if found != "" {
			return false
		}
		if p.TypesInfo == nil {
			return true
		}
		for id, obj := range p.TypesInfo.Defs {
			fn, ok := obj.(*types.Func)
			if !ok || types.ObjectString(fn, nil) != objString {
				continue
			}
			if ft, recv := funcTypeOf(p.Syntax, id); ft != nil {
				found = signatureText(p.Fset, fn, recv, ft)
				return false
			}
		}
		return true
	}, nil)
	return found
}

// funcTypeOf finds the declaration of a method named by id: an interface
// method (the interface's type name is the receiver) or a method
// declaration.
func funcTypeOf(files []*ast.File, id *ast.Ident) (*ast.FuncType, string) {
	for _, f := range files {
		if id.Pos() < f.FileStart || id.Pos() > f.FileEnd {
			continue
		}
		var ft *ast.FuncType
		recv := ""
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeSpec:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					for _, m := range it.Methods.List {
						for _, name := range m.Names {
							if name == id {
								ft, _ = m.Type.(*ast.FuncType)
								recv = n.Name.Name
							}
						}
					}
				}
			case *ast.FuncDecl:
				if n.Name == id {
					ft = n.Type
				}
			}
			return ft == nil
		})
		return ft, recv
	}
	return nil, ""
}

// signatureText is fn's signature as its declaration ft writes it.
func signatureText(fset *token.FileSet, fn *types.Func, recv string, ft *ast.FuncType) string {
	var b bytes.Buffer
	b.WriteString("func ")
	if recv != "" && fn.Pkg() != nil {
		b.WriteString("(" + fn.Pkg().Path() + "." + recv + ") ")
	}
	b.WriteString(fn.Name())
	var sig bytes.Buffer
	if err := printer.Fprint(&sig, fset, ft); err != nil {
		return ""
	}
	b.Write(bytes.TrimPrefix(sig.Bytes(), []byte("func")))
	return b.String()
}
