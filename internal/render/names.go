package render

import (
	"cmp"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
)

// maxSuggestions bounds the names a "did you mean" offers.
const maxSuggestions = 3

// Closest returns the names a mistyped name most likely meant: the
// names equal to it but for case (a user types eventedpleg for
// EventedPLEG), else those within a few edits of it, case aside, closest
// first. A name is allowed about one edit in four of its letters, so
// that short names do not suggest unrelated ones.
func Closest(name string, declared []string) []string {
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
