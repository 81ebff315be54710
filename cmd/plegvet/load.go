package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/srcload"
)

// load runs the analyzers on the lean loading, or, where it cannot answer
// as the go command would (loadLean says why) or PLEGVET_FULL_DRIVER=1
// asks, on the go/packages one. code >= 0 ends the run (an error was
// printed).
func load(o *driverOptions, stderr io.Writer) (r *run, code int) {
	why := fullDriverEnv + "=1"
	if os.Getenv(fullDriverEnv) != "1" {
		if r, why, code = loadLean(o, stderr); code >= 0 {
			return nil, code
		}
	}
	if r == nil {
		if o.dbg('v') {
			fmt.Fprintf(stderr, "plegvet: go/packages loader: %s\n", errorLine(why))
		}
		if r, code = loadPackages(o, stderr); code >= 0 {
			return nil, code
		}
	}
	if o.dbg('v') {
		fmt.Fprintf(stderr, "plegvet: %s loader: %s analysed\n", r.loader, plural(len(r.graph.Roots)/max(1, len(o.analyzers)), "root package"))
	}
	return r, -1
}

// loadPackages is the go/packages loader, multichecker's loading with
// -test=false: every package of the import graph type-checked from
// source; on ./pkg/... of a checkout it holds about 4 GiB.
func loadPackages(o *driverOptions, stderr io.Writer) (r *run, code int) {
	cfg := &packages.Config{Mode: packages.LoadAllSyntax | packages.NeedModule, ParseFile: parseFile}
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
	return &run{graph: graph, failed: failed, loader: "go/packages"}, -1
}

// parseFile parses as go/packages does, with the file's //line directives
// made plain comments (srcload.WithoutLineDirectives): positions name the
// file read, as in the lean loading. The go command's cgo output is
// left as it is: its directives name the package's own .go files.
func parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	if base := filepath.Base(filename); !strings.HasPrefix(base, "_cgo_") && !strings.HasSuffix(base, ".cgo1.go") {
		src = srcload.WithoutLineDirectives(src)
	}
	return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments)
}
