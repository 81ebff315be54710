package srcload

import (
	"context"
	"errors"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

const featuresPath = "k8s.io/kubernetes/pkg/features"

const goodFeatures = "package features\n\nconst Gate = \"Gate\"\n"

// noop is the least an analyzer can be: enough for the checker to demand
// a name, types and syntax of every package.
var noop = &analysis.Analyzer{Name: "noop", Doc: "does nothing", Run: func(*analysis.Pass) (any, error) { return nil, nil }}

// analyze runs the checker as analysisrun does, turning its panic (raised
// in a goroutine of its own when a package lacks a name or types) into a
// failure through the same checks it makes.
func analyze(t *testing.T, pkgs []*packages.Package) {
	t.Helper()
	for _, p := range pkgs {
		if p.Name == "" || p.Types == nil || p.TypesInfo == nil || p.Fset == nil || p.TypesSizes == nil || len(p.Syntax) == 0 {
			t.Fatalf("%s: loaded without name, types or syntax: name %q, types %v, %d files", p.PkgPath, p.Name, p.Types, len(p.Syntax))
		}
		if len(p.Syntax) != len(p.GoFiles) {
			t.Errorf("%s: %d files of syntax for %d GoFiles", p.PkgPath, len(p.Syntax), len(p.GoFiles))
		}
	}
	if _, err := checker.Analyze([]*analysis.Analyzer{noop}, pkgs, nil); err != nil {
		t.Fatal(err)
	}
}

// TestUnparseableFileDoesNotNameThePackage is the panic of issue #10: an
// empty file beside a good one used to win the vote for the package name
// with "", and the checker panicked.
func TestUnparseableFileDoesNotNameThePackage(t *testing.T) {
	for name, content := range map[string]string{
		"empty":  "",
		"binary": "\x7fELF\x02\x01\x01\xff\xfe garbage",
		"noname": "package\n",
		"blank":  "package _\n\nconst X = 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			tr := fixtureTree(t, map[string]string{
				"pkg/features/client_adapter.go": content,
				"pkg/features/kube_features.go":  goodFeatures,
			})
			res, err := Load(context.Background(), tr, featuresPath)
			if err != nil {
				t.Fatal(err)
			}
			pkg := res.Packages[0]
			if pkg.Name != "features" || pkg.Types == nil || pkg.Types.Name() != "features" {
				t.Fatalf("Name %q, Types %v", pkg.Name, pkg.Types)
			}
			if len(res.Problems) != 1 || res.Problems[0].Pos.Filename != "pkg/features/client_adapter.go" {
				t.Errorf("Problems = %v, want one naming pkg/features/client_adapter.go", res.Problems)
			}
			analyze(t, res.Packages)
		})
	}
}

// TestNoUsablePackageClause: a package none of whose files names it is an
// error naming them, not a package without a name.
func TestNoUsablePackageClause(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/a.go": "",
		"pkg/features/b.go": "\x00\x01\x02",
		"pkg/features/c.go": "package _\n",
	})
	_, err := Load(context.Background(), tr, featuresPath)
	want := "pkg/features: none of its 3 Go files could be loaded: pkg/features/a.go:1:1: syntax error: expected 'package', found 'EOF' (and 2 more)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	tr = fixtureTree(t, map[string]string{"pkg/features/a.go": ""})
	_, err = Load(context.Background(), tr, featuresPath)
	want = "pkg/features: no Go file could be loaded: pkg/features/a.go:1:1: syntax error: expected 'package', found 'EOF'"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// TestOtherPackageClause: files that disagree with the package's name are
// named with both names; a tie goes to the name the path suggests.
func TestOtherPackageClause(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/a.go":   "package features\n",
		"pkg/features/b.go":   "package features\n",
		"pkg/features/x.go":   "// Copyright\n\npackage main\n\nfunc main() {}\n",
		"pkg/tie/one.go":      "package other\n",
		"pkg/tie/two.go":      "package tie\n",
		"pkg/nomajority/a.go": "package zeta\n",
		"pkg/nomajority/b.go": "package alpha\n",
	})
	res, err := Load(context.Background(), tr, featuresPath, "k8s.io/kubernetes/pkg/tie", "k8s.io/kubernetes/pkg/nomajority")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Error())
	}
	want := []string{
		"pkg/features/x.go:3:9: package main, want features (the package's other files)",
		"pkg/tie/one.go:1:9: package other, want tie (the package's other files)",
		"pkg/nomajority/a.go:1:9: package zeta, want alpha (the package's other files)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, name := range []string{"features", "tie", "alpha"} {
		if p := res.Packages[i]; p.Name != name || p.Types.Name() != name {
			t.Errorf("%s: Name %q, Types %v", p.PkgPath, p.Name, p.Types)
		}
	}
	if n := len(res.Packages[0].Syntax); n != 2 {
		t.Errorf("features has %d files of syntax, want 2", n)
	}
	analyze(t, res.Packages)
}

