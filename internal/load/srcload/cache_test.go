package srcload

import (
	"context"
	"fmt"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// cacheTree is a tree with a features package, a kubelet package that
// reads it, a pleg package the kubelet imports, and an unrelated one.
func cacheTree(t *testing.T) (dir string, cache *Cache, load func(overlay map[string][]byte) *Result) {
	t.Helper()
	tr := fixtureTree(t, map[string]string{
		"pkg/features/features.go": "package features\n\nimport \"k8s.io/component-base/featuregate\"\n\nconst Evented featuregate.Feature = \"Evented\"\n",
		"pkg/kubelet/pleg/pleg.go": "package pleg\n\nimport \"time\"\n\nconst Period = time.Second\n",
		"pkg/kubelet/kubelet.go":   "package kubelet\n\nimport (\n\t\"k8s.io/kubernetes/pkg/features\"\n\t\"k8s.io/kubernetes/pkg/kubelet/pleg\"\n)\n\nvar _, _ = features.Evented, pleg.Period\n",
		"pkg/other/other.go":       "package other\n\nimport \"time\"\n\nvar D time.Duration\n",
	})
	cache = NewCache()
	also := func(p string) bool { return p == "k8s.io/kubernetes/pkg/features" }
	return tr.Dir, cache, func(overlay map[string][]byte) *Result {
		t.Helper()
		res, err := LoadImports(context.Background(), tr, Imports{FromSource: also, Overlay: overlay, Cache: cache},
			"k8s.io/kubernetes/pkg/kubelet/pleg", "k8s.io/kubernetes/pkg/kubelet", "k8s.io/kubernetes/pkg/other")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
}

// byPath indexes a result's packages and their loaded imports.
func byPath(res *Result) map[string]*packages.Package {
	out := map[string]*packages.Package{}
	packages.Visit(res.Packages, nil, func(p *packages.Package) { out[p.PkgPath] = p })
	return out
}

// TestCacheRechecksDependents: an edit re-checks the edited package and
// the loaded packages that import it, and reuses every other.
func TestCacheRechecksDependents(t *testing.T) {
	dir, _, load := cacheTree(t)
	first := byPath(load(nil))
	again := byPath(load(nil))
	for path, p := range first {
		if again[path] != p {
			t.Errorf("%s checked again with nothing changed", path)
		}
	}
	features := filepath.Join(dir, "pkg", "features", "features.go")
	edited := map[string][]byte{features: []byte("package features\n\nimport \"k8s.io/component-base/featuregate\"\n\nconst Evented featuregate.Feature = \"EventedPLEG\"\n")}
	after := byPath(load(edited))
	for path, rechecked := range map[string]bool{
		"k8s.io/kubernetes/pkg/features":     true, // edited (unsaved)
		"k8s.io/kubernetes/pkg/kubelet":      true, // imports it
		"k8s.io/kubernetes/pkg/kubelet/pleg": false,
		"k8s.io/kubernetes/pkg/other":        false,
	} {
		if got := after[path] != again[path]; got != rechecked {
			t.Errorf("%s: checked again = %v, want %v", path, got, rechecked)
		}
	}
	c := after["k8s.io/kubernetes/pkg/features"].Types.Scope().Lookup("Evented").(*types.Const)
	if got := c.Val().String(); got != `"EventedPLEG"` {
		t.Errorf("the overlay's constant: %s", got)
	}
	// The same edit saved: the content is the same, nothing is checked again.
	if err := os.WriteFile(features, edited[features], 0o644); err != nil {
		t.Fatal(err)
	}
	saved := byPath(load(nil))
	for path, p := range after {
		if saved[path] != p {
			t.Errorf("%s checked again after saving what was checked", path)
		}
	}
	// An edit to pleg re-checks pleg and kubelet, not features.
	pleg := filepath.Join(dir, "pkg", "kubelet", "pleg", "pleg.go")
	next := byPath(load(map[string][]byte{pleg: []byte("package pleg\n\nimport \"time\"\n\nconst Period = 2 * time.Second\n")}))
	if next["k8s.io/kubernetes/pkg/features"] != saved["k8s.io/kubernetes/pkg/features"] || next["k8s.io/kubernetes/pkg/kubelet"] == saved["k8s.io/kubernetes/pkg/kubelet"] {
		t.Errorf("an edit to pleg: features re-checked %v, kubelet re-checked %v; want false, true",
			next["k8s.io/kubernetes/pkg/features"] != saved["k8s.io/kubernetes/pkg/features"], next["k8s.io/kubernetes/pkg/kubelet"] != saved["k8s.io/kubernetes/pkg/kubelet"])
	}
}

// TestCacheDoesNotGrow: a hundred edits leave the cache, and its
// FileSet, the size one load needs.
func TestCacheDoesNotGrow(t *testing.T) {
	dir, cache, load := cacheTree(t)
	load(nil)
	before := cache.Stats()
	kubelet := filepath.Join(dir, "pkg", "kubelet", "kubelet.go")
	for i := range 100 {
		text := fmt.Sprintf("package kubelet\n\nimport (\n\t\"k8s.io/kubernetes/pkg/features\"\n\t\"k8s.io/kubernetes/pkg/kubelet/pleg\"\n)\n\nvar _, _ = features.Evented, pleg.Period\n\nconst edit = %d\n", i)
		load(map[string][]byte{kubelet: []byte(text)})
	}
	if after := cache.Stats(); after != before {
		t.Errorf("after 100 edits the cache holds %+v, after the first load %+v", after, before)
	}
}

// TestOverlayNewFile: a buffer not yet saved in a package's directory is
// part of the package; a package left out says why and the rest loads.
func TestOverlayNewFile(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/a/a.go":        "package a\n\nconst A = 1\n",
		"pkg/broken/b.go":   "packge broken\n",
		"pkg/features/f.go": "package features\n",
	})
	added := filepath.Join(tr.Dir, "pkg", "a", "new.go")
	res, err := LoadImports(context.Background(), tr, Imports{Overlay: map[string][]byte{added: []byte("package a\n\nconst B = A + 1\n")}, LeaveOut: true, Cache: NewCache()},
		"k8s.io/kubernetes/pkg/a", "k8s.io/kubernetes/pkg/broken", "k8s.io/kubernetes/pkg/absent")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 1 || res.Packages[0].Types.Scope().Lookup("B") == nil {
		t.Fatalf("packages %v: want pkg/a with the unsaved file's B", res.Packages)
	}
	if len(res.LeftOut) != 2 || !strings.Contains(res.LeftOut[0].Error(), "broken") || !strings.Contains(res.LeftOut[1].Error(), "absent") {
		t.Errorf("left out: %v; want pkg/broken (no file loads) and pkg/absent (not in the tree)", res.LeftOut)
	}
	if len(res.Problems) != 1 || res.Problems[0].Pos.Line != 1 {
		t.Errorf("problems %v: want pkg/broken/b.go's syntax error", res.Problems)
	}
}
