package tree

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
		"k8snofeatures/go.mod":     "module k8s.io/kubernetes\n",
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
		"nomod":         "not a Kubernetes tree: no go.mod",
		"nofeatures":    "go.mod declares module example.com/x; a Kubernetes tree (module k8s.io/kubernetes) was expected",
		"nomodline":     "go.mod has no module line",
		"k8snofeatures": "not a Kubernetes tree: no pkg/features directory (module k8s.io/kubernetes)",
		"afile":         "not a directory; want the root of a Kubernetes checkout",
		"missing":       "not a directory: no such file or directory",
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
		"k8s.io/kubernetes":                  k, // a package at the module's root
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
		// A package of the checkout is named back by its directory.
		if want != "" && strings.HasPrefix(want, k) {
			if got, ok := tr.ImportPath(want); !ok || got != path {
				t.Errorf("ImportPath(%s) = %q, %v, want %q", want, got, ok, path)
			}
		}
	}
	if got, ok := tr.ImportPath(k); !ok || got != "k8s.io/kubernetes" {
		t.Errorf("ImportPath(root) = %q, %v", got, ok)
	}
	if got, ok := tr.ImportPath(root); ok {
		t.Errorf("ImportPath(outside) = %q, want none", got)
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

// TestOpenGoMod: a go.mod that is not a readable file declaring
// k8s.io/kubernetes makes Open fail at once, with one line.
func TestOpenGoMod(t *testing.T) {
	root := t.TempDir()
	tests := map[string]struct {
		gomod string                  // content, when make is nil
		make  func(path string) error // makes go.mod otherwise
		want  string                  // the whole error after "DIR: "
	}{
		"other":      {gomod: "module example.com/foo\n", want: "go.mod declares module example.com/foo; a Kubernetes tree (module k8s.io/kubernetes) was expected"},
		"staging":    {gomod: "module k8s.io/apiserver\n\ngo 1.26\n", want: "go.mod declares module k8s.io/apiserver; a Kubernetes tree (module k8s.io/kubernetes) was expected"},
		"quotedpath": {gomod: "module \"example.com/a\\nb\"\n", want: `go.mod declares module "example.com/a\nb"; a Kubernetes tree (module k8s.io/kubernetes) was expected`},
		"dir":        {make: func(p string) error { return os.Mkdir(p, 0o755) }, want: "go.mod is a directory, want a file"},
		"fifo":       {make: func(p string) error { return syscall.Mkfifo(p, 0o644) }, want: "go.mod is a named pipe (FIFO), want a regular file"},
		"zero":       {make: func(p string) error { return os.Symlink("/dev/zero", p) }, want: "go.mod is a symbolic link to /dev/zero, a character device; want a regular file"},
		"dangling":   {make: func(p string) error { return os.Symlink("gone", p) }, want: "go.mod is a symbolic link to gone, which does not exist"},
		"huge": {make: func(p string) error {
			if err := os.WriteFile(p, []byte("module k8s.io/kubernetes\n"), 0o644); err != nil {
				return err
			}
			return os.Truncate(p, 1<<30)
		}, want: "go.mod is 1073741824 bytes, over the 16 MiB limit for one file"},
		"syntax":    {gomod: "module k8s.io/kubernetes\nrequire (\n", want: "go.mod:3: syntax error (unterminated block started at go.mod:2:1)"},
		"twoerrors": {gomod: "module k8s.io/kubernetes\nrequire a\nrequire b\n", want: "go.mod:2: usage: require module/path v1.2.3 (and 1 more errors)"},
		"repeated":  {gomod: "module k8s.io/kubernetes\nmodule k8s.io/kubernetes\n", want: "go.mod:2: repeated module statement"},
		"nul":       {gomod: "module k8s.io/kubernetes\x00\n", want: "go.mod:1:25: unexpected input character '\\x00'"},
		"empty":     {gomod: "", want: "go.mod has no module line"},
		// Unknown directives are the go command's concern, not plegvet's.
		"future": {gomod: "module k8s.io/kubernetes\n\nsomeday directive\nrequire example.com/x v1\n", want: ""},
	}
	for name, tc := range tests {
		dir := filepath.Join(root, name)
		write(t, dir, map[string]string{"pkg/features/f.go": "package features\n"})
		gomod := filepath.Join(dir, "go.mod")
		if tc.make != nil {
			if err := tc.make(gomod); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(gomod, []byte(tc.gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		var err error
		returnsSoon(t, "Open("+name+")", func() { _, err = Open(dir) })
		if tc.want == "" {
			if err != nil {
				t.Errorf("Open(%s) = %v", name, err)
			}
			continue
		}
		if want := dir + ": " + tc.want; err == nil || err.Error() != want {
			t.Errorf("Open(%s) = %v\nwant %s", name, err, want)
		}
	}
}

// TestOpenQuotesDir: a directory name with a newline is quoted, so the
// error stays one line.
func TestOpenQuotesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a\nb")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), strconv.Quote(dir)+": not a Kubernetes tree: no go.mod") {
		t.Errorf("Open = %v", err)
	}
	_, err = OpenModule(dir)
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("OpenModule = %v", err)
	}
}

// TestOpenModuleAnyModule: OpenModule serves the go/analysis driver in any
// module, skips a go.mod directory as the go command does, and fails
// rather than hangs on a go.mod it cannot read.
func TestOpenModuleAnyModule(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"go.mod":                "module example.com/m\n",
		"sub/go.mod/README":     "a directory named go.mod",
		"sub/pkg/a.go":          "package pkg\n",
		"bad/go.mod":            "module example.com/bad\nrequire (\n",
		"bad/pkg/b.go":          "package pkg\n",
		"fifo/pkg/c.go":         "package pkg\n",
		"kube/go.mod":           "module k8s.io/kubernetes\n",
		"kube/pkg/kubelet/k.go": "package kubelet\n",
	})
	if err := syscall.Mkfifo(filepath.Join(root, "fifo", "go.mod"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		"sub/pkg":     "example.com/m " + root,
		"kube/pkg":    "k8s.io/kubernetes " + filepath.Join(root, "kube"),
		"bad/pkg":     "error: " + filepath.Join(root, "bad") + ": go.mod:3: syntax error (unterminated block started at go.mod:2:1)",
		"fifo/pkg":    "error: " + filepath.Join(root, "fifo") + ": go.mod is a named pipe (FIFO), want a regular file",
		"kube/absent": "k8s.io/kubernetes " + filepath.Join(root, "kube"),
	} {
		var tr *Tree
		var err error
		returnsSoon(t, "OpenModule("+dir+")", func() { tr, err = OpenModule(filepath.Join(root, dir)) })
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = tr.Module + " " + tr.Dir
		}
		if got != want {
			t.Errorf("OpenModule(%s) = %s\nwant %s", dir, got, want)
		}
	}
}

