package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// GateHistory prints plegvet gates -history: a row per gate and release,
// then each gate's changes, then the releases that could not be read.
func GateHistory(w io.Writer, rep *answer.GateHistoryReport) error {
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
					stage, def, locked, at = cmp.Or(string(s.PreRelease), "?"), fmt.Sprint(s.Default), fmt.Sprint(s.LockToDefault), srcpos.Line(&s.Pos)
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
func releasesWords(rs []answer.ReleaseRead) string {
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
