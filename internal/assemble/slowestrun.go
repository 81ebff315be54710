// The slowest run of a loop: the branches its calls run under decide
// which calls one run makes; the run making the most calls one after
// another is the one the ladder counts.

package assemble

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/runtimehang"
)

// maxBranches bounds the conditions whose every assignment is tried
// (2^maxBranches runs); past it every call is counted, and ms says so.
const maxBranches = 12

// branchCall is a CRI call and the conditions it runs under, each an
// atom (a condition as written) that must read holds.
type branchCall struct {
	rc         runtimehang.Reach
	concurrent bool
	conds      []branchCond
}

type branchCond struct {
	atom  string
	holds bool
}

// gatedCalls counts the calls of the slowest run of a loop reaching rs:
// the conditions their branches run under (Step.When: X, or !(X) for an
// else or after if X { return }) are read as atoms, each run one
// assignment of them, and the run making the most distinct calls one
// after another (those in goroutines counted once) is counted. gates
// tells the defaults of the feature gates behind the branches
// (Step.Gate): a branch that is a gate's check reads the gate's default;
// a call that needs a gate on that is off by default is not made on a
// default node (skipped names it). A nil gates reads no gate.
func gatedCalls(rs []runtimehang.Reach, gates gateLookup) (n int, ms, skipped []string) {
	fixed := map[string]bool{}
	var calls []branchCall
	var atoms []string
	for _, rc := range rs {
		if note := gates.offBy(rc); note != "" {
			if !contains(skipped, note) {
				skipped = append(skipped, note)
			}
			continue
		}
		bc := branchCall{rc: rc, concurrent: rc.Concurrent}
		never := ""
		for _, s := range rc.Steps {
			if s.When == "" {
				continue
			}
			c := condOf(s.When)
			// A branch that is a gate's check itself reads its default.
			if g := s.Gate; g != nil && g.Exact && gates != nil {
				if d := gates(g.Name); d.known {
					fixed[c.atom] = d.on == (c.holds == g.FieldTrue)
					if fixed[c.atom] != c.holds && never == "" {
						never = fmt.Sprintf("%s (only when %s, feature gate %s: %s, not counted)", rc.Method, s.When, g.Name, d.says)
					}
				}
			}
			bc.conds = append(bc.conds, c)
			if !contains(atoms, c.atom) {
				atoms = append(atoms, c.atom)
			}
		}
		if never != "" {
			if !contains(skipped, never) {
				skipped = append(skipped, never)
			}
			continue
		}
		calls = append(calls, bc)
	}
	free := slices.DeleteFunc(slices.Clone(atoms), func(a string) bool { _, ok := fixed[a]; return ok })
	var best []int // indexes into calls of the slowest run
	bestN, bestAssign := -1, map[string]bool{}
	if len(free) > maxBranches {
		for i := range calls {
			best = append(best, i)
		}
		bestN = runLength(calls, best)
	} else {
		for mask := 0; mask < 1<<len(free); mask++ {
			assign := map[string]bool{}
			for a, v := range fixed {
				assign[a] = v
			}
			for i, a := range free {
				assign[a] = mask&(1<<i) == 0 // every atom true first
			}
			run := made(calls, assign)
			if k := runLength(calls, run); k > bestN {
				best, bestN, bestAssign = run, k, assign
			}
		}
	}
	ms, concurrent := describeRun(calls, best, bestAssign, gates)
	if len(free) > maxBranches {
		ms = append(ms, fmt.Sprintf("(%d conditions, not tried each way: every call counted)", len(free)))
	}
	n = len(ms)
	if len(free) > maxBranches {
		n--
	}
	if concurrent {
		n++
		ms = append(ms, "(calls in goroutines, counted once)")
	}
	// A call not made under its gate, but made in the run, is counted there.
	skipped = slices.DeleteFunc(skipped, func(note string) bool {
		m, _, _ := strings.Cut(note, " ")
		return slices.ContainsFunc(best, func(i int) bool { return calls[i].rc.Method == m })
	})
	return n, ms, skipped
}

// condOf reads a branch as written: "!(X)" is X not holding.
func condOf(when string) branchCond {
	if x, ok := strings.CutPrefix(when, "!("); ok && strings.HasSuffix(x, ")") {
		return branchCond{atom: strings.TrimSuffix(x, ")"), holds: false}
	}
	return branchCond{atom: when, holds: true}
}

// made are the calls whose every condition holds under assign.
func made(calls []branchCall, assign map[string]bool) []int {
	var out []int
	for i, c := range calls {
		if !slices.ContainsFunc(c.conds, func(bc branchCond) bool { return assign[bc.atom] != bc.holds }) {
			out = append(out, i)
		}
	}
	return out
}

// runLength is how many calls the run waits on one after another: its
// distinct methods outside goroutines, and one for those in goroutines.
func runLength(calls []branchCall, run []int) int {
	var ms []string
	concurrent := false
	for _, i := range run {
		switch c := calls[i]; {
		case c.concurrent:
			concurrent = true
		case !contains(ms, c.rc.Method):
			ms = append(ms, c.rc.Method)
		}
	}
	if concurrent {
		return len(ms) + 1
	}
	return len(ms)
}

// describeRun names the run's methods outside goroutines, those made
// under no condition (or whatever the conditions read) first; a method
// made under conditions says those it needs, and what the run makes
// instead when the innermost reads the other way ("M (when X; else O)"),
// or that nothing else is made then ("M (only when X, counted)").
func describeRun(calls []branchCall, run []int, assign map[string]bool, gates gateLookup) (ms []string, concurrent bool) {
	var plain, conditioned []string
	for _, i := range run {
		c := calls[i]
		if c.concurrent {
			concurrent = true
			continue
		}
		m := c.rc.Method
		if contains(plain, m) || slices.ContainsFunc(conditioned, func(s string) bool { return strings.HasPrefix(s, m+" (") }) {
			continue
		}
		// The conditions m needs: one the run makes m without (read the
		// other way, the others as they are) is not named.
		conds := slices.DeleteFunc(slices.Clone(c.conds), func(bc branchCond) bool {
			flipped := maps.Clone(assign)
			flipped[bc.atom] = !bc.holds
			return methodIn(calls, made(calls, flipped), m)
		})
		var instead []string
		if len(conds) > 0 {
			inner := conds[len(conds)-1]
			flipped := maps.Clone(assign)
			flipped[inner.atom] = !inner.holds
			for _, j := range made(calls, flipped) {
				if o := calls[j].rc.Method; !calls[j].concurrent && !contains(instead, o) && !methodIn(calls, run, o) {
					instead = append(instead, o)
				}
			}
		}
		if len(conds) == 0 {
			plain = append(plain, m)
			continue
		}
		var when []string
		for _, bc := range conds {
			if bc.holds {
				when = append(when, bc.atom)
			} else {
				when = append(when, "!("+bc.atom+")")
			}
		}
		words := gates.words(c.rc)
		if len(instead) > 0 {
			conditioned = append(conditioned, fmt.Sprintf("%s (when %s%s; else %s)", m, strings.Join(when, " && "), words, strings.Join(instead, ", ")))
		} else {
			conditioned = append(conditioned, fmt.Sprintf("%s (only when %s%s, counted)", m, strings.Join(when, " && "), words))
		}
	}
	return append(plain, conditioned...), concurrent
}

// methodIn reports whether the run makes a call of m.
func methodIn(calls []branchCall, run []int, m string) bool {
	return slices.ContainsFunc(run, func(i int) bool { return calls[i].rc.Method == m })
}
