package runtimeread

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// FuzzRead: whatever Go source a runtime module holds, Read does not
// panic or loop, and what it answers hangs together: a verdict rests on
// servers that agree, each with a position and a why. The seeds are the
// look-alikes' files.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "shapes", "*.txtar"))
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if strings.HasSuffix(af.Name, ".go") {
				f.Add(af.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/fuzz\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "p", "p.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Read(context.Background(), dir)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if res.Why == "" {
			t.Fatal("no why")
		}
		for _, s := range res.Servers {
			if s.Why == "" || s.Method == "" || s.Pos.File == "" {
				t.Fatalf("server without method, position or why: %+v", s)
			}
		}
		if res.Streams != nil {
			if len(res.Servers) == 0 {
				t.Fatal("a verdict without a server")
			}
			for _, s := range res.Servers {
				if st := s.Shape.Streams(); st == nil || *st != *res.Streams {
					t.Fatalf("verdict %t, but %s is %s", *res.Streams, s.Method, s.Shape)
				}
			}
		}
	})
}
