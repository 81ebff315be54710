package driver

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/engine"
)

// illTyped names a package matched that uses a name a package read from
// source does not declare (features.EventPLEG, declared nowhere): the go
// command's loading reports that as go vet does (exit 1). Other type
// errors are left alone: the lean loading stubs what it does not read,
// (or models part of an API), and a stub's gaps are not the package's
// errors.
func illTyped(res *engine.Loaded) string {
	stubbed := map[string]bool{} // or modelled: either has only part of the API
	for _, s := range append(slices.Clone(res.Stubbed), res.Modelled...) {
		stubbed[s] = true
	}
	for _, p := range res.Packages {
		for _, te := range p.TypeErrors {
			sel := selectorAt(p, te.Pos)
			if sel == nil {
				continue
			}
			id, _ := sel.X.(*ast.Ident)
			if pn, ok := p.TypesInfo.Uses[id].(*types.PkgName); ok && !stubbed[pn.Imported().Path()] {
				return p.PkgPath + " does not type-check (" + te.Msg + ")"
			}
		}
	}
	return ""
}

// selectorAt is the selector expression whose selected name is at pos in
// p's files; nil when there is none.
func selectorAt(p *packages.Package, pos token.Pos) *ast.SelectorExpr {
	var found *ast.SelectorExpr
	for _, f := range p.Syntax {
		if pos < f.Pos() || pos > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Pos() == pos {
				found = sel
			}
			return found == nil
		})
	}
	return found
}
