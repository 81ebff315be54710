package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// Gates prints plegvet gates: a row per gate, a count, then findings.
func Gates(w io.Writer, rep *answer.GatesReport, findings Findings) error {
	releaseHeader(w, rep.Source)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTAGE\tDEFAULT\tLOCKED\tSINCE\tDECLARED")
	unresolved, modules := 0, map[string]bool{}
	for _, g := range rep.Gates {
		if g.Unresolved != "" {
			unresolved++
		}
		modules[g.Module] = true
		stage, def, locked := "?", "?", "?"
		if s, ok := g.Newest(); ok {
			stage, def, locked = string(s.PreRelease), fmt.Sprint(s.Default), fmt.Sprint(s.LockToDefault)
		}
		since := "-"
		if len(g.Specs) > 0 && g.Specs[0].Version != "" {
			since = g.Specs[0].Version
		}
		at := g.Entry
		if g.Decl != nil {
			at = *g.Decl
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", g.Name, stage, def, locked, since, srcpos.Line(&at))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s of %s in %s (loaded from %s, %s stubbed", Plural(len(rep.Gates), "gate"), Plural(len(modules), "module"), rep.Source.Dir, rep.Source.Load.Mode, Plural(rep.Source.Load.Stubbed, "import"))
	if unresolved > 0 {
		fmt.Fprintf(w, "; %d partly unresolved, see -json", unresolved)
	}
	fmt.Fprintln(w, ")")
	for _, g := range rep.Gates {
		for _, s := range g.SetInCode {
			fmt.Fprintf(w, "%s is set in code, over its default: %s\n", g.Name, s)
		}
	}
	findings(w, rep.Diagnostics...)
	return nil
}
