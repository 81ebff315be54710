package gatefacts_test

import (
	"go/token"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/plegvet/plegvet/analyzer/gatefacts"
	"github.com/plegvet/plegvet/analyzer/internal/splittest"
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The gates' facts; the diagnostics in the same fixtures are
// featuregate's (its TestAnalyzer and TestSuggestedFixes).
func TestFacts(t *testing.T) {
	analysistest.Run(splittest.Facts(t), testdata(t), gatefacts.Analyzer,
		"k8s.io/apiserver/pkg/features",
		"k8s.io/kubernetes/pkg/features",
		"k8s.io/client-go/features",
		"gateshapes/...",
		"gaterules/...",
		"gatefixes",
		"registrations/...",
	)
}

// A gate set by an assignment in init carries its fact to importers: the
// user package's Enabled(initassign.EventedPLEG) resolves to its specs.
func TestAssignedGateReachesImporters(t *testing.T) {
	results := analysistest.Run(t, testdata(t), gatefacts.Analyzer, "gateshapes/initassign/user")
	if len(results) != 1 {
		t.Fatalf("%d results", len(results))
	}
	res := results[0].Result.(*gatefacts.Result)
	var got []string
	for c, f := range res.Used {
		got = append(got, c.Name()+": "+f.String())
	}
	want := "EventedPLEG: gate EventedPLEG [1.26 Alpha off, 1.35 Beta on]"
	if len(got) != 1 || got[0] != want {
		t.Errorf("used gates = %q, want %q", got, want)
	}
	if f := res.Imported("Listed"); f == nil || f.String() != "gate Listed [1.35 Beta on]" {
		t.Errorf("Imported(Listed) = %v", f)
	}
	if f := res.Imported("Nowhere"); f != nil {
		t.Errorf("Imported(Nowhere) = %v, want none", f)
	}
}

// A relisting package sees each direct import's registration of a gate,
// with the place of the import's entry: the featuregate analyzer reports
// a conflict there.
func TestRegistrationsOfImports(t *testing.T) {
	results := analysistest.Run(splittest.Facts(t), testdata(t), gatefacts.Analyzer, "registrations/kube/features")
	if len(results) != 1 {
		t.Fatalf("%d results", len(results))
	}
	res := results[0].Result.(*gatefacts.Result)
	regs := res.Registrations("WatchCache")
	if len(regs) != 1 || regs[0].Package != "registrations/staging/features" || regs[0].Fact.Map != "serverGates" {
		t.Fatalf("Registrations(WatchCache) = %+v, want registrations/staging/features' serverGates", regs)
	}
	e := regs[0].Fact.Entry
	if filepath.Base(e.File) != "features.go" || e.Line != 35 || e.Column != 2 || e.EndLine != 38 || e.EndColumn != 3 {
		t.Errorf("WatchCache's entry = %+v, want features.go:35:2 to 38:3", e)
	}
	pos, end := e.In(results[0].Pass.Fset)
	if p := results[0].Pass.Fset.Position(pos); p.Filename != e.File || p.Line != 35 || p.Column != 2 {
		t.Errorf("In = %s", p)
	}
	if p := results[0].Pass.Fset.Position(end); p.Line != 38 || p.Column != 3 {
		t.Errorf("In (end) = %s", p)
	}
	if regs := res.Registrations("EventedPLEG"); len(regs) != 0 {
		t.Errorf("Registrations(EventedPLEG) = %+v, want none: no import declares it", regs)
	}
}

// Under go vet a package's FileSet holds its own files only: a recorded
// place in another package's file resolves to a stand-in file of that
// name where it prints as in the real file.
func TestFactPosStandIn(t *testing.T) {
	src := "package p\n\nvar m = map[string]int{\n\t\"A\": 1,\n\n\t\"Wide\": {\n\t\t2,\n\t},\n}\n"
	real := token.NewFileSet()
	f := real.AddFile("/tree/staging/p/p.go", -1, len(src))
	f.SetLinesForContent([]byte(src))
	at := func(line, col int) token.Pos { return f.LineStart(line) + token.Pos(col-1) }
	fp := gatefacts.NewFactPos(real, at(6, 2), at(8, 3))
	if !fp.IsValid() || fp.Line != 6 || fp.Column != 2 || fp.EndLine != 8 || fp.EndColumn != 3 {
		t.Fatalf("NewFactPos = %+v", fp)
	}
	other := token.NewFileSet()
	other.AddFile("/tree/pkg/q.go", -1, 100)
	pos, end := fp.In(other)
	if got := other.Position(pos).String(); got != "/tree/staging/p/p.go:6:2" {
		t.Errorf("stand-in start = %s", got)
	}
	if got := other.Position(end).String(); got != "/tree/staging/p/p.go:8:3" {
		t.Errorf("stand-in end = %s", got)
	}
	// In the FileSet that holds the real file, the real file.
	if pos, _ := fp.In(real); pos != at(6, 2) {
		t.Errorf("In(real) = %d, want %d", pos, at(6, 2))
	}
	// Lines and offsets no file can have: no position.
	bad := fp
	bad.Offset, bad.Column = 3, 1
	if pos, _ := bad.In(token.NewFileSet()); pos.IsValid() {
		t.Errorf("an impossible place resolved to %d", pos)
	}
	if pos, _ := (gatefacts.FactPos{}).In(other); pos.IsValid() {
		t.Error("the zero FactPos resolved")
	}
}
