// Package tree describes the Kubernetes source tree plegvet analyses: a
// checkout on disk or a release fetched from the module proxy, and how its
// files are named in output (relative to the checkout root, with '/').
package tree

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KubernetesModule is the module path of the main Kubernetes repository.
const KubernetesModule = "k8s.io/kubernetes"

// CRIAPIModule is the module that holds the CRI api.proto.
const CRIAPIModule = "k8s.io/cri-api"

// Tree is a Kubernetes tree: Dir is the checkout root (or the extracted
// k8s.io/kubernetes module). Modules maps a staging module path (such as
// k8s.io/cri-api) to a directory outside Dir that stands in for
// staging/src/<module> (the release modules fetched with -k8s).
type Tree struct {
	Dir     string
	Module  string            // module path declared by Dir/go.mod
	Version string            // Kubernetes version when known (v1.36.1)
	Modules map[string]string // staging module path -> directory
}

// Open describes the checkout rooted at dir. It fails with one line naming
// the directory when dir is not a Kubernetes tree.
func Open(dir string) (*Tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: not a directory: %v", dir, errCause(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory; want the root of a Kubernetes checkout (-C DIR)", dir)
	}
	mod, err := modulePath(filepath.Join(abs, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes tree: %v; want the root of a checkout, where go.mod declares module %s", dir, err, KubernetesModule)
	}
	if _, err := os.Stat(filepath.Join(abs, "pkg", "features")); err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes tree: no pkg/features directory (module %s); want the root of a checkout", dir, mod)
	}
	return &Tree{Dir: abs, Module: mod}, nil
}

func errCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// modulePath reads the module line of a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", fmt.Errorf("no go.mod")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("go.mod has no module line")
}

// PackageDir returns the directory holding the package with the given
// import path, looking in the tree itself, its staging modules and its
// vendor directory, or "" when the tree does not hold it.
func (t *Tree) PackageDir(importPath string) string {
	if rest, ok := strings.CutPrefix(importPath, t.Module+"/"); ok {
		return existingDir(filepath.Join(t.Dir, filepath.FromSlash(rest)))
	}
	for mod, dir := range t.Modules {
		if importPath == mod {
			return existingDir(dir)
		}
		if rest, ok := strings.CutPrefix(importPath, mod+"/"); ok {
			return existingDir(filepath.Join(dir, filepath.FromSlash(rest)))
		}
	}
	for _, base := range []string{"staging/src", "vendor"} {
		if d := existingDir(filepath.Join(t.Dir, filepath.FromSlash(base), filepath.FromSlash(importPath))); d != "" {
			return d
		}
	}
	return ""
}

// ModuleDir returns the directory of a staging module (k8s.io/cri-api):
// a fetched module, the checkout's staging copy, or its vendored copy.
func (t *Tree) ModuleDir(module string) string {
	if d, ok := t.Modules[module]; ok {
		return d
	}
	for _, base := range []string{"staging/src", "vendor"} {
		if d := existingDir(filepath.Join(t.Dir, filepath.FromSlash(base), filepath.FromSlash(module))); d != "" {
			return d
		}
	}
	return ""
}

func existingDir(d string) string {
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Rel names an absolute file path as a user would type it in a checkout:
// relative to the root, with '/'; files of a fetched staging module are
// named under staging/src/<module>/. Paths outside the tree stay as given.
func (t *Tree) Rel(path string) string {
	if path == "" {
		return ""
	}
	for mod, dir := range t.Modules {
		if r, ok := within(dir, path); ok {
			return "staging/src/" + mod + "/" + r
		}
	}
	if r, ok := within(t.Dir, path); ok {
		return r
	}
	return filepath.ToSlash(path)
}

func within(dir, path string) (string, bool) {
	r, err := filepath.Rel(dir, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// OpenModule describes the module whose go.mod is in dir or its nearest
// parent: a tree for analysing a package pattern wherever it is run.
func OpenModule(dir string) (*Tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if mod, err := modulePath(filepath.Join(d, "go.mod")); err == nil {
			return &Tree{Dir: d, Module: mod}, nil
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("%s: no go.mod here or above; run plegvet inside a module", dir)
		}
	}
}
