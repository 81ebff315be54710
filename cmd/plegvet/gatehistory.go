package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/srcpos"
)

// runGatesHistory answers plegvet gates -k8s with a range or a comma list
// of releases: one row per gate and release, then a line per gate with the
// releases where it changed; -json prints the plegvet.GateHistoryReport. A
// release that cannot be read is a row with its error (under the table,
// and on stderr), and the exit code is 1.
func runGatesHistory(ctx context.Context, src sourceFlags, names []string, stdout, stderr io.Writer) int {
	rep, err := plegvet.GateHistory(ctx, plegvet.HistoryOptions{Kubernetes: src.k8s, Workers: runtime.NumCPU(), Progress: releaseProgress(stderr), CacheDir: plegvet.DefaultCacheDir(), Fetch: fetchOptions(stderr)}, names...)
	if err != nil {
		return fail(stderr, "gates", err)
	}
	// Each row's position is in its own release.
	for _, g := range rep.Gates {
		for i := range g.Releases {
			r := &g.Releases[i]
			if err := src.relocate(r, plegvet.Source{Dir: "k8s.io/kubernetes@" + r.KubernetesVersion, KubernetesVersion: r.KubernetesVersion}); err != nil {
				return fail(stderr, "gates", err)
			}
		}
	}
	if src.json {
		// "->" in the phrases of changes reads as written, not \u003e.
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(rep)
	} else {
		err = writeText(stdout, func(w io.Writer) error { return writeGateHistory(w, rep) })
	}
	if err != nil {
		return fail(stderr, "gates", err)
	}
	return historyProblems(stderr, rep, len(names) > 0)
}

// historyProblems says, under the history, what was not read: a release
// that failed, files that did not load, and the staging modules the
// proxy did not serve, but those only where they could matter: for the
// whole list, or where a gate asked for by name is found in no module
// read (a range of a dozen releases would otherwise repeat each missing
// sample module, whatever was asked). The exit code follows the same
// rule, so a range and a list of the same releases exit alike.
func historyProblems(stderr io.Writer, rep *plegvet.GateHistoryReport, named bool) int {
	code := exitOK
	for i, r := range rep.Releases {
		if r.Error != "" {
			fmt.Fprintf(stderr, "plegvet gates: %s: %s\n", r.KubernetesVersion, errorLine(r.Error))
			code = exitFailure
			continue
		}
		if problems(stderr, "gates: "+r.KubernetesVersion, r.Source) != exitOK {
			code = exitFailure
		}
		if len(r.Unfetched) == 0 {
			continue
		}
		var absent []string // gates asked for that no module read declares
		for _, g := range rep.Gates {
			if named && !g.Releases[i].Exists {
				absent = append(absent, g.Name)
			}
		}
		if named && len(absent) == 0 {
			continue // every gate asked for was found: the modules not fetched change nothing
		}
		for _, u := range r.Unfetched {
			fmt.Fprintf(stderr, "plegvet gates: %s: %s\n", r.KubernetesVersion, errorLine(u))
		}
		code = exitFailure
		for _, name := range absent {
			fmt.Fprintf(stderr, "plegvet gates: %s: %s is in no module read, but %s not fetched (above)\n", r.KubernetesVersion, name, plural(len(r.Unfetched), "staging module"))
		}
	}
	return code
}

func writeGateHistory(w io.Writer, rep *plegvet.GateHistoryReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRELEASE\tSTAGE\tDEFAULT\tLOCKED\tNEWEST\tSPEC")
	for _, g := range rep.Gates {
		for _, r := range g.Releases {
			switch {
			case r.Error != "":
				// The error goes under the table, where it can be read whole.
				fmt.Fprintf(tw, "%s\t%s\terror (below)\t\t\t\t\n", g.Name, r.KubernetesVersion)
			case !r.Exists:
				fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\n", g.Name, r.KubernetesVersion)
			default:
				stage, def, locked, at := "?", "?", "?", "-"
				if s := r.Effective; s != nil {
					stage, def, locked = cmp.Or(s.PreRelease, "?"), fmt.Sprint(s.Default), fmt.Sprint(s.LockToDefault)
				}
				if r.Pos != nil {
					at = srcpos.Line(r.Pos)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g.Name, r.KubernetesVersion, stage, def, locked, cmp.Or(r.Newest, "-"), at)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, g := range rep.Gates {
		if len(g.Changes) == 0 {
			fmt.Fprintf(w, "%s: no change in %s\n", g.Name, releasesWords(rep.Releases))
			continue
		}
		var parts []string // a release's changes together
		for i, c := range g.Changes {
			if i > 0 && c.KubernetesVersion == g.Changes[i-1].KubernetesVersion {
				parts[len(parts)-1] += ", " + c.What
				continue
			}
			parts = append(parts, c.KubernetesVersion+" "+c.What)
		}
		fmt.Fprintf(w, "%s: %s\n", g.Name, strings.Join(parts, "; "))
	}
	var failed strings.Builder // under the table, where it can be read whole
	for _, r := range rep.Releases {
		if r.Error != "" {
			fmt.Fprintf(&failed, "%s: %s\n", r.KubernetesVersion, r.Error)
		}
	}
	if failed.Len() > 0 {
		fmt.Fprintf(w, "\n%s", failed.String())
	}
	return nil
}

// releasesWords names the releases of a history that were read, for a
// summary line.
func releasesWords(rs []plegvet.ReleaseRead) string {
	var read []string
	for _, r := range rs {
		if r.Error == "" {
			read = append(read, r.KubernetesVersion)
		}
	}
	switch len(read) {
	case 0:
		return "no release read"
	case 1:
		return read[0]
	}
	return fmt.Sprintf("%d releases, %s to %s", len(read), read[0], read[len(read)-1])
}
