package main

// The standalone go/analysis driver's command line: plegvet [flags]
// PACKAGES (internal/frontend/driver runs it).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/frontend/driver"
	"github.com/plegvet/plegvet/internal/load/buildenv"
)

// exitFindings is the default exit status of a run with findings.
const exitFindings = driver.ExitFindings

// triState is analysisflags' enable flag (-NAME, -NAME=false).
type triState int

const (
	unset triState = iota
	setTrue
	setFalse
)

func (ts *triState) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*ts = setFalse
	if b {
		*ts = setTrue
	}
	return nil
}
func (ts *triState) String() string   { return strconv.FormatBool(*ts != setFalse) }
func (ts *triState) IsBoolFlag() bool { return true }

// parseDriverFlags reads the driver's command line. handoff is true when
// multichecker must answer (help, -flags, -V, no package); code is 2 for
// a wrong command line (said on stderr), -1 otherwise.
func parseDriverFlags(args []string, all []*analysis.Analyzer, stderr io.Writer) (o *driver.Options, handoff bool, code int) {
	o = &driver.Options{Context: -1, FindingsExit: exitFindings, Version: version(), Text: driverText()}
	fs := flag.NewFlagSet("plegvet", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	enabled := map[*analysis.Analyzer]*triState{}
	analyzerFlag := map[string]bool{}
	for _, a := range all {
		ts := new(triState)
		enabled[a] = ts
		fs.Var(ts, a.Name, fmt.Sprintf("enable %q analysis", a.Name))
		analyzerFlag[a.Name] = true
		a.Flags.VisitAll(func(f *flag.Flag) {
			fs.Var(f.Value, a.Name+"."+f.Name, f.Usage)
			analyzerFlag[a.Name+"."+f.Name] = true
		})
	}
	// multichecker's flags (x/tools go/analysis/internal/checker and
	// analysisflags), the deprecated vet ones included.
	fs.StringVar(&o.Debug, "debug", "", `debug flags, any subset of "fpstv"`)
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write CPU profile to this file")
	fs.StringVar(&o.MemProfile, "memprofile", "", "write memory profile to this file")
	fs.StringVar(&o.Trace, "trace", "", "write trace log to this file")
	fs.Bool("test", false, "no effect: test variants are never analysed, as no finding is reported in a _test.go file")
	fs.BoolVar(&o.JSON, "json", false, "emit JSON output")
	fs.IntVar(&o.Context, "c", -1, "display offending line with this many lines of context")
	fs.BoolVar(&o.Fix, "fix", false, "apply all suggested fixes (runs go fix -fixtool=plegvet)")
	fs.BoolVar(&o.Diff, "diff", false, "print the fixes as a unified diff instead of applying them (implies -fix; go fix -fixtool=plegvet -diff)")
	fs.Bool("source", false, "no effect (deprecated)")
	verbose := fs.Bool("v", false, "no effect (deprecated)")
	fs.Bool("all", false, "no effect (deprecated)")
	tags := fs.String("tags", "", "comma-separated build tags, as the go command's -tags (GOFLAGS=-tags=... alike)")
	handOff := func(string) error { handoff = true; return nil } // multichecker answers
	fs.BoolFunc("flags", "print analyzer flags in JSON", handOff)
	fs.BoolFunc("V", "print version and exit", handOff)
	// plegvet's own.
	fs.StringVar(&o.SARIF, "sarif", "", "also write the findings to this file as SARIF 2.1.0")
	fs.IntVar(&o.FindingsExit, "findings-exit-code", exitFindings, "exit status of a run with findings, in every mode (0: findings do not fail the run)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		fmt.Fprintln(stderr, "run 'plegvet help' for the flags")
		return nil, false, exitUsage
	}
	fs.Visit(func(f *flag.Flag) {
		if analyzerFlag[f.Name] {
			o.ToolFlags = append(o.ToolFlags, "-"+f.Name+"="+f.Value.String())
		}
	})
	o.Patterns = fs.Args()
	if handoff || len(o.Patterns) == 0 || o.Patterns[0] == "help" {
		return nil, true, -1
	}
	if o.SARIF == "" && flagSet(fs, "sarif") {
		fmt.Fprintln(stderr, "plegvet: -sarif needs a file name")
		return nil, false, exitUsage
	}
	if o.FindingsExit < 0 || o.FindingsExit > 125 {
		fmt.Fprintf(stderr, "plegvet: -findings-exit-code=%d: want an exit status from 0 to 125\n", o.FindingsExit)
		return nil, false, exitUsage
	}
	if flagSet(fs, "tags") {
		buildenv.SetTags(*tags)
	}
	if *verbose && !strings.Contains(o.Debug, "v") {
		o.Debug += "v"
	}
	o.Fix = o.Fix || o.Diff
	// If any -NAME flag is true, run only those analyzers; otherwise,
	// if any -NAME flag is false, run all but those (analysisflags.Parse).
	hasTrue := false
	for _, ts := range enabled {
		hasTrue = hasTrue || *ts == setTrue
	}
	for _, a := range all {
		if (hasTrue && *enabled[a] == setTrue) || (!hasTrue && *enabled[a] != setFalse) {
			o.Analyzers = append(o.Analyzers, a)
		}
	}
	return o, false, -1
}

// childGrace is how long, after a signal, the driver is given to reap the
// go command it runs: go/packages interrupts go list and kills it 5 s
// later, and so does goFix with go fix.
const childGrace = 6 * time.Second

// runDriver is the standalone driver. ok is false when multichecker must
// answer instead (help, -flags, -V, no package pattern).
func runDriver(args []string, all []*analysis.Analyzer, stdout, stderr io.Writer) (code int, ok bool) {
	o, handoff, code := parseDriverFlags(args, all, stderr)
	if handoff {
		return 0, false
	}
	if code >= 0 {
		return code, true
	}
	// SIGINT and SIGTERM end the context: the driver interrupts the go
	// command it runs and waits for it, so that no child outlives plegvet
	// (go/packages runs go list in a process group of its own, which a
	// terminal's ^C does not reach).
	ctx, stop := onSignal(context.Background())
	defer stop()
	done := make(chan int, 1)
	go func() { done <- driver.Run(ctx, o, untilSignal{ctx, stdout}, untilSignal{ctx, stderr}) }()
	select {
	case code = <-done:
	case <-ctx.Done():
		// The go command ends on the interrupt, or is killed 5 s later;
		// the analysis, which runs no process, is not waited for.
		select {
		case code = <-done:
		case <-time.After(childGrace):
		}
	}
	if in, ok := signalled(ctx); ok {
		fmt.Fprintln(stderr, "plegvet: interrupted")
		return in.exitCode(), true
	}
	return code, true
}

// driverText is the driver's escaping: the subcommands'.
func driverText() driver.Text {
	return driver.Text{ErrorLine: errorLine, Escape: func(s string) string { return escapeControls(s, true) }}
}

// writeFindings prints a subcommand's findings as the linter prints them:
// FILE:LINE:COL: message [GROUP/CHECK].
func writeFindings(w io.Writer, ds ...answer.Diagnostic) {
	for _, d := range ds {
		name := d.Category
		if g, _, ok := suite.Rule(d.Category); ok {
			name = g.Name + "/" + d.Category
		}
		fmt.Fprintf(w, "%s: %s [%s]\n", d.Pos, errorLine(d.Message), name)
	}
}
