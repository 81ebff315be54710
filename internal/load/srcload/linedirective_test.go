package srcload

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestWithoutLineDirectives(t *testing.T) {
	src := "package p\n\n//line other.y:100\nvar a = \"//line in a string\"\n\nvar b = /*line x.y:5:1*/ 1\n\nvar c = `\n//line in a raw string\n`\n"
	got := string(WithoutLineDirectives([]byte(src)))
	want := strings.NewReplacer("//line other", "//Line other", "/*line x", "/*Line x").Replace(src)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// Positions are the file's own.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", got, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := fset.Position(f.Decls[0].Pos()); p.Filename != "p.go" || p.Line != 4 {
		t.Errorf("var a at %v; want p.go:4", p)
	}
	plain := []byte("package p\n")
	if out := WithoutLineDirectives(plain); &out[0] != &plain[0] {
		t.Error("a file without directives was copied")
	}
}

func FuzzWithoutLineDirectives(f *testing.F) {
	f.Add([]byte("package p\n//line a.go:1\nvar x = 1\n"))
	f.Add([]byte("/*line a:1:1*/ package p"))
	f.Fuzz(func(t *testing.T, src []byte) {
		out := WithoutLineDirectives(src)
		if len(out) != len(src) {
			t.Fatalf("length %d, want %d", len(out), len(src))
		}
	})
}
