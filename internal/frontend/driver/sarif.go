package driver

import (
	"fmt"
	"os"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/assemble/finding"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/internal/render/sarif"
)

// writeSARIF writes the findings of the checker's root actions to file as
// SARIF 2.1.0, for code scanning: -sarif FILE, beside whatever the other
// flags print. Paths are relative to the working directory (the
// checkout's root, in CI); findings come in the order of the text output
// (the checker's), sorted by position within each analyzer's package. An
// analyzer that failed on a package contributes nothing: its error is a
// notification of the invocation, which is then not successful, as it is
// when a package did not load (loadFailed).
func writeSARIF(file, version string, g *engine.Graph, loadFailed bool) error {
	wd, _ := os.Getwd()
	rel := (&tree.Tree{Dir: wd}).Rel
	run := sarif.Run{Version: version, Category: sarif.VetCategory, Rules: suite.Rules(), Root: wd, Successful: !loadFailed}
	if loadFailed {
		run.Notifications = append(run.Notifications, "packages did not load: the text or JSON output says which; their findings are missing")
	}
	for act := range g.All() {
		switch {
		case act.Err != nil:
			run.Successful = false
			run.Notifications = append(run.Notifications, fmt.Sprintf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err))
		case act.IsRoot:
			run.Results = append(run.Results, finding.FromAnalysis(act.Package.Fset, rel, act.Diagnostics)...)
		}
	}
	return sarif.WriteFile(file, run)
}
