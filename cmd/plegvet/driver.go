package main

// The standalone go/analysis driver: plegvet [flags] PACKAGES.
//
// Every mode runs on the same loading (lean.go): the packages that can
// matter to the suite (suite.Matters), type-checked from source, facts
// passed between them in memory. What each mode prints, and the files
// -fix writes, are byte for byte what x/tools' multichecker gives with
// -test=false (TestDriversAgree on the fixtures, bench/compare.sh on a
// checkout), but for -diff's text; the differences are deliberate:
//
//   - each finding once: test variants are never loaded (no finding is
//     reported in a _test.go file, so a variant only repeats its
//     package's findings; -test is accepted and has no effect);
//   - findings make a non-zero exit status in every mode, -json included;
//   - -diff implies -fix, and -fix and -diff print on stderr, as text, the
//     findings -fix does not fix (no fix, or one that conflicts);
//   - control characters in messages and file names are escaped;
//   - fixes are plegvet's own (internal/analysisrun.ApplyFixes, whose
//     comment has the algorithm), not x/tools' internal code: -diff
//     prints github.com/rogpeppe/go-internal/diff's unified diff, headed
//     "diff a/FILE b/FILE", FILE relative to the working directory, where
//     multichecker prints x/tools' ("--- FILE (old)", "+++ FILE (new)",
//     absolute names), whose hunks may also be cut differently: the same
//     changes in another text (TestDriversAgree applies both diffs and
//     compares the results). A fix that conflicts with one taken before
//     it is said on a line of its own ("FILE:LINE:COL: fix of ANALYZER
//     skipped: its edits conflict with another fix"); fixes are taken in
//     their findings' position order, not in multichecker's action order,
//     so of two conflicting fixes another may win. Imports a fix leaves
//     unused are kept (multichecker removes them; plegvet's fixes never
//     remove a use), fixes to generated files are applied (multichecker
//     skips them), a fixed file that does not gofmt is kept unformatted
//     and said (multichecker says nothing), and a finding's alternative
//     fixes are ignored without a word (multichecker logs each).
//
// The modes:
//
//	plain        findings as text on stderr (FILE:LINE:COL: message, related
//	             positions indented under it)
//	-c=N         the same with the offending lines and N lines around them
//	-json        the go/analysis JSON tree on stdout: {"pkgpath": {"analyzer":
//	             [{"posn", "end", "message", "category", "suggested_fixes",
//	             "related"}] or {"error": "..."}}}
//	-sarif FILE  also writes every finding to FILE as SARIF 2.1.0, whatever
//	             the other flags print
//	-fix         applies the first fix of every finding (a fix whose edits
//	             overlap those of a fix taken before it is skipped, and
//	             said), gofmts the files it changed; prints what is left
//	-diff        prints the unified diff -fix would apply (a/FILE, b/FILE),
//	             writes nothing; prints what it would leave
//	-findings-exit-code=N  the exit status of a run with findings
//
// plus multichecker's own flags: -NAME / -NAME=false to pick analyzers,
// -NAME.FLAG analyzer settings, -debug=fpstv, -cpuprofile, -memprofile,
// -trace, and the deprecated -source, -v, -all, -tags (no effect).
//
// Exit codes, the same in every mode:
//
//	0  no findings; with -fix, every finding was fixed
//	1  packages failed to load (a go list error, a file that does not
//	   parse), an analyzer failed, -fix could not apply (a conflict) or
//	   write a fix, or the SARIF file could not be written; what could be
//	   analysed was still printed
//	2  the command line was wrong
//	3  findings (with -fix: findings left unfixed; with -diff: any
//	   finding, as nothing was written); -findings-exit-code=N changes 3
//	   to N, and N=0 restores go/analysis' -json convention
//
// An error outranks findings: a run that could not look at everything
// exits 1 whatever -findings-exit-code says. Type errors are not load
// errors on the lean loading, which stubs most imports and so cannot tell
// a real one from a stub's; the full driver, which types everything,
// prints them and exits 1 (so do go build and go vet).
//
// The full driver (fulldriver.go: every package of the import graph
// parsed and type-checked through go/packages, as multichecker does, with
// this file's output) remains for what the lean loading cannot answer the
// same way: a package the module does not hold (a pattern naming a
// dependency), a package the analysis needs from source that the tree
// does not hold (a module that requires k8s.io/kubernetes instead of
// being its checkout), a directory the go command and the tree disagree
// on, or a file list as the pattern. -debug=v says which driver ran and
// why. PLEGVET_FULL_DRIVER=1 forces it, and PLEGVET_FULL_DRIVER=
// multichecker runs x/tools' multichecker itself (as plegvet did before:
// test variants included, -json exiting 0, no -sarif): debugging aids, to
// compare outputs.
//
// Help (plegvet help [ANALYZER]), -flags and -V=full (go vet's questions)
// and the vet.cfg protocol are multichecker's own.

