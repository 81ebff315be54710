package main

import (
	"fmt"
	"os"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/engine"
	"github.com/plegvet/plegvet/internal/sarif"
	"github.com/plegvet/plegvet/internal/suite"
)

// writeSARIF writes the findings of the checker's root actions to file as
// SARIF 2.1.0, for code scanning: -sarif FILE, beside whatever the other
// flags print. Paths are relative to the working directory (the
// checkout's root, in CI); findings come in the order of the text output
// (the checker's), sorted by position within each analyzer's package. An
// analyzer that failed on a package contributes nothing: its error is a
// notification of the invocation, which is then not successful, as it is
// when a package did not load (loadFailed).
func writeSARIF(file string, g *engine.Graph, loadFailed bool) error {
	wd, _ := os.Getwd()
	run := sarif.Run{Version: version(), Rules: suite.Rules(), Root: wd, Successful: !loadFailed}
	if loadFailed {
		run.Notifications = append(run.Notifications, "packages did not load: the text or JSON output says which; their findings are missing")
	}
	for act := range g.All() {
		switch {
		case act.Err != nil:
			run.Successful = false
			run.Notifications = append(run.Notifications, fmt.Sprintf("%s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err))
		case act.IsRoot:
			run.Results = append(run.Results, sarif.Results(act.Package.Fset, wd, act.Diagnostics)...)
		}
	}
	return createSARIF(file, run)
}

// createSARIF writes run to the file name as a SARIF log.
func createSARIF(name string, run sarif.Run) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = sarif.Write(f, run)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// sarifResults are the library's diagnostics as SARIF results.
func sarifResults(ds []plegvet.Diagnostic) []sarif.Result {
	out := make([]sarif.Result, 0, len(ds))
	for _, d := range ds {
		res := sarif.Result{Check: d.Category, Message: d.Message, Pos: sarif.Pos(d.Pos)}
		if d.End != nil {
			end := sarif.Pos(*d.End)
			res.End = &end
		}
		for _, r := range d.Related {
			res.Related = append(res.Related, sarif.Related{Message: r.Message, Pos: sarif.Pos(r.Pos)})
		}
		for _, f := range d.Fixes {
			fix := sarif.Fix{Message: f.Message}
			for _, e := range f.Edits {
				fix.Edits = append(fix.Edits, sarif.Edit{Pos: sarif.Pos(e.Pos), End: sarif.Pos(e.End), NewText: e.NewText})
			}
			res.Fixes = append(res.Fixes, fix)
		}
		out = append(out, res)
	}
	return out
}
