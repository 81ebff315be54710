package srcload

import (
	"context"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/internal/load/tree"
)

// FuzzLoad writes a tree of one package with 1 to 3 files of fuzzed
// content (and, when the high bit of shape is set, a fuzzed go.mod) and
// asserts that Load never panics or hangs, that every error and problem is
// one line, that the packages it returns can go to the checker, and that
// no file is dropped silently: each is in the package's syntax, named in
// Problems, or left out by build constraints as go build would.
func FuzzLoad(f *testing.F) {
	good := []byte(goodFeatures)
	f.Add(uint8(0), []byte(nil), good, []byte(nil), []byte(nil))
	f.Add(uint8(1), []byte(nil), []byte(""), good, []byte(nil))
	f.Add(uint8(2), []byte(nil), []byte("\x7fELF\x00\x00"), good, []byte("package other\n"))
	f.Add(uint8(2), []byte(nil), []byte("package _\n"), []byte("package\n"), []byte("\xff\xfe"))
	f.Add(uint8(1), []byte(nil), []byte("//go:build windows\n\npackage features\n"), []byte("//go:build (\n\npackage features\n"), []byte(nil))
	f.Add(uint8(1), []byte(nil), []byte("package features\n\nvar x = 1 `a\nb`\n"), []byte("package features\n\nimport \"C\"\n\nvar y = C.int(1)\n"), []byte(nil))
	f.Add(uint8(2), []byte(nil), []byte("package a\n"), []byte("package b\n"), []byte("package c\n"))
	f.Add(uint8(0), []byte(nil), []byte("package features\n\nimport \"k8s.io/kubernetes/pkg/features\"\n"), []byte(nil), []byte(nil))
	f.Add(uint8(0), []byte(nil), []byte("package features\n\nvar m = map[undefined]struct{}{x: {}, {}: {1}}\n"), []byte(nil), []byte(nil))
	f.Add(uint8(0x80), []byte("module example.com/x\n"), good, []byte(nil), []byte(nil))
	f.Add(uint8(0x80), []byte("module k8s.io/kubernetes\nrequire (\n"), good, []byte(nil), []byte(nil))
	f.Add(uint8(0x80), []byte("module k8s.io/kubernetes\n\ngo 1.26\n"), good, []byte(nil), []byte(nil))
	f.Fuzz(func(t *testing.T, shape uint8, gomod, a, b, c []byte) {
		root := t.TempDir()
		if shape&0x80 == 0 {
			gomod = []byte("module k8s.io/kubernetes\n")
		}
		pkgDir := filepath.Join(root, "pkg", "features")
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "go.mod"), gomod, 0o644); err != nil {
			t.Fatal(err)
		}
		contents := [][]byte{a, b, c}[:1+int(shape&0x7f)%3]
		var names []string
		for i, src := range contents {
			name := fmt.Sprintf("f%d.go", i)
			if err := os.WriteFile(filepath.Join(pkgDir, name), src, 0o644); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		oneLine := func(what, s string) {
			if strings.ContainsAny(s, "\n\r") {
				t.Fatalf("%s is not one line: %q", what, s)
			}
		}
		tr, err := tree.Open(root)
		if err != nil {
			oneLine("tree.Open's error", err.Error())
			return
		}
		var res *Result
		done := make(chan struct{})
		go func() { defer close(done); res, err = Load(context.Background(), tr, featuresPath) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("Load did not return within 30s")
		}
		if err != nil {
			oneLine("Load's error", err.Error())
			return
		}
		named := map[string]bool{}
		for _, p := range res.Problems {
			oneLine("a problem", p.Error())
			named[p.Pos.Filename] = true
		}
		pkg := res.Packages[0]
		inSyntax := map[string]bool{}
		for _, f := range pkg.Syntax {
			inSyntax[filepath.Base(res.Fset.File(f.Pos()).Name())] = true
		}
		ctxt := build.Default
		ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = "linux", "amd64", true
		for _, name := range names {
			if inSyntax[name] || named["pkg/features/"+name] {
				continue
			}
			if ok, err := ctxt.MatchFile(pkgDir, name); err == nil && !ok {
				continue // left out by its build constraints
			}
			t.Errorf("%s was dropped silently: not in the syntax of %s (%v), not in Problems %v", name, pkg.Name, inSyntax, res.Problems)
		}
		analyze(t, res.Packages)
	})
}