// returnsSoon runs f and fails the test if it has not returned after a few
// seconds: opening a FIFO or reading a device would block it for ever.
func returnsSoon(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return within 5s", what)
	}
}

// Open reads each go.mod once: the tree's, its staging modules' and those
// its go.work uses, which name the tree and its staging modules again
// (issue 43: a v1.37.2 checkout's 34 go.mod files were parsed twice, 5%
// of report -C). Counted, not timed; not parallel (the count is the
// process's).
func TestOpenReadsEachGoModOnce(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"k/go.mod":                      "module k8s.io/kubernetes\n",
		"k/pkg/features/f.go":           "package features\n",
		"k/staging/src/k8s.io/a/go.mod": "module k8s.io/a\n",
		"k/staging/src/k8s.io/b/go.mod": "module k8s.io/b\n",
		"k/go.work":                     "go 1.26\n\nuse (\n\t.\n\t../copy-of-a\n\t./staging/src/k8s.io/b\n)\n",
		"copy-of-a/go.mod":              "module k8s.io/a\n",
	})
	t.Setenv("GOWORK", filepath.Join(root, "k", "go.work"))
	before, parsedBefore := goModsRead.Load(), goModsParsed.Load()
	tr, err := Open(filepath.Join(root, "k"))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := tr.Copies()["k8s.io/a"]; !ok || c.Dir != filepath.Join(root, "copy-of-a") {
		t.Fatalf("Copies = %v, want k8s.io/a read from copy-of-a (the go.work was not followed)", tr.Copies())
	}
	// k/go.mod, a's, b's, and the copy's.
	if got := goModsRead.Load() - before; got != 4 {
		t.Errorf("Open read %d go.mod files, want 4 (each once)", got)
	}
	// The tree's parsed whole; the others' module lines read.
	if got := goModsParsed.Load() - parsedBefore; got != 1 {
		t.Errorf("Open parsed %d go.mod files whole, want 1 (the tree's)", got)
	}
}

