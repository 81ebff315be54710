package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/plegvet/plegvet"
)

// runGatesHistory answers plegvet gates -k8s with a range or a comma list
// of releases: one row per gate and release, then a line per gate with the
// releases where it changed; -json prints the plegvet.GateHistoryReport. A
// release that cannot be read is a row with its error (under the table,
// and on stderr), and the exit code is 1.
func runGatesHistory(ctx context.Context, k8s string, names []string, jsonOut bool, stdout, stderr io.Writer) int {
	progress := releaseProgress(stderr)
	rep, err := plegvet.GateHistory(ctx, plegvet.HistoryOptions{Kubernetes: k8s, Workers: runtime.NumCPU(), Progress: progress, CacheDir: plegvet.DefaultCacheDir(), Fetch: fetchOptions()}, names...)
	if err != nil {
		return fail(stderr, "gates", err)
	}
	if jsonOut {
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
		for _, u := range r.Unfetched {
			fmt.Fprintf(stderr, "plegvet gates: %s: %s\n", r.KubernetesVersion, errorLine(u))
		}
		if len(r.Unfetched) == 0 {
			continue
		}
		if len(names) == 0 {
			code = exitFailure // every gate was asked for: the release's are not all read
		}
		// A gate asked for and found nowhere in the release may be in a
		// module not fetched.
		for _, g := range rep.Gates {
			if len(names) == 0 {
				break
			}
			if !g.Releases[i].Exists {
				fmt.Fprintf(stderr, "plegvet gates: %s: %s is in no module read, but %s not fetched (above)\n", r.KubernetesVersion, g.Name, plural(len(r.Unfetched), "staging module"))
				code = exitFailure
			}
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
					stage, def, locked = s.PreRelease, fmt.Sprint(s.Default), fmt.Sprint(s.LockToDefault)
					if stage == "" {
						stage = "?"
					}
				}
				if r.Pos != nil {
					at = fmt.Sprintf("%s:%d", r.Pos.File, r.Pos.Line)
				}
				newest := r.Newest
				if newest == "" {
					newest = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", g.Name, r.KubernetesVersion, stage, def, locked, newest, at)
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
	first := true
	for _, r := range rep.Releases {
		if r.Error == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "%s: %s\n", r.KubernetesVersion, r.Error)
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
