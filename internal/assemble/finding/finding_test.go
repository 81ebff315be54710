package finding

import (
	"encoding/json"
	"go/token"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// Of keeps each end a diagnostic gives (a related position's too, for the
// language server's ranges), drops an end that is its start, and the JSON
// of a related position is what it was before it kept its end.
func TestOfKeepsEnds(t *testing.T) {
	fset := token.NewFileSet()
	f := fset.AddFile("/t/a.go", -1, 100)
	f.SetLinesForContent([]byte(strings.Repeat("0123456789\n", 9)))
	p := func(off int) token.Pos { return f.Pos(off) }
	d := Of(fset, func(s string) string { return strings.TrimPrefix(s, "/t/") }, analysis.Diagnostic{
		Pos: p(12), End: p(15), Category: "c", Message: "m",
		Related: []analysis.RelatedInformation{{Pos: p(23), End: p(27), Message: "r"}, {Pos: p(34), End: p(34), Message: "at"}},
	})
	if d.Pos.File != "a.go" || d.Pos.Line != 2 || d.Pos.Column != 2 || d.End == nil || d.End.Column != 5 {
		t.Errorf("pos %+v end %+v", d.Pos, d.End)
	}
	if r := d.Related[0]; r.End == nil || r.End.File != "a.go" || r.End.Line != 3 || r.End.Column != 6 {
		t.Errorf("related %+v: want its end at a.go:3:6", r)
	}
	if r := d.Related[1]; r.End != nil {
		t.Errorf("related %+v: an end at the start is none", r)
	}
	got, err := json.Marshal(d.Related[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"message":"r","pos":{"file":"a.go","line":3,"column":2}}`; string(got) != want {
		t.Errorf("related's JSON %s, want %s", got, want)
	}
}
