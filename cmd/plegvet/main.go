// Command plegvet answers which PLEG a kubelet runs and why its relist
// loop stays, from Kubernetes source, and checks a tree's feature gates
// and PLEG wiring.
//
// Usage (plegvet help prints each subcommand's usage line, made from its
// flag set, and plegvet help SUBCOMMAND its flags):
//
//	plegvet gates [-json|-yaml [-annotate]|-check FILE] [-k8s v1.X.Y | -C DIR] [NAME...]
//	plegvet gates -verify|-update [-C DIR]   (hack/verify-featuregates.sh, hack/update-featuregates.sh)
//	plegvet gates [-json] -k8s v1.X.Y,v1.Y.Z | v1.X.Y..v1.Y.Z NAME...   (a gate's history)
//	plegvet periods [-json] [-k8s v1.X.Y | -C DIR]
//	plegvet rpc [-json] [-k8s v1.X.Y | -C DIR | -proto FILE]
//	plegvet report [-json] [-k8s v1.X.Y[,...] | -k8s v1.X.Y..v1.Y.Z | -C DIR]
//	plegvet runtime [-json] NAME VERSION | NAME://VERSION | -C DIR [NAME]
//	plegvet alerts [-o rules|prometheusrule|dashboard | -o bundle -dir DIR] [-json] [-k8s v1.X.Y | -C DIR]
//	plegvet node -configz FILE -metrics FILE [-crictl FILE] [-kubelet-version v1.X.Y] [-k8s v1.X.Y | -C DIR] [-index=false] [-json]
//	plegvet lsp                              (a language server on stdin and stdout, for editors)
//	plegvet help [SUBCOMMAND|ANALYZER|completion]
//	plegvet completion bash|zsh|fish          (a shell completion script)
//	plegvet [analysis flags] PACKAGES...     (go/analysis checks, as go vet)
//	go vet -vettool=$(which plegvet) PACKAGES...
//	go fix -fixtool=$(which plegvet) [-diff] PACKAGES...   (apply the fixes)
//
// Subcommands print a readable table, or JSON with -json; -positions
// (relative, the default; module; url) says how files are named. With a
// package pattern, plegvet runs its analyzers like any go/analysis
// driver; a first argument that is neither a subcommand nor a package
// pattern is an unknown command (exit 2, with "did you mean"), and
// plegvet alone prints the usage (exit 2).
//
// Exit codes of the subcommands: 0 the answer was printed, 1 an input
// could not be read or understood (or a release could not be fetched), 2
// the command line was wrong, 130 interrupted by SIGINT (143 by SIGTERM),
// after one line "plegvet CMD: interrupted"; docs/exit-codes.md
// has the rest.
//
// Environment:
//
//	PLEGVET_FETCH_TIMEOUT  how long one run of the go command fetching a
//	                       -k8s release may take (a Go duration; default
//	                       5m and 30s per further module the run
//	                       downloads; 0 for no limit; a negative one is
//	                       refused); on expiry the fetch fails
//	                       with one line naming GOPROXY
//	PLEGVET_CACHE          where report and gates keep their answers for
//	                       -k8s releases (default: plegvet under the user's
//	                       cache directory; off: keep nothing); a checkout
//	                       (-C) is never cached
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render"
)

// Exit codes of the subcommands.
const (
	exitOK      = 0 // the answer was printed
	exitFailure = 1 // an input could not be read or understood; what could be analysed was printed
	exitUsage   = 2 // the command line was wrong

	exitInterrupted = 130 // SIGINT (SIGTERM: 143), see interrupted.exitCode
)

