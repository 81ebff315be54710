// Package tree describes the Kubernetes source tree plegvet analyses: a
// checkout on disk or a release fetched from the module proxy, and how its
// files are named in output (relative to the checkout root, with '/').
package tree

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/mod/modfile"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/internal/load/inputfile"
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
	// Sums are, for a fetched release, each module's go.sum hash (module
	// path -> h1:...), the main module's included: what its content is.
	// Nil for a checkout, whose files may change.
	Sums map[string]string
	// copies are what findCopies found (Copies, Redirects), in a
	// checkout: Open starts it, and what needs it waits.
	copies func() foundCopies
}

// foundCopies are the staging modules the go command builds from another
// copy, and what would change the copy it builds and could not be
// followed (findCopies).
type foundCopies struct {
	copies    map[string]Copy
	redirects []string
}

// Copies are, in a checkout, the staging modules the go command builds
// from another copy than staging/src/MODULE (a go.work's, a vendored
// one): read instead, as the kubelet is built from them.
func (t *Tree) Copies() map[string]Copy {
	if t.copies == nil {
		return nil
	}
	return t.copies().copies
}

// Open describes the checkout rooted at dir. It fails with one line naming
// the directory when dir is not a Kubernetes tree: its go.mod must declare
// module k8s.io/kubernetes (forks keep that path).
func Open(dir string) (*Tree, error) {
	name := inputfile.QuoteName(dir)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: not a directory: %w", name, inputfile.Cause(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory; want the root of a Kubernetes checkout (-C DIR)", name)
	}
	read := modPaths{} // go.mod files are read once: Open's, its staging modules', its go.work's uses
	mod, err := read.of(filepath.Join(abs, "go.mod"), modulePath)
	if err == errNoGoMod {
		return nil, fmt.Errorf("%s: not a Kubernetes tree: no go.mod; want the root of a checkout, where go.mod declares module %s", name, KubernetesModule)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if mod != KubernetesModule {
		return nil, fmt.Errorf("%s: go.mod declares module %s; a Kubernetes tree (module %s) was expected", name, inputfile.QuoteName(mod), KubernetesModule)
	}
	if st, err := os.Stat(filepath.Join(abs, "pkg", "features")); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: not a Kubernetes tree: no pkg/features directory (module %s); want the root of a checkout", name, mod)
	}
	t := &Tree{Dir: abs, Module: mod}
	// The staging modules' go.mod files and the go.work are read in the
	// background: a load starts with the tree's own packages, which do not
	// depend on them, and the first staging package it asks for waits.
	t.copies = sync.OnceValue(func() foundCopies {
		if findingCopies != nil {
			findingCopies()
		}
		c, r := t.findCopies(read)
		return foundCopies{c, r}
	})
	go func() {
		defer func() { _ = recover() }() // raised again where Copies is asked for
		t.copies()
	}()
	return t, nil
}

// modPaths are the answers of modulePath (or moduleLine) by go.mod file
// name, for one Open: its tree's go.mod, each staging module's and each
// module a go.work uses (the tree and its staging modules again) are read
// once.
type modPaths map[string]modPathAnswer

type modPathAnswer struct {
	mod string
	err error
}

// readAll reads the go.mod files not read yet with read, on every CPU.
func (m modPaths) readAll(gomods []string, read func(gomod string) (string, error)) {
	answers := make([]modPathAnswer, len(gomods))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, gomod := range gomods {
		if _, ok := m[gomod]; ok {
			continue
		}
		g.Go(func() error {
			answers[i].mod, answers[i].err = read(gomod)
			return nil
		})
	}
	g.Wait()
	for i, gomod := range gomods {
		if _, ok := m[gomod]; !ok {
			m[gomod] = answers[i]
		}
	}
}

// of is read(gomod), read once.
func (m modPaths) of(gomod string, read func(gomod string) (string, error)) (string, error) {
	a, ok := m[gomod]
	if !ok {
		a.mod, a.err = read(gomod)
		m[gomod] = a
	}
	return a.mod, a.err
}

// findingCopies, a test's hook, is called as Open's search for copies
// starts.
var findingCopies func()

// goModsRead counts the go.mod files modulePath and moduleLine read, for
// a test to see that Open reads each go.mod once.
var goModsRead atomic.Int64

