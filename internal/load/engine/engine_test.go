package engine

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// A package without types is refused with its name: the checker would
// panic on it where no caller can recover.
func TestAnalyzeRefusesUntyped(t *testing.T) {
	a := &analysis.Analyzer{Name: "noop", Doc: "nothing", Run: func(*analysis.Pass) (any, error) { return nil, nil }}
	_, err := Analyze([]*analysis.Analyzer{a}, []*packages.Package{{ID: "example.com/p", PkgPath: "example.com/p"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "example.com/p: the package could not be type-checked") {
		t.Errorf("Analyze = %v, want the package named as not type-checked", err)
	}
}
