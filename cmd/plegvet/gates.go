package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/plegvet/plegvet"
)

func runGates(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gates", flag.ContinueOnError)
	var src sourceFlags
	src.register(fs, true)
	names, code, ok := parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if src.json && src.yaml {
		fmt.Fprintln(stderr, "plegvet gates: -json and -yaml exclude each other")
		return exitUsage
	}
	rep, err := plegvet.Gates(ctx, src.options(), names...)
	if err != nil {
		return fail(stderr, "gates", err)
	}
	switch {
	case src.json:
		err = writeJSON(stdout, rep)
	case src.yaml:
		err = writeText(stdout, func(w io.Writer) error { return writeFeatureListYAML(w, rep) })
	default:
		err = writeText(stdout, func(w io.Writer) error { return writeGatesTable(w, rep) })
	}
	if err != nil {
		return fail(stderr, "gates", err)
	}
	return problems(stderr, "gates", rep.Source)
}

// problems reports the files that did not load in full, after the answer;
// they make the exit code non-zero.
func problems(stderr io.Writer, cmd string, src plegvet.Source) int {
	for _, p := range src.Load.Problems {
		fmt.Fprintf(stderr, "plegvet %s: %s (the rest was analysed)\n", cmd, errorLine(p))
	}
	for _, u := range src.Load.Unfollowed {
		fmt.Fprintf(stderr, "plegvet %s: %s (not followed; the rest was analysed)\n", cmd, errorLine(u))
	}
	if len(src.Load.Problems)+len(src.Load.Unfollowed) > 0 {
		return exitFailure
	}
	return exitOK
}

func writeGatesTable(w io.Writer, rep *plegvet.GatesReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTAGE\tDEFAULT\tLOCKED\tSINCE\tDECLARED")
	for _, g := range rep.Gates {
		stage, def, locked := "?", "?", "?"
		if s, ok := g.Newest(); ok {
			stage, def, locked = s.PreRelease, fmt.Sprint(s.Default), fmt.Sprint(s.LockToDefault)
		}
		since := "-"
		if len(g.Specs) > 0 && g.Specs[0].Version != "" {
			since = g.Specs[0].Version
		}
		at := g.Entry
		if g.Decl != nil {
			at = *g.Decl
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s:%d\n", g.Name, stage, def, locked, since, at.File, at.Line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	unresolved := 0
	for _, g := range rep.Gates {
		if g.Unresolved != "" {
			unresolved++
		}
	}
	fmt.Fprintf(w, "\n%s in %s of %s (loaded from %s, %s stubbed", plural(len(rep.Gates), "gate"), plegvet.FeaturesPackage, rep.Source.Dir, rep.Source.Load.Mode, plural(rep.Source.Load.Stubbed, "import"))
	if unresolved > 0 {
		fmt.Fprintf(w, "; %d partly unresolved, see -json", unresolved)
	}
	fmt.Fprintln(w, ")")
	for _, d := range rep.Diagnostics {
		fmt.Fprintf(w, "%s:%d:%d: %s [%s]\n", d.Pos.File, d.Pos.Line, d.Pos.Column, d.Message, d.Category)
	}
	return nil
}

// writeFeatureListYAML writes the gates as Kubernetes'
// test/compatibility_lifecycle/reference/versioned_feature_list.yaml does
// (keys in its order, names sorted case-insensitively), with positions as
// comment lines, so that the file minus its comments can be compared with
// upstream's.
func writeFeatureListYAML(w io.Writer, rep *plegvet.GatesReport) error {
	gates := append([]plegvet.Gate(nil), rep.Gates...)
	sort.SliceStable(gates, func(i, j int) bool { return strings.ToLower(gates[i].Name) < strings.ToLower(gates[j].Name) })
	var b strings.Builder
	fmt.Fprintf(&b, "# Feature gates of %s in %s, written by plegvet gates -yaml.\n", plegvet.FeaturesPackage, rep.Source.Dir)
	b.WriteString("# Comment lines give positions; drop them to compare with Kubernetes' own list.\n\n")
	for _, g := range gates {
		at := g.Entry
		if g.Decl != nil {
			at = *g.Decl
		}
		fmt.Fprintf(&b, "# %s:%d:%d\n", at.File, at.Line, at.Column)
		if len(g.Specs) == 0 {
			// An empty list, not YAML's null: the gate has no spec plegvet could read.
			fmt.Fprintf(&b, "- name: %s\n  versionedSpecs: []\n", g.Name)
			continue
		}
		fmt.Fprintf(&b, "- name: %s\n  versionedSpecs:\n", g.Name)
		for _, s := range g.Specs {
			fmt.Fprintf(&b, "  # %s:%d:%d\n", s.Pos.File, s.Pos.Line, s.Pos.Column)
			fmt.Fprintf(&b, "  - default: %t\n    lockToDefault: %t\n    preRelease: %s\n    version: %q\n", s.Default, s.LockToDefault, s.PreRelease, s.Version)
			if s.MinCompatibilityVersion != "" {
				fmt.Fprintf(&b, "    minCompatibilityVersion: %q\n", s.MinCompatibilityVersion)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
