package main

// The standalone go/analysis driver: plegvet [flags] PACKAGES. Its modes
// and exit codes are the README's ("Checks", "Exit codes").
//
// One driver, two loaders. The lean loader (lean.go) type-checks from
// source only the packages that can matter to the suite (suite.Matters),
// stubbing most of their imports; where it cannot answer as the go
// command would (a package the module does not hold, a module that
// requires k8s.io/kubernetes instead of being its checkout, a directory
// the go command and the tree disagree on, a file list as the pattern),
// the go/packages loader (load.go) types the whole import graph, as
// multichecker does. Either way, x/tools' checker runs the analyzers and
// its own printers print the result, in the checker's order; -debug=v
// says which loader ran and why, and PLEGVET_FULL_DRIVER=1 forces the
// go/packages one (a debugging aid: TestDriversAgree compares the two).
//
// Where it differs from multichecker, on purpose:
//
//   - each finding once: test variants are never loaded (no finding is
//     reported in a _test.go file, so a variant only repeats its
//     package's findings; -test is accepted and has no effect);
//   - findings make a non-zero exit status in every mode, -json included,
//     and an error (exit 1) outranks them;
//   - text output is made safe for a terminal (printText);
//   - fixes are the go command's: -fix and -diff run go fix
//     -fixtool=PLEGVET (goFix), which applies each finding's first fix
//     with x/tools' own merge, then the analysis prints what is left.
//
// Type errors are not load errors on the lean loading, which stubs most
// imports and so cannot tell a real one from a stub's; the go/packages
// loader, which types everything, prints them and exits 1 (so do go build
// and go vet).
//
// Help (plegvet help [ANALYZER]), -flags and -V=full (go vet's questions)
// and the vet.cfg protocol (go vet -vettool, go fix -fixtool) are
// multichecker's own.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/engine"
	"github.com/plegvet/plegvet/internal/suite"
)

// exitFindings is the default exit status of a run with findings.
const exitFindings = 3

// fullDriverEnv=1 forces the go/packages loader.
const fullDriverEnv = "PLEGVET_FULL_DRIVER"

// driverOptions are the driver's flags, as multichecker and analysisflags
// define them, plus -sarif and -findings-exit-code.
type driverOptions struct {
	analyzers    []*analysis.Analyzer // those the -NAME flags enable
	patterns     []string
	json         bool
	context      int // -c: lines of context around a finding; -1: none
	fix, diff    bool
	toolFlags    []string // the analyzer flags set, for go fix -fixtool
	sarif        string
	findingsExit int
	debug        string
	cpuprofile   string
	memprofile   string
	trace        string
}

func (o *driverOptions) dbg(b byte) bool { return strings.IndexByte(o.debug, b) >= 0 }

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
func parseDriverFlags(args []string, all []*analysis.Analyzer, stderr io.Writer) (o *driverOptions, handoff bool, code int) {
	o = &driverOptions{context: -1, findingsExit: exitFindings}
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
	fs.StringVar(&o.debug, "debug", "", `debug flags, any subset of "fpstv"`)
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write CPU profile to this file")
	fs.StringVar(&o.memprofile, "memprofile", "", "write memory profile to this file")
	fs.StringVar(&o.trace, "trace", "", "write trace log to this file")
	fs.Bool("test", false, "no effect: test variants are never analysed, as no finding is reported in a _test.go file")
	fs.BoolVar(&o.json, "json", false, "emit JSON output")
	fs.IntVar(&o.context, "c", -1, "display offending line with this many lines of context")
	fs.BoolVar(&o.fix, "fix", false, "apply all suggested fixes (runs go fix -fixtool=plegvet)")
	fs.BoolVar(&o.diff, "diff", false, "print the fixes as a unified diff instead of applying them (implies -fix; go fix -fixtool=plegvet -diff)")
	fs.Bool("source", false, "no effect (deprecated)")
	verbose := fs.Bool("v", false, "no effect (deprecated)")
	fs.Bool("all", false, "no effect (deprecated)")
	fs.String("tags", "", "no effect (deprecated)")
	handOff := func(string) error { handoff = true; return nil } // multichecker answers
	fs.BoolFunc("flags", "print analyzer flags in JSON", handOff)
	fs.BoolFunc("V", "print version and exit", handOff)
	// plegvet's own.
	fs.StringVar(&o.sarif, "sarif", "", "also write the findings to this file as SARIF 2.1.0")
	fs.IntVar(&o.findingsExit, "findings-exit-code", exitFindings, "exit status of a run with findings, in every mode (0: findings do not fail the run)")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		fmt.Fprintln(stderr, "run 'plegvet help' for the flags")
		return nil, false, exitUsage
	}
	fs.Visit(func(f *flag.Flag) {
		if analyzerFlag[f.Name] {
			o.toolFlags = append(o.toolFlags, "-"+f.Name+"="+f.Value.String())
		}
	})
	o.patterns = fs.Args()
	if handoff || len(o.patterns) == 0 || o.patterns[0] == "help" {
		return nil, true, -1
	}
	if o.sarif == "" && flagSet(fs, "sarif") {
		fmt.Fprintln(stderr, "plegvet: -sarif needs a file name")
		return nil, false, exitUsage
	}
	if o.findingsExit < 0 || o.findingsExit > 125 {
		fmt.Fprintf(stderr, "plegvet: -findings-exit-code=%d: want an exit status from 0 to 125\n", o.findingsExit)
		return nil, false, exitUsage
	}
	if *verbose && !o.dbg('v') {
		o.debug += "v"
	}
	o.fix = o.fix || o.diff
	// If any -NAME flag is true, run only those analyzers; otherwise,
	// if any -NAME flag is false, run all but those (analysisflags.Parse).
	hasTrue := false
	for _, ts := range enabled {
		hasTrue = hasTrue || *ts == setTrue
	}
	for _, a := range all {
		if (hasTrue && *enabled[a] == setTrue) || (!hasTrue && *enabled[a] != setFalse) {
			o.analyzers = append(o.analyzers, a)
		}
	}
	return o, false, -1
}