// goModsParsed counts the go.mod files parsed whole (parsedModulePath).
var goModsParsed atomic.Int64

// errNoGoMod is modulePath's answer for a directory without go.mod.
var errNoGoMod = errors.New("no go.mod")

// modulePath reads the module path a go.mod file declares. The rest of the
// file must parse too (as the go command reads a dependency's go.mod:
// unknown directives pass), since a tree whose go.mod the go command
// rejects is not one plegvet can describe.
func modulePath(gomod string) (string, error) {
	data, err := readGoMod(gomod)
	if err != nil {
		return "", err
	}
	return parsedModulePath(data)
}

// moduleLine reads the module path a go.mod file declares from its module
// line alone (modfile.ModulePath), as modulePath does where there is none.
// Open's search for copies reads thirty staging modules' files to map
// their module paths, and a parse of each cost report -C 5 ms of CPU: a
// file that does not parse is the go command's to refuse, and gates names
// it (StagingModules parses every one).
func moduleLine(gomod string) (string, error) {
	data, err := readGoMod(gomod)
	if err != nil {
		return "", err
	}
	if p := modfile.ModulePath(data); p != "" {
		return p, nil
	}
	return parsedModulePath(data)
}

// readGoMod reads a go.mod file: errNoGoMod where there is none.
func readGoMod(gomod string) ([]byte, error) {
	goModsRead.Add(1)
	if _, err := os.Lstat(gomod); errors.Is(err, fs.ErrNotExist) {
		return nil, errNoGoMod
	}
	data, err := inputfile.Read(gomod)
	if err != nil {
		return nil, fmt.Errorf("go.mod %w", err)
	}
	return data, nil
}

// parsedModulePath is the module path of a go.mod file's content, which
// must parse (modulePath).
func parsedModulePath(data []byte) (string, error) {
	goModsParsed.Add(1)
	keep := func(_, v string) (string, error) { return v, nil } // versions are not plegvet's concern
	f, err := modfile.ParseLax("go.mod", data, keep)
	if err != nil {
		var list modfile.ErrorList
		if errors.As(err, &list) && len(list) > 1 {
			return "", fmt.Errorf("%s (and %d more errors)", inputfile.OneLine(list[0].Error()), len(list)-1)
		}
		return "", errors.New(inputfile.OneLine(err.Error()))
	}
	if f.Module == nil || f.Module.Mod.Path == "" {
		return "", errors.New("go.mod has no module line")
	}
	return f.Module.Mod.Path, nil
}

// PackageDir returns the directory holding the package with the given
// import path, looking in the tree itself, its staging modules and its
// vendor directory, or "" when the tree does not hold it.
func (t *Tree) PackageDir(importPath string) string {
	if importPath == t.Module { // a package at the module's root
		return existingDir(t.Dir)
	}
	if rest, ok := strings.CutPrefix(importPath, t.Module+"/"); ok {
		return existingDir(filepath.Join(t.Dir, filepath.FromSlash(rest)))
	}
	for mod, dir := range moduleDirs(t.Modules, t.Copies()) {
		if importPath == mod {
			return existingDir(dir)
		}
		if rest, ok := strings.CutPrefix(importPath, mod+"/"); ok {
			return existingDir(filepath.Join(dir, filepath.FromSlash(rest)))
		}
	}
	return t.copyDir(importPath)
}

// moduleDirs are the directories that stand in for staging/src/MODULE.
func moduleDirs(fetched map[string]string, copies map[string]Copy) map[string]string {
	if len(copies) == 0 {
		return fetched
	}
	all := maps.Clone(fetched)
	if all == nil {
		all = map[string]string{}
	}
	for m, c := range copies {
		all[m] = c.Dir
	}
	return all
}

// copyDir is the directory of the checkout's staging or, else, vendored
// copy of a package or module, or "".
func (t *Tree) copyDir(path string) string {
	for _, base := range []string{"staging/src", "vendor"} {
		if d := existingDir(filepath.Join(t.Dir, base, filepath.FromSlash(path))); d != "" {
			return d
		}
	}
	return ""
}

