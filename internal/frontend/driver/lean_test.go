package driver

import (
	"testing"

	"golang.org/x/tools/go/packages"
)

// A package that imports a vendored copy of the feature-gate API declares
// gates as one that imports the API does: both are loaded from source.
func TestFromSourceTakesVendoredAPI(t *testing.T) {
	api := &packages.Package{PkgPath: "k8s.io/component-base/featuregate"}
	vendored := &packages.Package{PkgPath: "k8s.io/kubernetes/vendor/k8s.io/component-base/featuregate"}
	meta := []*packages.Package{
		{PkgPath: "example.com/direct", Imports: map[string]*packages.Package{api.PkgPath: api}},
		{PkgPath: "example.com/vendoring", Imports: map[string]*packages.Package{vendored.PkgPath: vendored}},
		{PkgPath: "example.com/other", Imports: map[string]*packages.Package{}},
	}
	pick := fromSource(meta)
	for path, want := range map[string]bool{"example.com/direct": true, "example.com/vendoring": true, "example.com/other": false} {
		if got := pick(path); got != want {
			t.Errorf("fromSource(%s) = %v, want %v", path, got, want)
		}
	}
}
