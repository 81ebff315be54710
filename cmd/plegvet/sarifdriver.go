package main

import (
	"fmt"
	"os"

	"golang.org/x/tools/go/analysis/checker"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/sarif"
	"github.com/plegvet/plegvet/internal/suite"
)

// writeSARIF writes the findings of the checker's root actions to file as
// SARIF 2.1.0, for code scanning: -sarif FILE, beside whatever the other
// flags print. Paths are relative to the working directory (the
// checkout's root, in CI); findings come in the order of the text output
// (the checker's), sorted by position within each analyzer's package. An
// analyzer that failed on a package contributes nothing (its error is in
// the text or JSON output).
func writeSARIF(file string, g *checker.Graph) error {
	wd, _ := os.Getwd()
	var all []sarif.Result
	for act := range g.All() {
		if act.IsRoot && act.Err == nil {
			all = append(all, sarif.Results(act.Package.Fset, wd, act.Diagnostics)...)
		}
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := sarif.Write(f, version(), suite.Rules(), all); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
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
