package srcload

import (
	"go/parser"
	"go/token"
	"testing"
)

// Parsing on every CPU gives the positions a parse in order gives.
func TestParseAllPositionsAsInOrder(t *testing.T) {
	const mode = parser.ParseComments | parser.SkipObjectResolution
	sources := []source{
		{"a.go", "a.go", []byte("package p\n\nvar A = 1\n"), mode},
		{"empty.go", "empty.go", nil, mode},
		{"b.go", "b.go", []byte("package p\n\nfunc B() {\n\treturn\n}\n"), mode},
		{"broken.go", "broken.go", []byte("package p\n\nvar = \n"), mode},
		{"c.go", "c.go", []byte("package p\n\ntype C struct{ X int }\n"), mode},
	}
	for _, before := range []int{0, 1, 4096} {
		inOrder := token.NewFileSet()
		l := &loader{fset: token.NewFileSet()}
		if before > 0 {
			inOrder.AddFile("earlier.go", -1, before)
			l.fset.AddFile("earlier.go", -1, before)
		}
		got := l.parseAll(sources)
		for i, s := range sources {
			want, wantErr := parser.ParseFile(inOrder, s.filename, s.src, mode)
			if (wantErr == nil) != (got[i].err == nil) {
				t.Fatalf("%s: error %v, in order %v", s.filename, got[i].err, wantErr)
			}
			if want.Package != got[i].file.Package || want.FileEnd != got[i].file.FileEnd {
				t.Errorf("%s after %d bytes: package clause at %d, file end %d; in order %d, %d", s.filename, before, got[i].file.Package, got[i].file.FileEnd, want.Package, want.FileEnd)
			}
			if p, q := l.fset.Position(got[i].file.End()), inOrder.Position(want.End()); p != q {
				t.Errorf("%s: end %v, in order %v", s.filename, p, q)
			}
		}
		if l.fset.Base() != inOrder.Base() {
			t.Errorf("after %d bytes: next base %d, in order %d", before, l.fset.Base(), inOrder.Base())
		}
	}
}
