// Package analysisrun runs plegvet's analyzers over packages the library
// loaded itself (from source, or typed through go/packages), so that the
// library, the command's subcommands and the go/analysis drivers share one
// implementation of every extraction and check.
package analysisrun

import (
	"fmt"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Outcome is what one analyzer produced for one package.
type Outcome struct {
	Package     *packages.Package
	Result      any
	Diagnostics []analysis.Diagnostic
	Err         error
}

// Run applies the analyzers to pkgs (whose Imports link the packages among
// them, so facts flow from one to the next) and returns each analyzer's
// outcome per package path.
func Run(analyzers []*analysis.Analyzer, pkgs []*packages.Package) (map[*analysis.Analyzer]map[string]*Outcome, error) {
	graph, err := Analyze(analyzers, pkgs, nil)
	if err != nil {
		return nil, err
	}
	out := map[*analysis.Analyzer]map[string]*Outcome{}
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		m := out[act.Analyzer]
		if m == nil {
			m = map[string]*Outcome{}
			out[act.Analyzer] = m
		}
		m[act.Package.PkgPath] = &Outcome{Package: act.Package, Result: act.Result, Diagnostics: act.Diagnostics, Err: act.Err}
	}
	return out, nil
}

// Analyze is checker.Analyze (opts may be nil), after refusing, with its
// name, a package without types: the checker would panic on it in a
// goroutine no caller can recover.
func Analyze(analyzers []*analysis.Analyzer, pkgs []*packages.Package, opts *checker.Options) (*checker.Graph, error) {
	var untyped error
	packages.Visit(pkgs, func(p *packages.Package) bool {
		if untyped == nil && (p.Name == "" || p.PkgPath == "" || p.Types == nil || p.TypesInfo == nil || p.Fset == nil || p.TypesSizes == nil) {
			untyped = fmt.Errorf("%s: the package could not be type-checked (no usable package clause?)", p.PkgPath)
		}
		return untyped == nil
	}, nil)
	if untyped != nil {
		return nil, untyped
	}
	graph, err := checker.Analyze(analyzers, pkgs, opts)
	if err != nil {
		return nil, fmt.Errorf("running analyzers: %w", err)
	}
	return graph, nil
}
