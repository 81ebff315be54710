// The feature-gate API recognised through go/types: its import paths and
// the feature map types declared with its Feature and spec types.

package featuregates

import (
	"go/types"
	"strings"
)

// The import paths of the feature-gate API, recognised through go/types.
// ClientGoPath is client-go's own copy of the API (its own Feature and
// VersionedSpecs types, no import of component-base): kube binaries
// register its gates with component-base's gate through an adapter, so
// they are gates of every kube binary all the same.
const (
	APIPath      = "k8s.io/component-base/featuregate"
	ClientGoPath = "k8s.io/client-go/features"
	VersionPath  = "k8s.io/apimachinery/pkg/util/version"
)

// IsAPI reports whether pkg is the feature-gate API package (or a
// vendored copy of it).
func IsAPI(pkg *types.Package) bool {
	return pkg != nil && IsAPIPath(pkg.Path())
}

// IsAPIPath reports whether an import path is the feature-gate API's (or
// a vendored copy's): the one test of "this package imports the API".
func IsAPIPath(importPath string) bool { return pathIs(importPath, APIPath) }

// IsClientGo reports whether pkg is client-go's copy of the API, which
// declares client-go's gates.
func IsClientGo(pkg *types.Package) bool {
	return pkg != nil && pathIs(pkg.Path(), ClientGoPath)
}

func pathIs(p, want string) bool {
	return p == want || strings.HasSuffix(p, "/vendor/"+want)
}

// isAPIType reports whether t is the named type name of the feature-gate
// API: component-base's or client-go's copy.
func isAPIType(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && (IsAPI(n.Obj().Pkg()) || IsClientGo(n.Obj().Pkg()))
}

// mapKind classifies a feature map type.
func mapKind(t types.Type) string {
	if t == nil {
		return ""
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok || !isAPIType(m.Key(), "Feature") {
		return ""
	}
	switch {
	case isAPIType(m.Elem(), "FeatureSpec"):
		return string(Unversioned)
	case isAPIType(m.Elem(), "VersionedSpecs"):
		return string(Versioned)
	}
	if s, ok := m.Elem().Underlying().(*types.Slice); ok {
		switch {
		case isAPIType(s.Elem(), "FeatureSpec"):
			return string(Versioned)
		case isAPIType(s.Elem(), "Feature"):
			return "dependencies"
		}
	}
	return ""
}

// mapAPI is the import path of the package declaring the key type of t,
// a feature map type.
func mapAPI(t types.Type) string {
	n := types.Unalias(t.Underlying().(*types.Map).Key()).(*types.Named)
	return n.Obj().Pkg().Path()
}
