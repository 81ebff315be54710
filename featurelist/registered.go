package featurelist

import (
	"fmt"
	"go/ast"
	"path"
	"strconv"
	"strings"
)

// MapRef names a feature map: its package and the variable or function
// holding it (as the gates' registrations name it).
type MapRef struct {
	Package string `json:"package"`
	Map     string `json:"map"`
}

// ParsePackage returns the non-test files of a package, parsed; none for
// a package outside the tree, whose maps no list of the tree's reads.
type ParsePackage func(importPath string) ([]*ast.File, error)

// RegisteredMaps finds the feature maps that importing packages
// registers with a gate at init, as the Markdown generator's blank
// imports do: in each package's init functions, a call of AddVersioned or
// Add on a map of the package, and a call of another package's function
// (zpages' AddFeatureGates, client-go's
// AddVersionedFeaturesToExistingFeatureGates) that makes such a call on a
// map of its own. An AddVersioned call with another argument is an error
// naming it (the list would lack its gates); other ways of registering
// (a loop, a helper two calls deep) are not seen.
func RegisteredMaps(packages []string, parse ParsePackage) ([]MapRef, error) {
	var out []MapRef
	seen := map[MapRef]bool{}
	for _, p := range packages {
		files, err := parse(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			aliases := importNames(f)
			refs, err := registrations(p, []*ast.File{f}, "init", func(sel *ast.SelectorExpr) ([]MapRef, error) {
				if id, ok := sel.X.(*ast.Ident); ok && aliases[id.Name] != "" {
					return registeredBy(aliases[id.Name], sel.Sel.Name, parse)
				}
				return nil, nil
			})
			if err != nil {
				return nil, err
			}
			for _, r := range refs {
				if !seen[r] {
					seen[r] = true
					out = append(out, r)
				}
			}
		}
	}
	return out, nil
}

// registeredBy is the maps a function of another package registers.
func registeredBy(pkg, fn string, parse ParsePackage) ([]MapRef, error) {
	if !mayRegister(pkg) {
		return nil, nil
	}
	files, err := parse(pkg)
	if err != nil {
		return nil, fmt.Errorf("%s, whose %s an init calls: %w", pkg, fn, err)
	}
	return registrations(pkg, files, fn, nil)
}

// registrations reads the registrations in the bodies of the functions
// named fn in pkg's files; follow, when set, reads a call of another
// package's function (pkg.F(...)).
func registrations(pkg string, files []*ast.File, fn string, follow func(*ast.SelectorExpr) ([]MapRef, error)) ([]MapRef, error) {
	var out []MapRef
	var err error
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Name.Name != fn || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || err != nil {
					return err == nil
				}
				if ref, ok := registration(pkg, call); ok {
					out = append(out, ref)
					return true
				}
				if err = unfollowed(pkg, call); err != nil {
					return false
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && follow != nil {
					var refs []MapRef
					refs, err = follow(sel)
					out = append(out, refs...)
				}
				return err == nil
			})
		}
	}
	return out, err
}

// mayRegister reports whether a package may register gates: the
// standard library registers none.
func mayRegister(path string) bool {
	return strings.Contains(strings.Split(path, "/")[0], ".")
}

// registration reads X.AddVersioned(m) or X.Add(m), m a map variable of
// pkg or a call of a function of pkg returning one.
func registration(pkg string, call *ast.CallExpr) (MapRef, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "AddVersioned" && sel.Sel.Name != "Add" || len(call.Args) != 1 {
		return MapRef{}, false
	}
	switch arg := ast.Unparen(call.Args[0]).(type) {
	case *ast.Ident:
		return MapRef{pkg, arg.Name}, true
	case *ast.CallExpr:
		if fn, ok := arg.Fun.(*ast.Ident); ok && len(arg.Args) == 0 {
			return MapRef{pkg, fn.Name}, true
		}
	}
	return MapRef{}, false
}

// unfollowed names a registration that registration does not read: an
// AddVersioned call (a name only the feature-gate API uses, unlike Add)
// whose argument is neither a map variable nor a call of a function
// returning one; its gates would be left out of the list without a word.
func unfollowed(pkg string, call *ast.CallExpr) error {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "AddVersioned" {
		return nil
	}
	return fmt.Errorf("%s registers feature gates at init with %s(...), whose argument is not a map variable or a call returning one: not followed", pkg, sel.Sel.Name)
}

// importNames maps each name a file gives an import to its path (the
// last element of the path unless renamed; a version suffix such as v1
// names the package before it no better, and is kept as is).
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		if name != "_" && name != "." {
			out[name] = p
		}
	}
	return out
}
