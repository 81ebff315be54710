package main

import (
	"fmt"
	"os"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/sarif"
)

// writeSARIF writes a run's findings to file as SARIF 2.1.0, for code
// scanning: -sarif FILE, beside whatever the other flags print. Paths
// are relative to the working directory (the checkout's root, in CI);
// findings come in the order of the text output, sorted by position
// within each analyzer's package. An analyzer that failed on a package
// contributes nothing (its error is in the text or JSON output).
func writeSARIF(file string, run *loaded) error {
	wd, _ := os.Getwd()
	var all []plegvet.Diagnostic
	for act := range walk(run.roots) {
		if act.IsRoot && act.Err == nil {
			all = append(all, sarif.Diagnostics(act.Package.Fset, wd, act.Diagnostics)...)
		}
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := sarif.Write(f, version(), all); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %v", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %v", file, err)
	}
	return nil
}