// subcommand is one of plegvet's subcommands. Its usage line is made
// from the flag set its run function defines (synopsis), with args, the
// operands it takes after them.
type subcommand struct {
	name, args, doc string
	run             func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// subcommands is a function, not a variable, as their -h reads it (parse).
func subcommands() []subcommand {
	return []subcommand{
		{"gates", "[NAME...]", "feature gates of pkg/ and the staging modules, Kubernetes' feature list, a gate's history (-k8s v1.X.Y,v1.Y.Z or v1.X.Y..v1.Y.Z with names); -verify, -update a checkout's list as hack/verify-featuregates.sh, hack/update-featuregates.sh", runGates},
		{"periods", "", "PLEG relist periods with the gate off and on", runPeriods},
		{"rpc", "", "the CRI GetContainerEvents stream and its Go callers", runRPC},
		{"report", "", "which PLEG runs, on what evidence, and why relist stays (-k8s v1.X.Y,v1.Y.Z or v1.X.Y..v1.Y.Z: a release timeline)", runReport},
		{"node", "", "which PLEG this node runs, from its kubelet's configz and metrics", runNode},
		{"lsp", "", "a language server on stdin and stdout, for editors: findings and quick fixes as files are edited", runLSP},
		{"alerts", "", "Prometheus rules for the release's kubelets: PLEG stalled, unhealthy, evented PLEG gave up, relist slow; /metrics dark, the runtime hung, down or slow; thresholds and latencies read from the source; a Grafana dashboard of the same model", runAlerts},
		{"runtime", "NAME VERSION | NAME://VERSION | [NAME] (with -C)", "whether a container runtime's CRI server can stream container events", runRuntime},
	}
}

// synopsis is a subcommand's usage line, without "usage: ": every flag of
// its flag set, in its order, then its operands.
func synopsis(sc subcommand) string { return strings.Join(synopsisWords(sc), " ") }

// synopsisWords are a usage line's words, a flag with its value one word.
func synopsisWords(sc subcommand) []string {
	words := []string{"plegvet", sc.name}
	flagSetOf(sc).VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			words = append(words, "[-"+f.Name+"]")
			return
		}
		name, _ := flag.UnquoteUsage(f)
		words = append(words, "[-"+f.Name+" "+name+"]")
	})
	if sc.args != "" {
		words = append(words, sc.args)
	}
	return words
}

// wrapSynopsis wraps a usage line at width between its words, its
// further lines indented.
func wrapSynopsis(words []string, indent string, width int) string {
	var b strings.Builder
	col := 0
	for i, w := range words {
		if i > 0 && col+1+len(w) > width {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

func main() {
	tuneGC(os.Args[1:])
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC lets a subcommand's heap grow to nine times what is live before
// collecting (GOGC=800), under a 1 GiB soft limit: a subcommand is a
// process of a fraction of a second whose heap is its one load of a tree,
// and collecting it as it grows cost a fifth of report -C's time
// (bench item 1) for nothing it could free. Since the load checks two
// packages at once, 800 rather than 400 takes report -C from 0.346 to
// 0.304 s (medians of 12 in turn) and leaves gates -C as it was
// (bench/README.md, round 4). GOGC or GOMEMLIMIT set by the
// user win; a timeline or history (-k8s with a list or a range: a release
// per CPU loaded at once) keeps Go's defaults. The analysis driver sets
// its own for its lean load only (internal/frontend/driver's leanGC, 400):
// its go/packages loader, whose loads are ten times larger, keeps Go's
// defaults.
func tuneGC(args []string) {
	if !loadsOneTree(args) {
		return
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(800)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(1 << 30)
	}
}

// loadsOneTree reports whether the command line runs a subcommand on one
// tree: not the analysis driver, not -k8s with a list or a range, not the
// language server (a long-lived process that loads again at each edit).
func loadsOneTree(args []string) bool {
	if len(args) == 0 || args[0] == "lsp" {
		return false
	}
	if _, sub := lookup(args[0]); !sub {
		return false
	}
	for i, a := range args {
		v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "k8s=")
		if !ok && strings.TrimLeft(a, "-") == "k8s" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if ok && (strings.Contains(v, ",") || strings.Contains(v, "..")) {
			return false
		}
	}
	return true
}

// dispatch runs a subcommand, or the standalone go/analysis driver
// (internal/frontend/driver, its flags read by driver.go), or hands over to
// multichecker for go vet's -vettool protocol, help, -flags and -V.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if code, ok := command(args, stdout, stderr); ok {
		return code
	}
	analyzers := suite.New(suite.DefaultConfig())
	// go vet's -vettool and go fix's -fixtool protocol, [flags] vet.cfg,
	// is unitchecker's, through multichecker. Every package is analysed:
	// in x/tools v0.52 the vetx file a package writes carries its types
	// for the packages that import it, so no package can be answered
	// without type-checking it.
	if n := len(args); n == 0 || !strings.HasSuffix(args[n-1], ".cfg") {
		if code, ok := runDriver(args, analyzers, stdout, stderr); ok {
			return code
		}
	}
	if code, ok := guardFixes(args, stderr); ok {
		return code
	}
	multichecker.Main(analyzers...)
	return exitOK // not reached: multichecker.Main exits
}

// runSubcommand runs a subcommand with a context that SIGINT and SIGTERM
// end; after a signal its output is dropped for one line saying so.
func runSubcommand(sc subcommand, args []string, stdout, stderr io.Writer) int {
	if _, err := parseFetchOptions(); err != nil {
		return usageError(stderr, sc.name, "%v", err)
	}
	ctx, stop := onSignal(context.Background())
	defer stop()
	code := sc.run(ctx, args, untilSignal{ctx, stdout}, untilSignal{ctx, stderr})
	if in, ok := signalled(ctx); ok {
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K") // over a progress line
		}
		fmt.Fprintf(stderr, "plegvet %s: interrupted\n", sc.name)
		return in.exitCode()
	}
	return code
}

