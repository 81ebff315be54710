// Package driver is plegvet's standalone go/analysis driver, plegvet
// [flags] PACKAGES, once cmd/plegvet has read its flags. Its modes and
// exit codes are docs/commands/checks.md's and docs/exit-codes.md's.
//
// One driver, two loaders. The lean loader (lean.go) type-checks from
// source only the packages that can matter to the suite (suite.Matters),
// stubbing most of their imports; where it cannot answer as the go
// command would (a package the module does not hold, a module that
// requires k8s.io/kubernetes instead of being its checkout, a directory
// the go command and the tree disagree on, a file list as the pattern),
// the go/packages loader (load.go) types the whole import graph, as
// multichecker does. Either way, x/tools' checker runs the analyzers
// (both loaders and the checker are internal/load/engine's) and its own
// printers print the result, in the checker's order; -debug=v
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
//   - text output is made safe for a terminal (PrintText);
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
// multichecker's own (cmd/plegvet hands them over).
package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/load/engine"
)

// Exit statuses of a run.
const (
	exitOK      = 0
	exitFailure = 1
	// ExitFindings is the default exit status of a run with findings.
	ExitFindings = 3
)

// FullDriverEnv=1 forces the go/packages loader.
const FullDriverEnv = "PLEGVET_FULL_DRIVER"

// Options are the driver's flags, as multichecker and analysisflags
// define them, plus -sarif and -findings-exit-code, and how to print.
type Options struct {
	Analyzers    []*analysis.Analyzer // those the -NAME flags enable
	Patterns     []string
	JSON         bool
	Context      int // -c: lines of context around a finding; -1: none
	Fix, Diff    bool
	ToolFlags    []string // the analyzer flags set, for go fix -fixtool
	SARIF        string
	FindingsExit int
	Debug        string
	CPUProfile   string
	MemProfile   string
	Trace        string
	// Version is plegvet's, for SARIF.
	Version string
	Text    Text
}

// Text is how the driver makes what it prints safe for a terminal: the
// command's wording, which it shares with the subcommands.
type Text struct {
	// ErrorLine makes a message one line of bounded length, its control
	// characters escaped.
	ErrorLine func(string) string
	// Escape escapes control characters but newline and tab.
	Escape func(string) string
}

func (o *Options) dbg(b byte) bool { return strings.IndexByte(o.Debug, b) >= 0 }

// fail prints an error line, "plegvet: MESSAGE".
func (o *Options) fail(w io.Writer, msg string) {
	fmt.Fprintf(w, "plegvet: %s\n", o.Text.ErrorLine(msg))
}

// run is one analysis, from either loader.
type run struct {
	graph  *engine.Graph
	failed bool   // load errors were printed
	loader string // "lean" or "go/packages", for -debug=v
}

// Run is the standalone driver: it runs the analyzers over the packages
// the patterns match, prints, and returns the exit status. Ending ctx
// interrupts the go command it runs (go list, go fix) and waits for it to
// end; the caller then says why.
func Run(ctx context.Context, o *Options, stdout, stderr io.Writer) int {
	stop, err := startProfiles(o, stderr)
	if err != nil {
		o.fail(stderr, err.Error())
		return exitFailure
	}
	defer stop()
	if special := specialGoFiles(o.Patterns); len(special) > 0 {
		for _, line := range special {
			o.fail(stderr, line)
		}
		return exitFailure
	}

	// go fix applies (or, with -diff, prints) the fixes before the
	// analysis, which then says what -fix left, or what -diff cannot fix.
	fixed := !o.Fix || goFix(ctx, o, stdout, stderr)
	if ctx.Err() != nil {
		return exitFailure
	}
	r, code := load(ctx, o, stderr)
	if code >= 0 {
		return code
	}
	if ctx.Err() != nil {
		return exitFailure // go list was interrupted: nothing to report
	}
	if code = report(r, o, stdout, stderr); !fixed {
		code = exitFailure
	}
	return code
}

// report prints a run's findings with the checker's own printers, writes
// SARIF, and returns the exit status.
func report(r *run, o *Options, stdout, stderr io.Writer) int {
	failed, findings := r.failed, 0
	for act := range r.graph.All() {
		failed = failed || act.Err != nil
		if act.IsRoot && act.Err == nil {
			findings += len(act.Diagnostics)
		}
	}
	if o.SARIF != "" {
		if err := writeSARIF(o.SARIF, o.Version, r.graph, r.failed); err != nil {
			o.fail(stderr, err.Error())
			failed = true
		}
	}
	var err error
	if o.JSON && !o.Fix {
		err = r.graph.PrintJSON(stdout)
	} else {
		if o.Diff {
			dropFixable(r.graph) // the diff shows them
		}
		err = PrintText(stderr, r.graph, o.Context, o.Text)
	}
	if o.dbg('t') {
		printTiming(r.graph, o, stderr)
	}
	switch {
	case failed || err != nil:
		return exitFailure
	case findings > 0:
		return o.FindingsExit
	}
	return exitOK
}