// TestFileProblems is the table of files that cannot be Go source of the
// package: each is named with why, the rest of the package is loaded, and
// none costs time or memory in proportion to what it would yield.
func TestFileProblems(t *testing.T) {
	tests := []struct {
		name string
		file string                  // the entry's name in pkg/features
		src  string                  // its content, when make is nil
		make func(path string) error // makes it otherwise
		want string                  // the Problem's line, after "pkg/features/"
	}{
		{name: "empty", file: "empty.go", src: "", want: "empty.go:1:1: syntax error: expected 'package', found 'EOF'"},
		{name: "binary", file: "bin.go", src: "\xca\xfe\xba\xbe\x80\x81", want: "bin.go:1:1: syntax error: illegal UTF-8 encoding (and 2 more syntax errors)"},
		{name: "NUL", file: "nul.go", src: "package features\n\nvar s = \"a\x00b\"\n", want: "nul.go: holds a NUL byte at offset 28; not Go source"},
		{name: "NUL first", file: "nul0.go", src: "\x00package features\n", want: "nul0.go: holds a NUL byte at offset 0; not Go source"},
		{name: "other package", file: "other.go", src: "package other\n", want: "other.go:1:9: package other, want features (the package's other files)"},
		{name: "bad build constraint", file: "tag.go", src: "//go:build linux &&\n\npackage features\n", want: "tag.go: build constraints: parsing //go:build line: unexpected end of expression"},
		{name: "raw newline in syntax error", file: "raw.go", src: "package features\n\nvar x = 1 `a\nb`\n", want: "raw.go:3:11: syntax error: expected ';', found `a\\nb`"},
		{name: "FIFO", file: "fifo.go", make: func(p string) error { return syscall.Mkfifo(p, 0o644) }, want: "fifo.go: is a named pipe (FIFO), want a regular file"},
		{name: "symlink to a FIFO", file: "fifolink.go", make: func(p string) error {
			if err := syscall.Mkfifo(p+".fifo", 0o644); err != nil {
				return err
			}
			return os.Symlink(filepath.Base(p)+".fifo", p)
		}, want: "fifolink.go: is a symbolic link to fifolink.go.fifo, a named pipe (FIFO); want a regular file"},
		{name: "symlink to /dev/zero", file: "zero.go", make: symlink("/dev/zero"), want: "zero.go: is a symbolic link to /dev/zero, a character device; want a regular file"},
		{name: "symlink to /dev/null", file: "null.go", make: symlink("/dev/null"), want: "null.go: is a symbolic link to /dev/null, a character device; want a regular file"},
		{name: "dangling symlink", file: "gone.go", make: symlink("nowhere.go"), want: "gone.go: is a symbolic link to nowhere.go, which does not exist"},
		{name: "directory", file: "dir.go", make: func(p string) error { return os.Mkdir(p, 0o755) }, want: "dir.go: is a directory, want a file"},
		{name: "socket", file: "sock.go", make: func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		}, want: "sock.go: is a socket, want a regular file"},
		{name: "1 GiB sparse", file: "huge.go", make: func(p string) error {
			if err := os.WriteFile(p, []byte("package features\n"), 0o644); err != nil {
				return err
			}
			return os.Truncate(p, 1<<30)
		}, want: "huge.go: is 1073741824 bytes, over the 16 MiB limit for one file"},
		{name: "unreadable", file: "mem.go", make: symlink("/proc/self/mem"), want: "mem.go: cannot read: input/output error"},
		{name: "name with a newline", file: "new\nline.go", src: "package features\n\nvar = \n", want: "\"pkg/features/new\\nline.go\":3:5: syntax error: expected 'IDENT', found '='"},
		{name: "name with an escape", file: "\x1b[2J.go", src: "", want: "\"pkg/features/\\x1b[2J.go\":1:1: syntax error: expected 'package', found 'EOF'"},
	}
	if os.Getuid() != 0 {
		tests = append(tests, struct {
			name, file, src string
			make            func(string) error
			want            string
		}{name: "mode 000", file: "secret.go", make: func(p string) error { return os.WriteFile(p, []byte("package features\n"), 0) }, want: "secret.go: cannot open: permission denied"})
	} else {
		t.Log("running as root: mode 000 does not stop reads; /proc/self/mem stands in for an unreadable file")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.make != nil && strings.Contains(tc.want, "/proc/self/mem") {
				if _, err := os.Stat("/proc/self/mem"); err != nil {
					t.Skip("no /proc/self/mem here")
				}
			}
			tr := fixtureTree(t, map[string]string{"pkg/features/kube_features.go": goodFeatures})
			p := filepath.Join(tr.Dir, "pkg", "features", tc.file)
			if tc.make != nil {
				if err := tc.make(p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			start := time.Now()
			var res *Result
			var err error
			done := make(chan struct{})
			go func() { defer close(done); res, err = Load(context.Background(), tr, featuresPath) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Load did not return within 10s")
			}
			took := time.Since(start)
			runtime.ReadMemStats(&ms1)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range res.Problems {
				got = append(got, p.Error())
			}
			want := tc.want
			if !strings.HasPrefix(want, `"`) {
				want = "pkg/features/" + want
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("Problems = %q\nwant [%q]", got, want)
			}
			if len(got) == 1 && strings.ContainsAny(got[0], "\n\r") {
				t.Errorf("Problem %q is not one line", got[0])
			}
			pkg := res.Packages[0]
			kept := false
			for _, f := range pkg.GoFiles {
				kept = kept || filepath.Base(f) == "kube_features.go"
			}
			if !kept || pkg.Name != "features" || pkg.Types.Scope().Lookup("Gate") == nil {
				t.Errorf("the good file was not loaded: %v, %q", pkg.GoFiles, pkg.Name)
			}
			if took > 5*time.Second || ms1.TotalAlloc-ms0.TotalAlloc > inputfile.MaxSize {
				t.Errorf("Load took %v and %d bytes", took, ms1.TotalAlloc-ms0.TotalAlloc)
			}
			analyze(t, res.Packages)
		})
	}
}

