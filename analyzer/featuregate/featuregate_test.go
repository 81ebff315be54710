package featuregate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/plegvet/plegvet/analyzer/featuregate"
)

func TestAnalyzer(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.Run(t, testdata, featuregate.Analyzer,
		"k8s.io/apiserver/pkg/features",
		"k8s.io/kubernetes/pkg/features",
		"gateshapes/...",
		"gaterules/...",
	)
}

// The obvious fixes: Default false for an Alpha gate, a minor for a patch.
func TestSuggestedFixes(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	analysistest.RunWithSuggestedFixes(t, testdata, featuregate.Analyzer, "gatefixes")
}

// A gate set by an assignment in init carries its fact to importers: the
// user package's Enabled(initassign.EventedPLEG) resolves to its specs.
func TestAssignedGateReachesImporters(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	results := analysistest.Run(t, testdata, featuregate.Analyzer, "gateshapes/initassign/user")
	if len(results) != 1 {
		t.Fatalf("%d results", len(results))
	}
	res := results[0].Result.(*featuregate.Result)
	var got []string
	for c, f := range res.Used {
		got = append(got, c.Name()+": "+f.String())
	}
	want := "EventedPLEG: gate EventedPLEG [1.26 Alpha off, 1.35 Beta on]"
	if len(got) != 1 || got[0] != want {
		t.Errorf("used gates = %q, want %q", got, want)
	}
}

// Every category the analyzer reports is documented in doc.go, where
// SARIF rules and -help come from.
func TestChecksDocumented(t *testing.T) {
	checks := featuregate.Checks()
	for _, name := range []string{"gate-unreadable", "dependency-unknown", "alpha-default-on"} {
		if checks[name] == "" {
			t.Errorf("check %s is not documented", name)
		}
	}
	if !strings.Contains(checks["gate-unreadable"], "maps.Copy") {
		t.Errorf("gate-unreadable doc = %q", checks["gate-unreadable"])
	}
}
