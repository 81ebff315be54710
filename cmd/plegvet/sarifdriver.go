package main

import (
	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/sarif"
)

// createSARIF writes run to the file name as a SARIF log.
func createSARIF(name string, run sarif.Run) error { return sarif.WriteFile(name, run) }

// sarifResults are the library's diagnostics as SARIF results.
func sarifResults(ds []plegvet.Diagnostic) []sarif.Result {
	out := make([]sarif.Result, 0, len(ds))
	for _, d := range ds {
		res := sarif.Result{Check: d.Category, Message: d.Message, Pos: d.Pos}
		if d.End != nil {
			end := *d.End
			res.End = &end
		}
		for _, r := range d.Related {
			res.Related = append(res.Related, sarif.Related{Message: r.Message, Pos: r.Pos})
		}
		for _, f := range d.Fixes {
			fix := sarif.Fix{Message: f.Message}
			for _, e := range f.Edits {
				fix.Edits = append(fix.Edits, sarif.Edit{Pos: e.Pos, End: e.End, NewText: e.NewText})
			}
			res.Fixes = append(res.Fixes, fix)
		}
		out = append(out, res)
	}
	return out
}