func symlink(target string) func(string) error {
	return func(p string) error { return os.Symlink(target, p) }
}

// TestAlsoPackageProblems: the files of a package loaded for also are
// named too, even when none is usable and the import is stubbed.
func TestAlsoPackageProblems(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/kube_features.go":                  "package features\n\nimport (\n\tg \"k8s.io/apiserver/pkg/features\"\n\tb \"k8s.io/broken/features\"\n)\n\nvar x, y = g.A, b.B\n",
		"staging/src/k8s.io/apiserver/pkg/features/a.go": "package features\n\nconst A = 1\n",
		"staging/src/k8s.io/apiserver/pkg/features/z.go": "package features\n\nconst Z = \"\x00\"\n",
		"vendor/k8s.io/broken/features/b.go":             "",
	})
	res, err := LoadWith(context.Background(), tr, func(p string) bool { return strings.HasSuffix(p, "/features") }, featuresPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Error())
	}
	want := "staging/src/k8s.io/apiserver/pkg/features/z.go: holds a NUL byte at offset 29; not Go source\n" +
		"vendor/k8s.io/broken/features/b.go:1:1: syntax error: expected 'package', found 'EOF'"
	if strings.Join(got, "\n") != want {
		t.Errorf("Problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	if strings.Join(res.Stubbed, " ") != "k8s.io/broken/features" {
		t.Errorf("Stubbed = %v", res.Stubbed)
	}
	analyze(t, res.Packages)
}

// TestLoadCancelled: a cancelled context stops the load with its error.
func TestLoadCancelled(t *testing.T) {
	tr := fixtureTree(t, map[string]string{"pkg/features/kube_features.go": goodFeatures})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Load(ctx, tr, featuresPath)
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Load = %v, %v; want context.Canceled", res, err)
	}
	if want := "pkg/features: load stopped: context canceled"; err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	// Cancelled while an import is loaded for also: the check stops too.
	tr = fixtureTree(t, map[string]string{
		"pkg/features/kube_features.go":                  "package features\n\nimport _ \"k8s.io/apiserver/pkg/features\"\n",
		"staging/src/k8s.io/apiserver/pkg/features/a.go": "package features\n",
	})
	ctx, cancel = context.WithCancel(context.Background())
	also := func(p string) bool { cancel(); return true }
	if _, err := LoadWith(ctx, tr, also, featuresPath); !errors.Is(err, context.Canceled) {
		t.Errorf("LoadWith = %v, want context.Canceled", err)
	}
}
