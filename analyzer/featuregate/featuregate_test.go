package featuregate_test

import (
	"path/filepath"
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
