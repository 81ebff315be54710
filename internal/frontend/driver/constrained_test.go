package driver

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/engine"
)

// The lean loading stands in for the go command only when it read the
// files the go command builds: a cgo file go list left out (no C
// compiler) but the loading read sends the run to go/packages.
func TestFilesDisagree(t *testing.T) {
	listed := &packages.Package{PkgPath: "k8s.io/kubernetes/pkg/features", GoFiles: []string{"/t/pkg/features/a.go"}, IgnoredFiles: []string{"/t/pkg/features/cgo.go"}}
	loaded := func(files ...string) *engine.Loaded {
		return &engine.Loaded{Packages: []*packages.Package{{PkgPath: listed.PkgPath, GoFiles: files}}}
	}
	if why := filesDisagree([]*packages.Package{listed}, loaded("pkg/features/a.go")); why != "" {
		t.Errorf("the same files: %s", why)
	}
	if why := filesDisagree([]*packages.Package{listed}, loaded("pkg/features/a.go", "pkg/features/cgo.go")); !strings.Contains(why, "leaves out cgo.go") {
		t.Errorf("a file go list leaves out, read: %q", why)
	}
	if why := filesDisagree([]*packages.Package{{PkgPath: listed.PkgPath, GoFiles: []string{"/t/pkg/features/a.go", "/t/pkg/features/b.go"}}}, loaded("pkg/features/a.go")); !strings.Contains(why, "builds b.go") {
		t.Errorf("a file go list builds, left out: %q", why)
	}
}
