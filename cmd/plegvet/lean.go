package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"sort"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/analysisrun"
	"github.com/plegvet/plegvet/internal/srcload"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
)

// leanFlags are the standalone driver's flags that need the full
// go/analysis driver (typed from compiled dependencies, all syntax in
// memory): with any of them, plegvet hands over to multichecker.
var leanFlags = map[string]bool{"json": true, "fix": true, "diff": true, "c": true, "test": true, "cpuprofile": true, "memprofile": true, "trace": true, "debug": true, "flags": true, "V": true}

// runLean is the standalone driver for plain runs (plegvet [analyzer
// flags] PATTERNS): it asks the go command which packages match, keeps
// those that can matter (suite.Matters: they are, or directly import, the
// feature-gate API, a features package or the pleg package), and
// type-checks only those from source, as the subcommands do, with the
// imports the suite picks (suite.FromSource) loaded from the tree so facts
// flow. It never holds the whole dependency graph in memory. ok is false
// when the arguments need the full driver.
func runLean(args []string, analyzers []*analysis.Analyzer, stderr io.Writer) (code int, ok bool) {
	fs := flag.NewFlagSet("plegvet", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, a := range analyzers {
		a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, a.Name+"."+f.Name, f.Usage) })
	}
	for _, a := range args {
		name := a
		for len(name) > 0 && name[0] == '-' {
			name = name[1:]
		}
		if eq := indexByte(name, '='); eq >= 0 {
			name = name[:eq]
		}
		if a != name && leanFlags[name] {
			return 0, false
		}
	}
	if err := fs.Parse(args); err != nil {
		return 0, false // let the full driver explain its flags
	}
	patterns := fs.Args()
	if len(patterns) == 0 || patterns[0] == "help" {
		return 0, false
	}
	found, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedImports}, patterns...)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	if packages.PrintErrors(found) > 0 {
		return exitFailure, true
	}
	var roots []string
	for _, p := range found {
		if suite.Matters(p.PkgPath, maps.Keys(p.Imports)) {
			roots = append(roots, p.PkgPath)
		}
	}
	if len(roots) == 0 {
		return exitOK, true // nothing here can declare or use what plegvet reads
	}
	sort.Strings(roots)
	wd, _ := os.Getwd()
	t, err := tree.OpenModule(wd)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	for _, r := range roots {
		if t.PackageDir(r) == "" {
			return 0, false // outside this module (a dependency): the full driver finds it
		}
	}
	res, err := srcload.LoadWith(context.Background(), t, suite.FromSource, roots...)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	for _, p := range res.Problems {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(p.Error()))
	}
	outs, err := analysisrun.Run(analyzers, res.Packages)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	var ds []analysis.Diagnostic
	failed := false
	for _, a := range analyzers {
		for _, path := range roots {
			if o := outs[a][path]; o != nil {
				if o.Err != nil {
					failed = true
					fmt.Fprintf(stderr, "plegvet: %s: %s: %s\n", a.Name, path, errorLine(o.Err.Error()))
				}
				ds = append(ds, o.Diagnostics...)
			}
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Pos < ds[j].Pos })
	for _, d := range ds {
		fmt.Fprintf(stderr, "%s: %s\n", res.Fset.Position(d.Pos), errorLine(d.Message))
		for _, r := range d.Related {
			fmt.Fprintf(stderr, "%s: \t%s\n", res.Fset.Position(r.Pos), errorLine(r.Message))
		}
	}
	switch {
	case len(res.Problems) > 0 || failed:
		return exitFailure, true
	case len(ds) > 0:
		return 3, true
	}
	return exitOK, true
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
