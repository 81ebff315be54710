package driver

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/workcount"
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
		if len(p.TypeErrors) == 0 {
			continue
		}
		sels := selectorsAt(p)
		for _, te := range p.TypeErrors {
			sel := sels[te.Pos]
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

// selectorsAt are the selector expressions of p's files whose selected
// name is at the position of one of p's type errors, by that position:
// one walk of each file that holds such a position, however many errors
// it holds (a lean load of pkg/ has thousands, from stubbed packages).
func selectorsAt(p *packages.Package) map[token.Pos]*ast.SelectorExpr {
	at := make(map[token.Pos]bool, len(p.TypeErrors))
	sorted := make([]token.Pos, 0, len(p.TypeErrors))
	for _, te := range p.TypeErrors {
		at[te.Pos] = true
		sorted = append(sorted, te.Pos)
	}
	slices.Sort(sorted)
	found := map[token.Pos]*ast.SelectorExpr{}
	nodes := 0
	for _, f := range p.Syntax {
		// The first error position at or after the file's start, if within
		// it.
		if i, _ := slices.BinarySearch(sorted, f.Pos()); i == len(sorted) || sorted[i] > f.End() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			nodes++
			if sel, ok := n.(*ast.SelectorExpr); ok && at[sel.Sel.Pos()] && found[sel.Sel.Pos()] == nil {
				found[sel.Sel.Pos()] = sel
			}
			return true
		})
	}
	workcount.NodesWalked(nodes)
	return found
}
