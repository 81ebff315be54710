package main

import "github.com/plegvet/plegvet/internal/render/sarif"

// createSARIF writes run to the file name as a SARIF log.
func createSARIF(name string, run sarif.Run) error { return sarif.WriteFile(name, run) }
