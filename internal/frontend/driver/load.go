package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/plegvet/plegvet/internal/load/engine"
)

// load runs the analyzers on the lean loading, or, where it cannot answer
// as the go command would (loadLean says why) or PLEGVET_FULL_DRIVER=1
// asks, on the go/packages one. code >= 0 ends the run (an error was
// printed).
func load(ctx context.Context, o *Options, stderr io.Writer) (r *run, code int) {
	why := FullDriverEnv + "=1"
	if os.Getenv(FullDriverEnv) != "1" {
		restore := leanGC()
		defer restore()
		if r, why, code = loadLean(ctx, o, stderr); code >= 0 {
			return nil, code
		}
		if r == nil {
			restore() // the go/packages loader keeps Go's defaults
		}
	}
	if r == nil {
		if o.dbg('v') {
			fmt.Fprintf(stderr, "plegvet: go/packages loader: %s\n", o.Text.ErrorLine(why))
		}
		if r, code = loadPackages(ctx, o, stderr); code >= 0 {
			return nil, code
		}
	}
	if o.dbg('v') {
		n, noun := len(r.graph.Roots)/max(1, len(o.Analyzers)), "root packages"
		if n == 1 {
			noun = "root package"
		}
		fmt.Fprintf(stderr, "plegvet: %s loader: %d %s analysed\n", r.loader, n, noun)
	}
	return r, -1
}

// loadPackages is the go/packages loader (engine.LoadPackages).
func loadPackages(ctx context.Context, o *Options, stderr io.Writer) (r *run, code int) {
	initial, err := engine.LoadPackages(ctx, o.Patterns)
	if err == nil && len(initial) == 0 {
		err = fmt.Errorf("%s matched no packages", strings.Join(o.Patterns, " "))
	}
	if err != nil {
		o.fail(stderr, goListError(err, o.Patterns))
		return nil, exitFailure
	}
	failed := printErrors(stderr, initial, o.Text) > 0
	graph, err := engine.AnalyzePackages(o.Analyzers, initial, checkerOptions(o, stderr))
	if err != nil {
		o.fail(stderr, err.Error())
		return nil, exitFailure
	}
	return &run{graph: graph, failed: failed, loader: "go/packages"}, -1
}
