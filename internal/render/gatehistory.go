package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
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

// ReadInPart is the one line that says which releases of a history were
// read in part (staging modules the go command did not fetch) and why,
// and, where gates were asked for by name, whether that leaves their
// answer standing; "" when every release read was read whole.
func ReadInPart(rep *answer.GateHistoryReport, named bool) string {
	var unserved, other []string // "v1.25.16 (k8s.io/a, k8s.io/b)"; "v1.25.16: staging module k8s.io/c not fetched: why"
	for _, r := range rep.Releases {
		if r.Error != "" || len(r.Unfetched) == 0 {
			continue
		}
		var mods []string
		for _, u := range r.Unfetched {
			mod, why := answer.UnfetchedModule(u)
			if notServed(why) {
				mods = append(mods, mod)
			} else {
				other = append(other, fmt.Sprintf("%s: staging module %s not fetched: %s", r.KubernetesVersion, mod, why))
			}
		}
		if len(mods) > 0 {
			unserved = append(unserved, fmt.Sprintf("%s (%s)", r.KubernetesVersion, strings.Join(mods, ", ")))
		}
	}
	if len(unserved) > 0 {
		other = append([]string{"the module proxy does not serve staging modules of " + strings.Join(unserved, ", ")}, other...)
	}
	if len(other) == 0 {
		return ""
	}
	line := "read in part: " + strings.Join(other, "; ")
	if !named {
		return line + "; the whole list lacks the gates those modules declare"
	}
	var answered, own []string
	for _, g := range rep.Gates {
		if !unsure(g) {
			answered = append(answered, g.Name)
			own = append(own, g.Modules...)
		}
	}
	slices.Sort(own)
	own = slices.Compact(own)
	switch {
	case len(answered) == 0:
		return line
	case len(answered) < len(rep.Gates):
		line += "; answered all the same: " + strings.Join(answered, ", ")
	case len(answered) == 1:
		line += "; " + answered[0] + " is answered all the same"
	default:
		line += "; the gates asked for are answered all the same"
	}
	switch len(own) {
	case 0:
		return line + ", being found in each of those releases"
	case 1:
		return line + ", its own module " + own[0] + " having been read"
	}
	return line + ", their own modules " + strings.Join(own, ", ") + " having been read"
}

// UnknownAbsences are the lines that name a gate asked for that a
// release declares in no module read while one of the gate's own modules
// (or, when those are not known, any staging module) was not fetched:
// its absence there is not known.
func UnknownAbsences(rep *answer.GateHistoryReport) []string {
	var lines []string
	for _, g := range rep.Gates {
		for _, r := range g.Releases {
			if len(r.Unfetched) == 0 {
				continue
			}
			var missing []string
			for _, u := range r.Unfetched {
				mod, _ := answer.UnfetchedModule(u)
				if slices.Contains(g.Modules, mod) {
					missing = append(missing, mod)
				}
			}
			if len(missing) > 0 {
				lines = append(lines, fmt.Sprintf("%s: %s is in no module read, but its own %s not fetched", r.KubernetesVersion, g.Name, modulesWere(missing)))
			} else {
				lines = append(lines, fmt.Sprintf("%s: %s is in no module read, but %s not fetched", r.KubernetesVersion, g.Name, Plural(len(r.Unfetched), "staging module")))
			}
		}
	}
	return lines
}

// modulesWere names modules, with the verb: "module M was", "modules M
// and N were".
func modulesWere(mods []string) string {
	if len(mods) == 1 {
		return "module " + mods[0] + " was"
	}
	return "modules " + strings.Join(mods, ", ") + " were"
}

// unsure reports whether some release leaves the gate's absence unknown.
func unsure(g answer.GateTimeline) bool {
	for _, r := range g.Releases {
		if len(r.Unfetched) > 0 {
			return true
		}
	}
	return false
}

// notServed reports whether the go command's reason is the module proxy
// answering that it does not serve the version (403, 404 or 410).
func notServed(why string) bool {
	if !strings.Contains(why, "server response") {
		return false
	}
	for _, code := range []string{"403 ", "404 ", "410 "} {
		if strings.Contains(why, code) {
			return true
		}
	}
	return false
}
