package srcpos_test

import (
	"encoding/json"
	"go/token"
	"testing"

	"github.com/plegvet/plegvet/srcpos"
)

// A position resolves once, keeps its JSON form, and prints as
// token.Position does; an invalid one is the zero Pos, or nil.
func TestPos(t *testing.T) {
	fset := token.NewFileSet()
	f := fset.AddFile("pkg/kubelet/kubelet.go", -1, 100)
	f.SetLines([]int{0, 10, 20})
	p := srcpos.Of(fset, f.Pos(12))
	if want := (srcpos.Pos{File: "pkg/kubelet/kubelet.go", Line: 2, Column: 3}); p != want {
		t.Fatalf("Of = %+v, want %+v", p, want)
	}
	if got := p.String(); got != "pkg/kubelet/kubelet.go:2:3" {
		t.Errorf("String = %s", got)
	}
	if got := srcpos.Line(&p); got != "pkg/kubelet/kubelet.go:2" {
		t.Errorf("Line = %s", got)
	}
	data, err := json.Marshal(p)
	if err != nil || string(data) != `{"file":"pkg/kubelet/kubelet.go","line":2,"column":3}` {
		t.Errorf("JSON %s, %v", data, err)
	}
	if srcpos.At(fset, token.NoPos) != nil || srcpos.Of(fset, token.NoPos).IsValid() || srcpos.Line(nil) != "-" {
		t.Error("an invalid position resolves to something")
	}
	if q := srcpos.Of(fset, f.Pos(25)); !p.Before(q) || q.Before(p) {
		t.Errorf("%s is not before %s", p, q)
	}
}
