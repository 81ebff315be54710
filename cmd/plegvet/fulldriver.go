package main

import (
	"fmt"
	"io"
	"strings"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// loadFull is multichecker's loading (x/tools go/analysis/internal/checker
// with -test=false): every package of the import graph parsed and
// type-checked from source, and every analyzer run on every package its
// facts need. It answers what the lean loading cannot (loadLean says
// why); PLEGVET_FULL_DRIVER=1 forces it. On ./pkg/... of a checkout it
// holds about 4 GiB.
func loadFull(o *driverOptions, stderr io.Writer) (run *loaded, code int) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule}
	initial, err := packages.Load(cfg, o.patterns...)
	if err == nil && len(initial) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(o.patterns, " "))
	}
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return nil, exitFailure
	}
	failed := printErrors(stderr, initial) > 0
	graph, err := checker.Analyze(o.analyzers, initial, checkerOptions(o, stderr))
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return nil, exitFailure
	}
	return &loaded{
		graph:  graph,
		roots:  graph.Roots,
		failed: failed,
		driver: "full",
	}, -1
}
