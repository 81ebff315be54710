package plegvet

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lookAlike is the look-alike checkout whose files the tree fuzzer
// replaces, cuts and adds to.
const lookAlike = "testdata/src/k8s.io/kubernetes"

// FuzzInspectTree builds whole trees from the look-alike checkout's files
// (go.mod, pkg/features, pkg/kubelet, pleg, api.proto) with one of them
// replaced by fuzzed bytes, cut short, or joined by a fuzzed sibling, and
// asserts that Inspect never panics or hangs and never answers as if all
// was read when a Go file could not be: such a file is named in
// Source.Load.Problems, or Inspect fails.
func FuzzInspectTree(f *testing.F) {
	files := lookAlikeFiles(f)
	f.Add(uint8(0), uint8(0), []byte("package features\n"))
	f.Add(uint8(1), uint8(1), []byte{})
	f.Add(uint8(2), uint8(2), []byte("\x00\x01binary"))
	f.Add(uint8(3), uint8(0), []byte("package other\n\nfunc F() {}\n"))
	f.Add(uint8(4), uint8(1), []byte("module example.com/x\n"))
	f.Add(uint8(5), uint8(2), []byte("syntax = \"proto3\";\nservice S { rpc GetContainerEvents(A) returns (B); }\n"))
	f.Fuzz(func(t *testing.T, which, how uint8, data []byte) {
		dir := t.TempDir()
		for _, rel := range files {
			src, err := os.ReadFile(filepath.Join(lookAlike, rel))
			if err != nil {
				t.Fatal(err)
			}
			write(t, dir, rel, src)
		}
		target := files[int(which)%len(files)]
		changed := target
		switch how % 3 {
		case 0: // replaced
			write(t, dir, target, data)
		case 1: // cut short at a fuzzed offset
			src, _ := os.ReadFile(filepath.Join(dir, target))
			n := 0
			if len(src) > 0 {
				n = int(uint(len(data)) % uint(len(src)))
			}
			write(t, dir, target, src[:n])
		case 2: // a sibling file beside it
			changed = filepath.ToSlash(filepath.Join(filepath.Dir(target), "zz_fuzzed"+filepath.Ext(target)))
			write(t, dir, changed, data)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		rep, err := Inspect(ctx, Options{Dir: dir})
		if ctx.Err() != nil {
			t.Fatalf("Inspect did not finish within a minute with %s changed", changed)
		}
		if err != nil || !strings.HasSuffix(changed, ".go") || strings.HasSuffix(changed, "_test.go") {
			return
		}
		if readable(t, filepath.Join(dir, changed)) {
			return
		}
		for _, p := range rep.Source.Load.Problems {
			if strings.HasPrefix(p, changed+":") {
				return
			}
		}
		t.Errorf("%s does not parse as a file of its package, yet Inspect answered without naming it: problems %q", changed, rep.Source.Load.Problems)
	})
}

// readable reports whether a Go file parses in full with the package
// clause of the look-alike's other files in its directory.
func readable(t *testing.T, file string) bool {
	src, err := os.ReadFile(file)
	if err != nil || bytes.IndexByte(src, 0) >= 0 {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.PackageClauseOnly)
	if err != nil {
		return false
	}
	if _, err := parser.ParseFile(token.NewFileSet(), file, src, 0); err != nil {
		return false
	}
	want := filepath.Base(filepath.Dir(file))
	if want == "kubernetes" || want == "v1" {
		return true
	}
	return f.Name.Name == want
}

func lookAlikeFiles(tb testing.TB) []string {
	var files []string
	err := filepath.WalkDir(lookAlike, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(lookAlike, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func write(t *testing.T, dir, rel string, data []byte) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