// PrintText is the checker's PrintText, made safe for a terminal and
// named: every message on one line of bounded length and ended with its
// check's name, [featuregate/alpha-default-on] (in place: the text is the
// last use of the diagnostics); then control characters escaped, file
// names and -c's source lines included.
func PrintText(w io.Writer, g *engine.Graph, contextLines int, text Text) error {
	for act := range g.All() {
		for i := range act.Diagnostics {
			d := &act.Diagnostics[i]
			d.Message = text.ErrorLine(d.Message) + " [" + checkName(act.Analyzer.Name, d.Category) + "]"
			for j := range d.Related {
				d.Related[j].Message = text.ErrorLine(d.Related[j].Message)
			}
		}
	}
	var buf strings.Builder
	if err := g.PrintText(&buf, contextLines); err != nil {
		return err
	}
	_, err := io.WriteString(w, text.Escape(buf.String()))
	return err
}

// checkName is a finding's check as the suite's rules name it,
// GROUP/CHECK; the analyzer's name for a category no group lists.
func checkName(analyzer, category string) string {
	if g, _, ok := suite.Rule(category); ok {
		return g.Name + "/" + category
	}
	if category == "" {
		return analyzer
	}
	return analyzer + "/" + category
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
func goFix(ctx context.Context, o *Options, stdout, stderr io.Writer) (ok bool) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(stderr, "plegvet: -fix and -diff need the go command on PATH: they run go fix -fixtool=plegvet")
		return false
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: -fix: %s\n", o.Text.ErrorLine(err.Error()))
		return false
	}
	args := []string{"fix", "-fixtool=" + self}
	if o.Diff {
		args = append(args, "-diff")
	}
	args = append(append(args, o.ToolFlags...), o.Patterns...)
	if o.dbg('v') {
		fmt.Fprintf(stderr, "plegvet: -fix: go %s\n", o.Text.ErrorLine(strings.Join(args, " ")))
	}
	out := &countingWriter{w: stdout}
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Stdout, cmd.Stderr = out, stderr
	// As go/packages does with go list: go fix and the tools it runs in a
	// process group of their own, interrupted together and killed if they
	// linger; Wait reaps go fix either way.
	done := interruptGroup(cmd, 5*time.Second)
	err = cmd.Run()
	done()
	var exit *exec.ExitError
	switch {
	case err == nil, o.Diff && errors.As(err, &exit) && exit.ExitCode() == 1 && out.n > 0:
		return true
	case errors.As(err, &exit):
		fmt.Fprintf(stderr, "plegvet: go fix -fixtool failed (%s)\n", exit)
	default:
		fmt.Fprintf(stderr, "plegvet: running go fix: %s\n", o.Text.ErrorLine(err.Error()))
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
func checkerOptions(o *Options, stderr io.Writer) *engine.Options {
	opts := &engine.Options{SanityCheck: o.dbg('s'), Sequential: o.dbg('p')}
	if o.dbg('f') {
		opts.FactLog = stderr
	}
	return opts
}

// printTiming is -debug=t: the actions that took 90% of the time.
func printTiming(g *engine.Graph, o *Options, stderr io.Writer) {
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
func startProfiles(o *Options, stderr io.Writer) (_ func(), err error) {
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
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() { f.Close() })
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		stops = append(stops, pprof.StopCPUProfile)
	}
	if o.Trace != "" {
		f, err := os.Create(o.Trace)
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() { f.Close() })
		if err := trace.Start(f); err != nil {
			return nil, err
		}
		stops = append(stops, func() {
			trace.Stop()
			fmt.Fprintf(stderr, "plegvet: To view the trace, run:\n$ go tool trace view %s\n", o.Trace)
		})
	}
	if o.MemProfile != "" {
		f, err := os.Create(o.MemProfile)
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
func printErrors(w io.Writer, pkgs []*packages.Package, text Text) int {
	n := 0
	errModules := map[*packages.Module]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, err := range p.Errors {
			fmt.Fprintln(w, text.Escape(err.Error()))
			n++
		}
		if m := p.Module; m != nil && m.Error != nil && !errModules[m] {
			errModules[m] = true
			fmt.Fprintln(w, text.Escape(m.Error.Err))
			n++
		}
	})
	return n
}
