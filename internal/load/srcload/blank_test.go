package srcload

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBlankBodies(t *testing.T) {
	// blanked are the bodies (between their braces) blankBodies blanks, in
	// order.
	for _, tc := range []struct {
		name, src string
		blanked   []string
	}{
		{"function and method",
			"package p\n\nfunc F(a int) int {\n\treturn a + 1\n}\n\nfunc (r *R) M() { r.n++ }\n",
			[]string{"\n\treturn a + 1\n", " r.n++ "}},
		{"init keeps its statements",
			"package p\n\nfunc init() { register(1) }\n\nfunc (T) init() { x() }\n",
			[]string{" x() "}},
		{"braces in literals and comments",
			"package p\n\nfunc F() {\n\ts := \"}\" + `{\n}` + string('}') // }\n\t/* { */\n}\n\nvar V = 1\n",
			[]string{"\n\ts := \"}\" + `{\n}` + string('}') // }\n\t/* { */\n"}},
		{"struct and interface results, type parameters",
			"package p\n\nfunc F[T any](x T) struct{ A int } { return struct{ A int }{1} }\n\nfunc G() interface{ M() } { return nil }\n",
			[]string{" return struct{ A int }{1} ", " return nil "}},
		{"func types and literals outside declarations are left",
			"package p\n\nvar m = map[string]func(string) bool{\n\t\"a\": nil,\n}\n\ntype H func(int)\n\nvar h func()\n\nfunc F() {}\n",
			nil},
		{"a declaration without a body",
			"package p\n\nfunc Asm(x int) int\n\nfunc F() { g() }\n",
			[]string{" g() "}},
		{"a string left open: unchanged",
			"package p\n\nfunc F() { g() }\n\nvar s = \"open\n",
			nil},
		{"a body left open: unchanged",
			"package p\n\nfunc F() { g() }\n\nfunc G() { if x {\n",
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, at := "", 0
			for _, b := range tc.blanked {
				i := strings.Index(tc.src[at:], b)
				if i < 0 {
					t.Fatalf("%q is not in the source", b)
				}
				want += tc.src[at:at+i] + strings.Map(func(r rune) rune {
					if r == '\n' {
						return r
					}
					return ' '
				}, b)
				at += i + len(b)
			}
			want += tc.src[at:]
			src := []byte(tc.src)
			if got := string(blankBodies(src, false)); got != want {
				t.Errorf("blankBodies:\n%q\nwant\n%q", got, want)
			}
			if string(src) != tc.src {
				t.Errorf("blankBodies wrote to src it was not given to write")
			}
		})
	}
}

// TestBlankBodiesParsesAlike parses this module's own Go files blanked and
// not: the same declarations at the same positions, bodies (init's aside)
// empty, and newlines where they were.
func TestBlankBodiesParsesAlike(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		blanked := blankBodies(src, false)
		if len(blanked) != len(src) || bytes.Count(blanked, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Errorf("%s: length or lines changed", path)
			return nil
		}
		want, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // not Go source as it stands (a test's broken input)
		}
		got, err := parser.ParseFile(token.NewFileSet(), path, blanked, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: blanked: %v", path, err)
			return nil
		}
		for _, d := range want.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil && (fd.Recv != nil || fd.Name.Name != "init") {
				fd.Body.List = nil
			}
		}
		var w, g bytes.Buffer
		ast.Fprint(&w, nil, want, ast.NotNilFilter)
		ast.Fprint(&g, nil, got, ast.NotNilFilter)
		if w.String() != g.String() {
			t.Errorf("%s: the blanked file's declarations differ", path)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("%d files compared, want this module's (100 or more)", files)
	}
}

// FuzzBlankBodies: whatever the bytes, blankBodies neither panics nor
// hangs, keeps every offset and newline, changes nothing but bytes inside
// braces into spaces, writes to src only when allowed, and a file that
// parses still parses blanked, with as many declarations.
func FuzzBlankBodies(f *testing.F) {
	for _, s := range []string{
		"package p\n\nfunc F(a int) int {\n\treturn a + 1\n}\n",
		"package p\n\nfunc init() { register(1) }\n\nfunc (T) init() { x() }\n",
		"package p\n\nfunc F() {\n\ts := \"}\" + `{\n}` + string('}') // }\n\t/* { */\n}\n",
		"package p\n\nfunc F[T any](x T) struct{ A int } { return struct{ A int }{1} }\n",
		"package p\n\nvar m = map[string]func(string) bool{\n\t\"a\": nil,\n}\n\nfunc Asm(x int) int\n",
		"package p\n\nfunc G() { if x {\n",
		"package p\n\nfunc F() { g() }\n\nvar s = \"open\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		orig := bytes.Clone(src)
		out := blankBodies(src, false)
		if !bytes.Equal(src, orig) {
			t.Fatal("blankBodies wrote to src it was not given to write")
		}
		if len(out) != len(src) {
			t.Fatalf("length %d, want %d", len(out), len(src))
		}
		for i := range out {
			if out[i] != src[i] && (out[i] != ' ' || src[i] == '\n') {
				t.Fatalf("byte %d: %q became %q", i, src[i], out[i])
			}
		}
		want, err := parser.ParseFile(token.NewFileSet(), "f.go", src, parser.SkipObjectResolution)
		if err != nil {
			return
		}
		got, err := parser.ParseFile(token.NewFileSet(), "f.go", out, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parses whole, not blanked: %v\n%q", err, out)
		}
		if len(got.Decls) != len(want.Decls) {
			t.Fatalf("%d declarations blanked, %d whole", len(got.Decls), len(want.Decls))
		}
	})
}
