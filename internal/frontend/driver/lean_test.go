package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/load/workcount"
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

// The lean load type-checks only the matched packages an analyzer can
// read (suite.Matters) and the imports it needs from source: importing a
// features package for its gate constants does not make a package read.
// Most of Kubernetes' pkg/ does so (147 of the 154 packages under
// v1.37.2's ./pkg/... that are or import a features package, the API or
// pleg); type-checking them with their bodies made plegvet
// ./pkg/... twice the go command's listing (issue 43). The count of
// packages checked must not grow with them. Work is counted, not timed.
func TestLeanChecksOnlyWhatAnalyzersRead(t *testing.T) {
	var checked []int64
	for _, users := range []int{2, 8} {
		dir := t.TempDir()
		write := func(name, src string) { writeFile(t, dir, name, src) }
		// A look-alike of the feature-gate API, a features package, a
		// pleg package and its importer, and users of the gates.
		write("go.mod", "module example.com/m\n\ngo 1.26\n\nrequire k8s.io/component-base v0.0.0\n\nreplace k8s.io/component-base => ./cb\n")
		write("cb/go.mod", "module k8s.io/component-base\n\ngo 1.26\n")
		write("cb/featuregate/gate.go", "package featuregate\n\ntype Feature string\n\ntype FeatureSpec struct{ Default bool }\n")
		write("pkg/features/features.go", "package features\n\nimport \"k8s.io/component-base/featuregate\"\n\nconst EventedPLEG featuregate.Feature = \"EventedPLEG\"\n\nvar defaults = map[featuregate.Feature]featuregate.FeatureSpec{EventedPLEG: {Default: false}}\n")
		write("pkg/kubelet/pleg/pleg.go", "package pleg\n\nimport \"time\"\n\nfunc NewGenericPLEG(period time.Duration) int { return int(period) }\n")
		write("pkg/kubelet/kubelet.go", "package kubelet\n\nimport (\n\t\"time\"\n\n\t\"example.com/m/pkg/features\"\n\t\"example.com/m/pkg/kubelet/pleg\"\n)\n\nvar _ = features.EventedPLEG\n\nfunc New() int { return pleg.NewGenericPLEG(time.Second) }\n")
		for i := range users {
			write(fmt.Sprintf("pkg/user%d/user.go", i), fmt.Sprintf("package user%d\n\nimport \"example.com/m/pkg/features\"\n\nfunc On() string { return string(features.EventedPLEG) }\n", i))
		}
		t.Chdir(dir)
		var stderr strings.Builder
		o := &Options{Analyzers: suite.Defaults(), Patterns: []string{"./pkg/..."}}
		before := workcount.Read()
		r, why, code := loadLean(context.Background(), o, &stderr)
		work := workcount.Read().Since(before)
		if r == nil || why != "" || code >= 0 {
			t.Fatalf("%d users: the lean load did not answer: %q, exit %d, stderr %q", users, why, code, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("%d users: stderr %q", users, stderr.String())
		}
		checked = append(checked, work.PackagesChecked)
	}
	// features, pleg and kubelet; the API is modelled. The code before
	// this test checked 5 and 11.
	if checked[0] != 3 || checked[1] != 3 {
		t.Errorf("packages type-checked: %d with 2 users of the gates, %d with 8; want 3 each (features, pleg, kubelet)", checked[0], checked[1])
	}
}

// writeFile writes src to the slash-separated name below dir, making its
// directories.
func writeFile(t *testing.T, dir, name, src string) {
	t.Helper()
	name = filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(src), 0o666); err != nil {
		t.Fatal(err)
	}
}