// version is the module's version as the binary was built, for SARIF.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "plegvet: which PLEG a kubelet runs, and why relist stays, from Kubernetes source")
	fmt.Fprintln(w, "\nSubcommands:")
	for _, sc := range subcommands() {
		fmt.Fprintf(w, "  %s\n      %s\n", wrapSynopsis(synopsisWords(sc), "        ", render.FitTo(w, 78, 2)), strings.ReplaceAll(wrap(sc.doc, render.FitTo(w, 72, 6)), "\n", "\n      "))
	}
	fmt.Fprintln(w, "  plegvet help SUBCOMMAND         one subcommand's usage and flags")
	fmt.Fprintln(w, "  plegvet version                 the version plegvet was built from")
	fmt.Fprintln(w, "  plegvet completion bash|zsh|fish   a shell completion script (plegvet help completion)")
	fmt.Fprintln(w, "\nChecks:")
	fmt.Fprintln(w, "  plegvet [flags] PACKAGES...   or   go vet -vettool=$(which plegvet) PACKAGES...")
	fmt.Fprintln(w, "  go fix -fixtool=$(which plegvet) [-diff] PACKAGES...   applies (-diff: prints) the fixes")
	fmt.Fprintln(w, "  plegvet help ANALYZER           an analyzer's checks and flags")
	fmt.Fprintln(w, "  -json, -c=N                     as go vet; -sarif FILE also writes SARIF 2.1.0")
	fmt.Fprintln(w, "  -fix, -diff                     run that go fix, then print the findings left")
	fmt.Fprintln(w, "  -findings-exit-code=N           the exit code for findings (default 3; 0 for none)")
	for _, g := range suite.Groups() {
		names := make([]string, len(g.Checks))
		for i, c := range g.Checks {
			names[i] = string(c.Check)
		}
		fmt.Fprintf(w, "  %-12s %s\n", g.Name, strings.ReplaceAll(wrap(strings.Join(names, ", "), render.FitTo(w, 64, 15)), "\n", "\n"+strings.Repeat(" ", 15)))
	}
	fmt.Fprintln(w, "\nAnalyzer flags:")
	for _, st := range suite.Settings() {
		fmt.Fprintf(w, "  -%s.%s (default %q)\n      %s\n", st.Analyzer, st.Flag, st.Default, st.Doc)
	}
}
