package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/sarif"
)

// sarifArg finds -sarif FILE (or -sarif=FILE) among a driver's
// arguments and returns the file and the other arguments.
func sarifArg(args []string) (file string, rest []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "sarif" {
			rest = append(rest, a)
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		file, ok = value, true
	}
	return file, rest, ok
}

// runSARIF is the standalone driver with -sarif FILE: it loads the
// packages like the standard driver, prints findings like go vet and
// writes them as SARIF 2.1.0 for code scanning. Exit codes are the
// standard driver's: 1 when packages fail to load, 3 with findings.
func runSARIF(file string, args []string, analyzers []*analysis.Analyzer, stderr io.Writer) int {
	fs := flag.NewFlagSet("plegvet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, a := range analyzers {
		a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, a.Name+"."+f.Name, f.Usage) })
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if file == "" {
		fmt.Fprintln(stderr, "plegvet: -sarif needs a file name")
		return exitUsage
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	cfg := &packages.Config{Mode: packages.LoadAllSyntax}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return exitFailure
	}
	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure
	}
	wd, _ := os.Getwd()
	var all []plegvet.Diagnostic
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			fmt.Fprintf(stderr, "plegvet: %s: %v\n", act, act.Err)
			continue
		}
		all = append(all, sarif.Diagnostics(act.Package.Fset, wd, act.Diagnostics)...)
	}
	for _, d := range all {
		fmt.Fprintf(stderr, "%s:%d:%d: %s\n", d.Pos.File, d.Pos.Line, d.Pos.Column, errorLine(d.Message))
	}
	f, err := os.Create(file)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure
	}
	if err := sarif.Write(f, version(), all); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "plegvet: writing %s: %v\n", file, err)
		return exitFailure
	}
	if err := f.Close(); err != nil {
		fmt.Fprintf(stderr, "plegvet: writing %s: %v\n", file, err)
		return exitFailure
	}
	if len(all) > 0 {
		return 3
	}
	return exitOK
}
