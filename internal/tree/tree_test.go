package tree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpen(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"k/go.mod":                 "// a fork keeps the module path\nmodule  \"k8s.io/kubernetes\"\n\ngo 1.26\n",
		"k/pkg/features/f.go":      "package features\n",
		"nomod/pkg/features/f.go":  "package features\n",
		"nofeatures/go.mod":        "module example.com/x\n",
		"nomodline/go.mod":         "go 1.26\n",
		"nomodline/pkg/features/x": "",
		"afile":                    "",
	})
	tr, err := Open(filepath.Join(root, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Module != "k8s.io/kubernetes" {
		t.Errorf("Module = %q", tr.Module)
	}
	for dir, want := range map[string]string{
		"nomod":      "not a Kubernetes tree: no go.mod",
		"nofeatures": "no pkg/features directory (module example.com/x)",
		"nomodline":  "go.mod has no module line",
		"afile":      "not a directory; want the root of a Kubernetes checkout",
		"missing":    "not a directory: no such file or directory",
	} {
		_, err := Open(filepath.Join(root, dir))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%s) = %v, want one line containing %q", dir, err, want)
		}
	}
}

func TestRelAndPackageDir(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"k/go.mod":                                  "module k8s.io/kubernetes\n",
		"k/pkg/kubelet/pleg/generic.go":             "package pleg\n",
		"k/staging/src/k8s.io/apiserver/pkg/x/x.go": "package x\n",
		"k/vendor/example.com/v/v.go":               "package v\n",
		"cri/pkg/apis/runtime/v1/api.proto":         "",
	})
	k := filepath.Join(root, "k")
	tr := &Tree{Dir: k, Module: "k8s.io/kubernetes", Modules: map[string]string{CRIAPIModule: filepath.Join(root, "cri")}}
	for path, want := range map[string]string{
		"k8s.io/kubernetes/pkg/kubelet/pleg": filepath.Join(k, "pkg", "kubelet", "pleg"),
		"k8s.io/apiserver/pkg/x":             filepath.Join(k, "staging", "src", "k8s.io", "apiserver", "pkg", "x"),
		"example.com/v":                      filepath.Join(k, "vendor", "example.com", "v"),
		"k8s.io/cri-api/pkg/apis/runtime/v1": filepath.Join(root, "cri", "pkg", "apis", "runtime", "v1"),
		"k8s.io/kubernetes/pkg/nothing":      "",
		"example.com/absent":                 "",
	} {
		if got := tr.PackageDir(path); got != want {
			t.Errorf("PackageDir(%s) = %q, want %q", path, got, want)
		}
	}
	for abs, want := range map[string]string{
		filepath.Join(k, "pkg", "features", "kube_features.go"):                 "pkg/features/kube_features.go",
		filepath.Join(root, "cri", "pkg", "apis", "runtime", "v1", "api.proto"): "staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto",
		filepath.Join(root, "elsewhere.go"):                                     filepath.ToSlash(filepath.Join(root, "elsewhere.go")),
		"":                                                                      "",
	} {
		if got := tr.Rel(abs); got != want {
			t.Errorf("Rel(%s) = %q, want %q", abs, got, want)
		}
	}
	if got := tr.ModuleDir(CRIAPIModule); got != filepath.Join(root, "cri") {
		t.Errorf("ModuleDir = %q", got)
	}
	if got := tr.ModuleDir("k8s.io/apiserver"); got != filepath.Join(k, "staging", "src", "k8s.io", "apiserver") {
		t.Errorf("ModuleDir(apiserver) = %q", got)
	}
}

func TestOpenModule(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"go.mod": "module example.com/m\n", "a/b/c.go": "package b\n"})
	tr, err := OpenModule(filepath.Join(root, "a", "b"))
	if err != nil || tr.Dir != root || tr.Module != "example.com/m" {
		t.Errorf("OpenModule = %+v, %v", tr, err)
	}
	if _, err := OpenModule("/"); err == nil || !strings.Contains(err.Error(), "no go.mod here or above") {
		t.Errorf("OpenModule(/) = %v", err)
	}
}