// run is one analysis, from either loader.
type run struct {
	graph  *engine.Graph
	failed bool   // load errors were printed
	loader string // "lean" or "go/packages", for -debug=v
}

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
	stop, err := startProfiles(o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	defer stop()

	// go fix applies (or, with -diff, prints) the fixes before the
	// analysis, which then says what -fix left, or what -diff cannot fix.
	fixed := !o.fix || goFix(o, stdout, stderr)
	r, code := load(o, stderr)
	if code >= 0 {
		return code, true
	}
	if code = report(r, o, stdout, stderr); !fixed {
		code = exitFailure
	}
	return code, true
}

// report prints a run's findings with the checker's own printers, writes
// SARIF, and returns the exit status.
func report(r *run, o *driverOptions, stdout, stderr io.Writer) int {
	failed, findings := r.failed, 0
	for act := range r.graph.All() {
		failed = failed || act.Err != nil
		if act.IsRoot && act.Err == nil {
			findings += len(act.Diagnostics)
		}
	}
	if o.sarif != "" {
		if err := writeSARIF(o.sarif, r.graph, r.failed); err != nil {
			fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
			failed = true
		}
	}
	var err error
	if o.json && !o.fix {
		err = r.graph.PrintJSON(stdout)
	} else {
		if o.diff {
			dropFixable(r.graph) // the diff shows them
		}
		err = printText(stderr, r.graph, o.context)
	}
	if o.dbg('t') {
		printTiming(r.graph, o, stderr)
	}
	switch {
	case failed || err != nil:
		return exitFailure
	case findings > 0:
		return o.findingsExit
	}
	return exitOK
}

// printText is the checker's PrintText, made safe for a terminal and
// named: every message on one line of bounded length and ended with its
// check's name, [featuregate/alpha-default-on] (in place: the text is the
// last use of the diagnostics); then control characters escaped, file
// names and -c's source lines included.
func printText(w io.Writer, g *engine.Graph, contextLines int) error {
	for act := range g.All() {
		for i := range act.Diagnostics {
			d := &act.Diagnostics[i]
			d.Message = errorLine(d.Message) + " [" + checkName(act.Analyzer, d.Category) + "]"
			for j := range d.Related {
				d.Related[j].Message = errorLine(d.Related[j].Message)
			}
		}
	}
	var buf strings.Builder
	if err := g.PrintText(&buf, contextLines); err != nil {
		return err
	}
	_, err := io.WriteString(w, escapeControls(buf.String(), true))
	return err
}

// checkName is a finding's check as the suite's rules name it,
// GROUP/CHECK; the analyzer's name for a category no group lists.
func checkName(a *analysis.Analyzer, category string) string {
	if g, _, ok := suite.Rule(category); ok {
		return g.Name + "/" + category
	}
	if category == "" {
		return a.Name
	}
	return a.Name + "/" + category
}

// writeFindings prints a subcommand's findings as the linter prints them:
// FILE:LINE:COL: message [GROUP/CHECK].
func writeFindings(w io.Writer, ds ...plegvet.Diagnostic) {
	for _, d := range ds {
		name := d.Category
		if g, _, ok := suite.Rule(d.Category); ok {
			name = g.Name + "/" + d.Category
		}
		fmt.Fprintf(w, "%s: %s [%s]\n", d.Pos, errorLine(d.Message), name)
	}
}