import (
	"flag"
	"fmt"
	"go/token"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/analysisrun"
)

// exitFindings is the default exit status of a run with findings.
const exitFindings = 3

// fullDriverEnv forces the full driver (a debugging aid: it loads every
// package of the import graph with syntax, as multichecker does).
const fullDriverEnv = "PLEGVET_FULL_DRIVER"

// driverOptions are the driver's flags, as multichecker and analysisflags
// define them, plus -sarif and -findings-exit-code.
type driverOptions struct {
	analyzers    []*analysis.Analyzer // those the -NAME flags enable
	patterns     []string
	json         bool
	context      int // -c: lines of context around a finding; -1: none
	fix, diff    bool
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

func (ts *triState) Get() any { return *ts == setTrue }
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
func (ts *triState) String() string {
	if *ts == setFalse {
		return "false"
	}
	return "true"
}
func (ts *triState) IsBoolFlag() bool { return true }

// handoffFlag marks a flag that multichecker answers itself (-flags, -V).
type handoffFlag struct{ set *bool }

func (h handoffFlag) IsBoolFlag() bool   { return true }
func (h handoffFlag) String() string     { return "" }
func (h handoffFlag) Set(v string) error { *h.set = true; return nil }

// parseDriverFlags reads the driver's command line. handoff is true when
// multichecker must answer (help, -flags, -V, no package); code is 2 for
// a wrong command line (said on stderr), -1 otherwise.
func parseDriverFlags(args []string, all []*analysis.Analyzer, stderr io.Writer) (o *driverOptions, handoff bool, code int) {
	o = &driverOptions{context: -1, findingsExit: exitFindings}
	fs := flag.NewFlagSet("plegvet", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	enabled := map[*analysis.Analyzer]*triState{}
	for _, a := range all {
		ts := new(triState)
		enabled[a] = ts
		fs.Var(ts, a.Name, fmt.Sprintf("enable %q analysis", a.Name))
		a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, a.Name+"."+f.Name, f.Usage) })
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
	fs.BoolVar(&o.fix, "fix", false, "apply all suggested fixes")
	fs.BoolVar(&o.diff, "diff", false, "print the fixes as a unified diff instead of applying them (implies -fix)")
	fs.Bool("source", false, "no effect (deprecated)")
	verbose := fs.Bool("v", false, "no effect (deprecated)")
	fs.Bool("all", false, "no effect (deprecated)")
	fs.String("tags", "", "no effect (deprecated)")
	fs.Var(handoffFlag{&handoff}, "flags", "print analyzer flags in JSON")
	fs.Var(handoffFlag{&handoff}, "V", "print version and exit")
	// plegvet's own.
	fs.StringVar(&o.sarif, "sarif", "", "also write the findings to this file as SARIF 2.1.0")
	fs.IntVar(&o.findingsExit, "findings-exit-code", exitFindings, "exit status of a run with findings, in every mode (0: findings do not fail the run)")
	sarifSet := false
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
		fmt.Fprintln(stderr, "run 'plegvet help' for the flags")
		return nil, false, exitUsage
	}
	fs.Visit(func(f *flag.Flag) { sarifSet = sarifSet || f.Name == "sarif" })
	o.patterns = fs.Args()
	if handoff || len(o.patterns) == 0 || o.patterns[0] == "help" {
		return nil, true, -1
	}
	if sarifSet && o.sarif == "" {
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
	if o.diff {
		o.fix = true
	}
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

// loaded is one run's analysis, from either loading.
type loaded struct {
	graph *checker.Graph
	// roots are the graph's root actions in the order multichecker's
	// depth-first walk of the full action graph first reaches them: the
	// order of its text output.
	roots []*checker.Action
	// failed: load errors were printed.
	failed bool
	driver string // "lean" or "full", for -debug=v
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

	var run *loaded
	if os.Getenv(fullDriverEnv) != "1" {
		var why string
		if run, why, code = loadLean(o, stderr); code >= 0 {
			return code, true
		}
		if run == nil && o.dbg('v') {
			fmt.Fprintf(stderr, "plegvet: full driver: %s\n", errorLine(why))
		}
	}
	if run == nil {
		if run, code = loadFull(o, stderr); code >= 0 {
			return code, true
		}
	}
	if o.dbg('v') {
		fmt.Fprintf(stderr, "plegvet: %s driver: %d root packages analysed\n", run.driver, len(run.graph.Roots)/max(1, len(o.analyzers)))
	}
	return report(run, o, stdout, stderr), true
}

// report prints a run's results in the mode the flags ask for, writes
// SARIF and applies fixes, and returns the exit status.
func report(run *loaded, o *driverOptions, stdout, stderr io.Writer) int {
	failed := run.failed
	var findings int
	for act := range walk(run.roots) {
		if act.Err != nil {
			failed = true
		} else if act.IsRoot {
			findings += len(act.Diagnostics)
		}
	}
	if o.sarif != "" {
		if err := writeSARIF(o.sarif, run); err != nil {
			fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
			failed = true
		}
	}
	switch {
	case o.fix:
		res, err := applyFixes(run, o, stdout)
		// A fix that could not be applied is said on a line of its own
		// and fails the run (exit 1, as an error would); its finding is
		// printed with what -fix left (no fix, or a fix not applied).
		// -diff applies nothing, so every finding stands.
		for _, s := range res.Skipped {
			fmt.Fprintln(stderr, escapeControls(s.String(), false))
			failed = true
		}
		for _, u := range res.Unformatted {
			fmt.Fprintf(stderr, "plegvet: %s: the fixed file does not gofmt, kept unformatted: %s\n", escapeControls(u.File, false), errorLine(u.Err.Error()))
		}
		left := 0
		writeFindings(stderr, run.roots, o.context, func(d *analysis.Diagnostic) bool {
			if len(d.SuggestedFixes) > 0 && res.Applied[&d.SuggestedFixes[0]] {
				return false
			}
			left++
			return true
		})
		if err != nil {
			fmt.Fprintf(stderr, "plegvet: %s\n", errorLine(err.Error()))
			failed = true
		}
		if o.dbg('v') {
			verb := "applied"
			if o.diff {
				verb = "would apply"
			}
			fmt.Fprintf(stderr, "plegvet: -fix: %s %d of %d fixes, to %d files\n", verb, len(res.Applied), res.Fixes, len(res.Files))
		}
		if !o.diff {
			findings = left
		}
	case o.json:
		if err := run.graph.PrintJSON(stdout); err != nil {
			failed = true
		}
	default:
		writeFindings(stderr, run.roots, o.context, nil)
	}
	if o.dbg('t') {
		printTiming(run, o, stderr)
	}
	switch {
	case failed:
		return exitFailure
	case findings > 0:
		return o.findingsExit
	}
	return exitOK
}

// walk yields every action reachable from roots, depth first, each once,
// dependencies before their dependents: checker.Graph.All with the roots
// in the given order.
func walk(roots []*checker.Action) func(yield func(*checker.Action) bool) {
	return func(yield func(*checker.Action) bool) {
		seen := map[*checker.Action]bool{}
		var visit func(acts []*checker.Action) bool
		visit = func(acts []*checker.Action) bool {
			for _, act := range acts {
				if seen[act] {
					continue
				}
				seen[act] = true
				if !visit(act.Deps) || !yield(act) {
					return false
				}
			}
			return true
		}
		visit(roots)
	}
}

// writeFindings prints analyzer errors, then the root actions' diagnostics
// that keep accepts (nil: all), as multichecker does (checker.Graph's
// PrintText: each finding once by position, analyzer and message;
// related positions under it; with contextLines >= 0 the offending lines
// and that many around them), with control characters escaped.
func writeFindings(w io.Writer, roots []*checker.Action, contextLines int, keep func(*analysis.Diagnostic) bool) {
	type key struct {
		pos, end token.Position
		*analysis.Analyzer
		message string
	}
	seen := map[key]bool{}
	var buf strings.Builder
	for act := range walk(roots) {
		if act.Err != nil {
			fmt.Fprintf(w, "%s: %s\n", act.Analyzer.Name, escapeControls(act.Err.Error(), true))
			continue
		}
		if !act.IsRoot {
			continue
		}
		for i := range act.Diagnostics {
			d := &act.Diagnostics[i]
			fset := act.Package.Fset
			k := key{fset.Position(d.Pos), fset.Position(d.End), act.Analyzer, d.Message}
			if seen[k] {
				continue
			}
			seen[k] = true
			if keep != nil && !keep(d) {
				continue
			}
			printPlain(&buf, fset, contextLines, d)
		}
	}
	io.WriteString(w, buf.String())
}

// printPlain is x/tools' driverutil.PrintPlain, escaping.
func printPlain(w io.Writer, fset *token.FileSet, contextLines int, d *analysis.Diagnostic) {
	print := func(pos, end token.Pos, message string) {
		posn := fset.Position(pos)
		fmt.Fprintf(w, "%s: %s\n", escapeControls(posn.String(), false), message)
		if contextLines >= 0 {
			end := fset.Position(end)
			if !end.IsValid() {
				end = posn
			}
			data, _ := os.ReadFile(posn.Filename)
			lines := strings.Split(string(data), "\n")
			for i := posn.Line - contextLines; i <= end.Line+contextLines; i++ {
				if 1 <= i && i <= len(lines) {
					fmt.Fprintf(w, "%d\t%s\n", i, escapeControls(lines[i-1], true))
				}
			}
		}
	}
	print(d.Pos, d.End, errorLine(d.Message))
	for _, r := range d.Related {
		print(r.Pos, r.End, "\t"+errorLine(r.Message))
	}
}

// applyFixes applies (with -diff: prints the diff of) the first fix of
// every root finding: analysisrun.ApplyFixes, whose order does not depend
// on the driver, so the lean and the full driver fix alike.
func applyFixes(run *loaded, o *driverOptions, stdout io.Writer) (*analysisrun.FixResult, error) {
	var actions []analysisrun.FixAction
	for _, act := range run.graph.Roots {
		if act.Err != nil {
			continue // the analyzer failed: nothing to fix
		}
		actions = append(actions, analysisrun.FixAction{
			Analyzer:    act.Analyzer.Name,
			FileSet:     act.Package.Fset,
			Diagnostics: act.Diagnostics,
		})
	}
	opts := analysisrun.FixOptions{}
	if o.diff {
		opts.Diff = stdout
		opts.DiffDir, _ = os.Getwd()
	}
	return analysisrun.ApplyFixes(actions, opts)
}

// checkerOptions are -debug's f, p and s.
func checkerOptions(o *driverOptions, stderr io.Writer) *checker.Options {
	opts := &checker.Options{SanityCheck: o.dbg('s'), Sequential: o.dbg('p')}
	if o.dbg('f') {
		opts.FactLog = stderr
	}
	return opts
}

// printTiming is -debug=t: the actions that took 90% of the time.
func printTiming(run *loaded, o *driverOptions, stderr io.Writer) {
	if !o.dbg('p') {
		fmt.Fprintln(stderr, "plegvet: Warning: times are mostly GC/scheduler noise; use -debug=tp to disable parallelism")
	}
	var list []*checker.Action
	var total time.Duration
	for act := range walk(run.roots) {
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
func startProfiles(o *driverOptions, stderr io.Writer) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return stop, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err != nil {
			stop()
			return func() {}, err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			stop()
			return func() {}, err
		}
		stops = append(stops, func() {
			trace.Stop()
			f.Close()
			fmt.Fprintf(stderr, "plegvet: To view the trace, run:\n$ go tool trace view %s\n", o.trace)
		})
	}
	if o.memprofile != "" {
		f, err := os.Create(o.memprofile)
		if err != nil {
			stop()
			return func() {}, err
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
