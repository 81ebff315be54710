// The imports not loaded from the tree: a built-in model of their API
// (package time, the feature-gate API), else an empty stand-in.

package srcload

import (
	"embed"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"sync"
)

//go:embed stubs/*.go.txt
var stubFS embed.FS

// models maps an import path to the built-in model that stands in for it.
var models = map[string]string{
	"k8s.io/component-base/featuregate":    "stubs/featuregate.go.txt",
	"k8s.io/apimachinery/pkg/util/version": "stubs/version.go.txt",
	"k8s.io/apiserver/pkg/util/feature":    "stubs/utilfeature.go.txt",
	"time":                                 "stubs/time.go.txt",
}

// Modelled reports whether an import is answered by a built-in model of
// its API (unless it is requested or loaded from source).
func Modelled(importPath string) bool {
	_, ok := models[importPath]
	return ok
}

// errStubbed is how a package's check is told an import is stubbed
// (answerOther): go/types then marks the stand-in it is given fake, and
// reports one "could not import" error at the import and none at each
// name selected from it; an empty stand-in cost an "undefined: x.Y"
// error, formatted, at each of those (pkg/kubelet selects some 2,200).
var errStubbed = errors.New("stubbed: plegvet does not read it from source")

// answerOther answers the import of p, not loaded from the tree, by a
// package being checked (importer): with a model of its API; or, for a
// stub, with errStubbed and a stand-in of the importer's own, since
// go/types writes to the one it is given, and packages are checked at
// once. The stand-in is the same at each load (a cached check's answers
// keep it), and named as guessName names it: go/types' own fallback
// would name k8s.io/klog/v2 "v2", and every klog.X would be an error.
func (l *loader) answerOther(importer, p string) (*types.Package, error) {
	if _, isModel := models[p]; isModel {
		return l.importOther(p), nil
	}
	l.stubbed[p] = true
	key := importer + "\x00" + p
	pkg, ok := l.pkgs[key]
	if !ok {
		pkg = types.NewPackage(p, guessName(p))
		pkg.MarkComplete()
		l.pkgs[key] = pkg
	}
	return pkg, errStubbed
}

// importOther answers an import that is not loaded from the tree: a model
// of its API, or an empty stand-in.
func (l *loader) importOther(p string) *types.Package {
	model, isModel := models[p]
	if isModel {
		l.modelled[p] = true
	} else {
		l.stubbed[p] = true
	}
	if pkg, ok := l.pkgs[p]; ok {
		return pkg
	}
	var pkg *types.Package
	if isModel {
		pkg = l.checkModel(p, model)
	} else {
		pkg = types.NewPackage(p, guessName(p))
		pkg.MarkComplete()
	}
	l.pkgs[p] = pkg
	return pkg
}

func (l *loader) checkModel(p, file string) *types.Package {
	src, err := stubFS.ReadFile(file)
	if err != nil {
		panic(err) // the embedded models are part of this program
	}
	f, err := parser.ParseFile(l.fset, "plegvet-model:"+p+"/"+path.Base(p)+".go", src, parser.SkipObjectResolution)
	if err != nil {
		panic(err)
	}
	conf := types.Config{Importer: importerFunc(func(q string) (*types.Package, error) { return l.importOther(q), nil })}
	pkg, err := conf.Check(p, l.fset, []*ast.File{f}, nil)
	if err != nil {
		panic(fmt.Sprintf("model of %s: %v", p, err))
	}
	return pkg
}

// modelMethods are the methods of the built-in models' interface types:
// a type of a cut package may implement one (prune.go).
var modelMethods = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, file := range models {
		src, err := stubFS.ReadFile(file)
		if err != nil {
			panic(err) // the embedded models are part of this program
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
		if err != nil {
			panic(err)
		}
		for n := range ast.Preorder(f) {
			if it, ok := n.(*ast.InterfaceType); ok {
				for _, m := range it.Methods.List {
					for _, id := range m.Names {
						names[id.Name] = true
					}
				}
			}
		}
	}
	return names
})