// dropFixable leaves the root findings that have no fix: with -diff, the
// text says only what the diff does not show.
func dropFixable(g *engine.Graph) {
	for _, act := range g.Roots {
		act.Diagnostics = slices.DeleteFunc(act.Diagnostics, func(d analysis.Diagnostic) bool { return len(d.SuggestedFixes) > 0 })
	}
}

// goFix applies the fixes (with -diff: prints them as a unified diff) with
// the go command's own code: go fix -fixtool=PLEGVET, which runs plegvet
// under the vet.cfg protocol on every package, with the analyzer flags of
// the command line. ok is false when it failed (said on stderr); go fix
// -diff exits 1 for a diff that is not empty, which is no failure.
func goFix(o *driverOptions, stdout, stderr io.Writer) (ok bool) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(stderr, "plegvet: -fix and -diff need the go command on PATH: they run go fix -fixtool=plegvet")
		return false
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: -fix: %s\n", errorLine(err.Error()))
		return false
	}
	args := []string{"fix", "-fixtool=" + self}
	if o.diff {
		args = append(args, "-diff")
	}
	args = append(append(args, o.toolFlags...), o.patterns...)
	if o.dbg('v') {
		fmt.Fprintf(stderr, "plegvet: -fix: go %s\n", errorLine(strings.Join(args, " ")))
	}
	out := &countingWriter{w: stdout}
	cmd := exec.Command(gocmd, args...)
	cmd.Stdout, cmd.Stderr = out, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil, o.diff && errors.As(err, &exit) && exit.ExitCode() == 1 && out.n > 0:
		return true
	case errors.As(err, &exit):
		fmt.Fprintf(stderr, "plegvet: go fix -fixtool failed (%s)\n", exit)
	default:
		fmt.Fprintf(stderr, "plegvet: running go fix: %s\n", errorLine(err.Error()))
	}
	return false
}

// countingWriter counts what passes: go fix -diff printed a diff.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// checkerOptions are -debug's f, p and s.
func checkerOptions(o *driverOptions, stderr io.Writer) *engine.Options {
	opts := &engine.Options{SanityCheck: o.dbg('s'), Sequential: o.dbg('p')}
	if o.dbg('f') {
		opts.FactLog = stderr
	}
	return opts
}

// printTiming is -debug=t: the actions that took 90% of the time.
func printTiming(g *engine.Graph, o *driverOptions, stderr io.Writer) {
	if !o.dbg('p') {
		fmt.Fprintln(stderr, "plegvet: Warning: times are mostly GC/scheduler noise; use -debug=tp to disable parallelism")
	}
	var list []*engine.Action
	var total time.Duration
	for act := range g.All() {
		list = append(list, act)
		total += act.Duration
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Duration > list[j].Duration })
	var sum time.Duration
	for _, act := range list {
		fmt.Fprintf(stderr, "%s\t%s\n", act.Duration, act)
		sum += act.Duration
		if sum >= total*9/10 {
			break
		}
	}
	if total > sum {
		fmt.Fprintf(stderr, "%s\tall others\n", total-sum)
	}
}

// startProfiles starts -cpuprofile and -trace, and returns what stops
// them and writes -memprofile.
func startProfiles(o *driverOptions, stderr io.Writer) (_ func(), err error) {
	var stops []func()
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop() // what had started
		}
	}()
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() { f.Close() })
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		stops = append(stops, pprof.StopCPUProfile)
	}
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() { f.Close() })
		if err := trace.Start(f); err != nil {
			return nil, err
		}
		stops = append(stops, func() {
			trace.Stop()
			fmt.Fprintf(stderr, "plegvet: To view the trace, run:\n$ go tool trace view %s\n", o.trace)
		})
	}
	if o.memprofile != "" {
		f, err := os.Create(o.memprofile)
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() {
			runtime.GC() // up-to-date statistics
			if err := pprof.WriteHeapProfile(f); err != nil {
				fmt.Fprintf(stderr, "plegvet: writing memory profile: %v\n", err)
			}
			f.Close()
		})
	}
	return stop, nil
}

// printErrors is packages.PrintErrors, to w and escaped: the errors of
// every package in the graph, dependencies first.
func printErrors(w io.Writer, pkgs []*packages.Package) int {
	n := 0
	errModules := map[*packages.Module]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, err := range p.Errors {
			fmt.Fprintln(w, escapeControls(err.Error(), true))
			n++
		}
		if m := p.Module; m != nil && m.Error != nil && !errModules[m] {
			errModules[m] = true
			fmt.Fprintln(w, escapeControls(m.Error.Err, true))
			n++
		}
	})
	return n
}
