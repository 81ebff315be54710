package main

import (
	"cmp"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"golang.org/x/mod/modfile"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render"
)

// command handles what the command line says before any analysis: a
// subcommand, help, the version, or a mistyped subcommand. It returns
// false when args are for the go/analysis driver (flags and packages).
func command(args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 {
		// As the go command without arguments: the usage on stderr, exit 2.
		// (go vet runs a vettool with flags and a vet.cfg, never bare.)
		_ = fitted(stderr, func(w io.Writer) error { usage(w); return nil })(stderr)
		return exitUsage, true
	}
	if sc, ok := lookup(args[0]); ok {
		return runSubcommand(sc, args[1:], stdout, stderr), true
	}
	switch args[0] {
	case "help", "-help", "--help", "-h":
		if len(args) == 1 {
			_ = fitted(stdout, func(w io.Writer) error { usage(w); return nil })(stdout)
			return exitOK, true
		}
		return help(args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "plegvet", moduleVersion())
		return exitOK, true
	case "completion":
		return completion(args[1:], stdout, stderr), true
	}
	if isFlag(args[0]) || isPackagePattern(args[0]) {
		return 0, false
	}
	if near := nearest(args[0]); near != "" {
		fmt.Fprintf(stderr, "plegvet: unknown command %q; did you mean %q? (see plegvet help)\n", args[0], near)
	} else {
		fmt.Fprintf(stderr, "plegvet: unknown command %q: not a subcommand (%s), nor a package pattern (see plegvet help)\n", args[0], strings.Join(commandNames(), ", "))
	}
	return exitUsage, true
}

// help answers plegvet help TOPIC...: a subcommand's usage and flags,
// completion's, or (handed to multichecker) analyzers' docs; an unknown
// topic is one line naming the topics, exit 2.
func help(topics []string, stdout, stderr io.Writer) (int, bool) {
	if sc, ok := lookup(topics[0]); ok && len(topics) == 1 {
		return runSubcommand(sc, []string{"-h"}, stdout, stderr), true
	}
	if topics[0] == "completion" && len(topics) == 1 {
		_ = fitted(stdout, func(w io.Writer) error { _, err := io.WriteString(w, completionUsage); return err })(stdout)
		return exitOK, true
	}
	analyzers := analyzerNames()
	for _, t := range topics {
		if !slices.Contains(analyzers, t) {
			msg := fmt.Sprintf("unknown help topic %q", t)
			if near := closest(t, helpTopics()); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			fmt.Fprintf(stderr, "plegvet help: %s; the topics are the subcommands %s and completion, and the analyzers %s\n", msg, strings.Join(commandNames(), ", "), strings.Join(analyzers, ", "))
			return exitUsage, true
		}
	}
	return 0, false // plegvet help ANALYZER...: multichecker describes them
}

// analyzerNames are the names plegvet help ANALYZER takes.
func analyzerNames() []string {
	var names []string
	for _, a := range suite.Defaults() {
		names = append(names, a.Name)
	}
	slices.Sort(names)
	return names
}

// commandNames are the subcommands' names, in plegvet help's order.
func commandNames() []string {
	var names []string
	for _, sc := range subcommands() {
		names = append(names, sc.name)
	}
	return names
}

// isPackagePattern reports whether a first argument that is not a
// subcommand is one the go command could take as a package pattern, to
// hand it to the checker: a relative or absolute path or a directory that
// exists (./..., ../x, /src/x, pkg), a pattern with ... or an import path
// with a dot or a slash (k8s.io/kubernetes/pkg/..., example/x), a
// meta-pattern (all, std, cmd, tool), a standard library package (sort,
// fmt), or the main module's own path when it has no dot (module foo).
// Anything else is a word the go command would refuse as "not in std":
// a mistyped subcommand.
func isPackagePattern(arg string) bool {
	if strings.ContainsAny(arg, "./\\") {
		return true
	}
	switch arg {
	case "all", "std", "cmd", "tool":
		return true
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return true
	}
	if root := goroot(); root != "" {
		if st, err := os.Stat(filepath.Join(root, "src", arg)); err == nil && st.IsDir() {
			return true
		}
	}
	return arg == mainModulePath()
}

// goroot is the Go root whose standard library a bare word names: $GOROOT,
// else the go command's on PATH, else the one plegvet was built with.
func goroot() string {
	if r := os.Getenv("GOROOT"); r != "" {
		return r
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return build.Default.GOROOT
}

// mainModulePath is the path in the go.mod of the current directory or
// the nearest one above it; "" outside a module.
func mainModulePath() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			return modfile.ModulePath(data)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// moduleVersion is plegvet's module version as the binary was built:
// v1.2.3 when installed with go install, (devel) from a checkout, with the
// VCS revision when the build recorded one.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := cmp.Or(bi.Main.Version, "(devel)")
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// nearest returns the subcommand a word most likely misspells (repot,
// perods, reprot): the closest by Levenshtein distance (agnivade/levenshtein,
// as render.Closest finds a gate's name), within two edits as cobra's
// suggestions (a swap of two letters is two: reprot, gaets), and fewer
// than half the letters, so that a short word does not suggest an
// unrelated one (rpc and lsp take one edit); "" for none.
func nearest(word string) string { return closest(word, firstWords()) }

// closest is the name nearest to word, as nearest says.
func closest(word string, names []string) string {
	best, bestDist := "", 0
	for _, name := range names {
		d := levenshtein.ComputeDistance(strings.ToLower(word), name)
		if d <= 2 && d*2 < max(len(word), len(name)) && (best == "" || d < bestDist) {
			best, bestDist = name, d
		}
	}
	return best
}

// The driver's files word counts and paragraphs as the subcommands do.
var (
	plural = render.Plural
	wrap   = render.Wrap
)

// lookup finds a subcommand by name.
func lookup(name string) (subcommand, bool) {
	for _, sc := range subcommands() {
		if sc.name == name {
			return sc, true
		}
	}
	return subcommand{}, false
}
