package gatefacts_test

import (
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
		"gateshapes/...",
		"gaterules/...",
		"gatefixes",
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
