package plegvet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// UnknownGateError is a gate name that no release read declares, with
// the declared names it is likely a misspelling of.
type UnknownGateError struct {
	Name string // as asked
	// Where is the tree read ("k8s.io/kubernetes@v1.36.1: the tree"), or
	// Releases the releases a history read.
	Where    string
	Releases []string
	// DidYouMean are the declared names closest to Name: one differing
	// only in case, else those a few edits away (closest first).
	DidYouMean []string
}

func (e *UnknownGateError) Error() string {
	msg := fmt.Sprintf("%s declares no feature gate %q", e.Where, e.Name)
	if n := len(e.Releases); n > 1 {
		msg = fmt.Sprintf("none of the %d releases read (%s to %s) declares a feature gate %q", n, e.Releases[0], e.Releases[n-1], e.Name)
	} else if n == 1 {
		msg = fmt.Sprintf("%s declares no feature gate %q", e.Releases[0], e.Name)
	}
	switch len(e.DidYouMean) {
	case 0:
		return msg
	case 1:
		return fmt.Sprintf("%s; did you mean %s?", msg, e.DidYouMean[0])
	default:
		return fmt.Sprintf("%s; did you mean one of %s?", msg, strings.Join(e.DidYouMean, ", "))
	}
}

// maxSuggestions bounds the names a "did you mean" offers.
const maxSuggestions = 3

// closestNames returns the names a mistyped name most likely meant: the
// names equal to it but for case (a user types eventedpleg for
// EventedPLEG), else those within a few edits of it, case aside, closest
// first. A name is allowed about one edit in four of its letters, so
// that short names do not suggest unrelated ones.
func closestNames(name string, declared []string) []string {
	var folded []string
	for _, d := range declared {
		if strings.EqualFold(d, name) {
			folded = append(folded, d)
		}
	}
	if len(folded) > 0 {
		slices.Sort(folded)
		return slices.Compact(folded)
	}
	limit := max(1, len(name)/4)
	type near struct {
		name string
		dist int
	}
	var found []near
	lower := strings.ToLower(name)
	for _, d := range declared {
		if dist := levenshtein.ComputeDistance(lower, strings.ToLower(d)); dist <= limit {
			found = append(found, near{d, dist})
		}
	}
	slices.SortFunc(found, func(a, b near) int { return cmp.Or(a.dist-b.dist, strings.Compare(a.name, b.name)) })
	// A name declared twice is at one distance: its repeats are adjacent.
	found = slices.CompactFunc(found, func(a, b near) bool { return a.name == b.name })
	var out []string
	for _, f := range found[:min(len(found), maxSuggestions)] {
		out = append(out, f.name)
	}
	return out
}

// declaredNames are the names a gate can be asked for by: its name and
// its constant's identifier.
func declaredNames(gates []Gate) []string {
	names := make([]string, 0, 2*len(gates))
	for _, g := range gates {
		names = append(names, g.Name)
		if g.Const != "" && g.Const != g.Name {
			names = append(names, g.Const)
		}
	}
	return names
}