// ImportPath is the import path of the package in dir, a directory of
// the checkout: a staging or vendored package by its own path, any other
// by the tree's module path. ok is false for a directory outside the tree.
func (t *Tree) ImportPath(dir string) (path string, ok bool) {
	rel, ok := within(t.Dir, dir)
	if !ok {
		return "", false
	}
	for _, base := range []string{"staging/src/", "vendor/"} {
		if rest, found := strings.CutPrefix(rel, base); found && rest != "" {
			return rest, true
		}
	}
	if rel == "." {
		return t.Module, true
	}
	return t.Module + "/" + rel, true
}

// ModuleDir returns the directory of a staging module (k8s.io/cri-api):
// a fetched module, the checkout's staging copy, or its vendored copy.
func (t *Tree) ModuleDir(module string) string {
	if d, ok := t.Modules[module]; ok {
		return d
	}
	return t.copyDir(module)
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
// parent, whatever its path: a tree for analysing a package pattern
// wherever it is run. As for the go command, a directory named go.mod is
// no go.mod; a go.mod that cannot be read or parsed is an error.
func OpenModule(dir string) (*Tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(dir), err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		gomod := filepath.Join(d, "go.mod")
		if st, err := os.Stat(gomod); err == nil && st.IsDir() {
			// skipped, as the go command does
		} else if mod, err := modulePath(gomod); err == nil {
			return &Tree{Dir: d, Module: mod}, nil
		} else if err != errNoGoMod {
			return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(d), err)
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("%s: no go.mod here or above; run plegvet inside a module", inputfile.QuoteName(dir))
		}
	}
}

// StagingModules returns the tree's staging modules, each module path
// with its directory: the fetched ones (Modules) and, in a checkout, each
// staging/src/HOST/NAME whose go.mod declares the module HOST/NAME. A
// staging directory whose go.mod cannot be read or declares another
// module is returned in bad, with why, rather than skipped.
func (t *Tree) StagingModules() (mods map[string]string, bad []error) {
	return t.stagingModules(modPaths{}, modulePath, t.Copies())
}

// stagingModules is StagingModules with the copies known (none when
// findCopies asks), each go.mod read by readMod.
func (t *Tree) stagingModules(read modPaths, readMod func(gomod string) (string, error), copies map[string]Copy) (mods map[string]string, bad []error) {
	mods = map[string]string{}
	maps.Copy(mods, moduleDirs(t.Modules, copies))
	root := filepath.Join(t.Dir, "staging", "src")
	hosts, err := os.ReadDir(root)
	if err != nil {
		return mods, nil // no staging directory: a release, or an old tree
	}
	type candidate struct{ want, dir string }
	var found []candidate
	for _, h := range hosts {
		if !h.IsDir() {
			continue
		}
		names, err := os.ReadDir(filepath.Join(root, h.Name()))
		if err != nil {
			bad = append(bad, fmt.Errorf("staging/src/%s: %w", h.Name(), inputfile.Cause(err)))
			continue
		}
		for _, n := range names {
			if !n.IsDir() {
				continue
			}
			want := h.Name() + "/" + n.Name()
			if _, ok := mods[want]; !ok {
				found = append(found, candidate{want, filepath.Join(root, h.Name(), n.Name())})
			}
		}
	}
	gomods := make([]string, len(found))
	for i, c := range found {
		gomods[i] = filepath.Join(c.dir, "go.mod")
	}
	read.readAll(gomods, readMod) // a checkout has some thirty
	for i, c := range found {
		mod, err := read.of(gomods[i], readMod)
		switch {
		case err == errNoGoMod:
			continue // a directory that holds no module, such as a README's
		case err != nil:
			bad = append(bad, fmt.Errorf("staging/src/%s: %w", c.want, err))
		case mod != c.want:
			bad = append(bad, fmt.Errorf("staging/src/%s: go.mod declares module %s", c.want, inputfile.QuoteName(mod)))
		default:
			mods[mod] = c.dir
		}
	}
	return mods, bad
}

// ModuleOf names the module that holds a file named as Rel names it:
// the staging module whose staging/src/MODULE/ (or, for a module read
// from another copy, that copy's) prefix it has, else the tree's own
// module.
func (t *Tree) ModuleOf(rel string, staging map[string]string) string {
	best := ""
	copies := t.Copies()
	for m := range staging {
		c, copied := copies[m]
		if (strings.HasPrefix(rel, "staging/src/"+m+"/") || copied && strings.HasPrefix(rel, t.Rel(c.Dir)+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return cmp.Or(best, t.Module)
}
