package main

import (
	"cmp"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/plegvet/plegvet/internal/render"
)

// command handles what the command line says before any analysis: a
// subcommand, help, the version, or a mistyped subcommand. It returns
// false when args are for the go/analysis driver (flags and packages).
func command(args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 {
		return 0, false
	}
	if sc, ok := lookup(args[0]); ok {
		return runSubcommand(sc, args[1:], stdout, stderr), true
	}
	switch args[0] {
	case "help", "-help", "--help", "-h":
		if len(args) == 1 {
			usage(stdout)
			return exitOK, true
		}
		if sc, ok := lookup(args[1]); ok {
			return runSubcommand(sc, []string{"-h"}, stdout, stderr), true
		}
		return 0, false // plegvet help ANALYZER: the driver describes it
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "plegvet", moduleVersion())
		return exitOK, true
	}
	if near := nearest(args[0]); near != "" {
		fmt.Fprintf(stderr, "plegvet: unknown command %q; did you mean %s? (see plegvet help)\n", args[0], near)
		return exitUsage, true
	}
	return 0, false
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
// perods), as render.Closest finds a gate's name; "" for anything else,
// such as a package pattern, which goes to the driver.
func nearest(word string) string {
	if strings.ContainsAny(word, "./-=") {
		return ""
	}
	var names []string
	for _, sc := range subcommands() {
		names = append(names, sc.name)
	}
	if near := render.Closest(word, names); len(near) > 0 {
		return near[0]
	}
	return ""
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