// A staging module whose go.mod the go command refuses, but whose module
// line says which module it is, is mapped by Open's search for copies
// (which reads module lines) and named by StagingModules (which parses
// each file): gates says what is wrong with it.
func TestStagingModuleThatDoesNotParse(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"go.mod":                      "module k8s.io/kubernetes\n",
		"pkg/features/f.go":           "package features\n",
		"staging/src/k8s.io/a/go.mod": "module k8s.io/a\n\nrequire (\n",
		"staging/src/k8s.io/b/go.mod": "module k8s.io/b\n",
		"staging/src/k8s.io/c/README": "no module here\n",
		"staging/src/k8s.io/d/go.mod": "go 1.26\n",
	})
	t.Setenv("GOWORK", "off")
	tr, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	mods, bad := tr.StagingModules()
	if _, ok := mods["k8s.io/b"]; !ok || len(mods) != 1 {
		t.Errorf("StagingModules = %v, want k8s.io/b alone", mods)
	}
	var msgs []string
	for _, e := range bad {
		msgs = append(msgs, e.Error())
	}
	want := []string{"staging/src/k8s.io/a: go.mod:4: syntax error (unterminated block started at go.mod:3:1)", "staging/src/k8s.io/d: go.mod has no module line"}
	if !slices.Equal(msgs, want) {
		t.Errorf("StagingModules' problems %q, want %q", msgs, want)
	}
	for _, c := range []struct{ gomod, mod, err string }{
		{"staging/src/k8s.io/a/go.mod", "k8s.io/a", ""},
		{"staging/src/k8s.io/d/go.mod", "", "go.mod has no module line"},
	} {
		mod, err := moduleLine(filepath.Join(root, c.gomod))
		if mod != c.mod || fmt.Sprint(err) != cmp.Or(c.err, "<nil>") {
			t.Errorf("moduleLine(%s) = %q, %v; want %q, %s", c.gomod, mod, err, c.mod, cmp.Or(c.err, "no error"))
		}
	}
}

// Open returns before it has read the staging modules (their go.mod
// files, the go.work): the tree's own packages are found meanwhile, and a
// staging package waits for them. Not parallel (the hook is the
// process's).
func TestOpenFindsCopiesInTheBackground(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"k/go.mod":                        "module k8s.io/kubernetes\n",
		"k/pkg/features/f.go":             "package features\n",
		"k/staging/src/k8s.io/a/go.mod":   "module k8s.io/a\n",
		"k/staging/src/k8s.io/a/pkg/a.go": "package pkg\n",
		"k/go.work":                       "go 1.26\n\nuse (\n\t.\n\t../copy-of-a\n)\n",
		"copy-of-a/go.mod":                "module k8s.io/a\n",
		"copy-of-a/pkg/a.go":              "package pkg\n",
	})
	t.Setenv("GOWORK", filepath.Join(root, "k", "go.work"))
	release, found := make(chan struct{}), make(chan struct{})
	findingCopies = func() {
		defer close(found)
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}
	defer func() { findingCopies = nil }()
	tr, err := Open(filepath.Join(root, "k"))
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	select {
	case <-found:
		t.Fatal("Open returned once the copies were found, not before")
	default:
	}
	if got, want := tr.PackageDir("k8s.io/kubernetes/pkg/features"), filepath.Join(root, "k", "pkg", "features"); got != want {
		t.Errorf("PackageDir(pkg/features) = %q, want %q", got, want)
	}
	staging := make(chan string, 1)
	go func() { staging <- tr.PackageDir("k8s.io/a/pkg") }()
	select {
	case got := <-staging:
		t.Errorf("PackageDir(k8s.io/a/pkg) = %q before the copies were found", got)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if got, want := <-staging, filepath.Join(root, "copy-of-a", "pkg"); got != want {
		t.Errorf("PackageDir(k8s.io/a/pkg) = %q, want the go.work's copy %q", got, want)
	}
}
