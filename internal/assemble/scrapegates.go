// The feature gates behind a scrape's branches (runtimehang's Step.Gate):
// a call whose branch needs a gate off by default is not made on a
// default node, and the calls a node makes with the gate turned on are
// kept beside the count (ladder.Inputs.ScrapeCallsGated).

package assemble

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/runtimehang"
)

// gateDefault is a feature gate's default: on, and known whether its
// spec was read; says is it in words ("off by default (FILE:LINE)").
type gateDefault struct {
	on, known bool
	says      string
}

// gateLookup answers a gate's default by name; a nil one reads no gate.
type gateLookup func(name string) gateDefault

// gateDefaults are the gates' defaults at version, from the specs the
// report reads for the feature gate's dependencies (gateDependency).
func gateDefaults(gates *answer.GatesReport, version string) gateLookup {
	return func(name string) gateDefault {
		if gates == nil {
			return gateDefault{says: "default unknown (the feature gates were not read)"}
		}
		d := gateDependency(gates, name, version)
		switch {
		case d.Decl == nil && d.Effective == nil:
			return gateDefault{says: fmt.Sprintf("default unknown (%s declares no such gate)", answer.FeaturesPackage)}
		case d.Effective == nil:
			return gateDefault{says: "default unknown (no spec of it was read at " + version + ")"}
		case d.Effective.Unresolved != "":
			return gateDefault{says: "default unknown (" + d.Effective.Unresolved + ")"}
		}
		s := d.Effective
		says := "off by default"
		if s.Default {
			says = "on by default"
		}
		if s.Pos.File != "" {
			says += " (" + at(&s.Pos) + ")"
		}
		return gateDefault{on: s.Default, known: true, says: says}
	}
}

// turnedOn is gates with name turned on.
func (gates gateLookup) turnedOn(name string) gateLookup {
	return func(n string) gateDefault {
		if n == name {
			return gateDefault{on: true, known: true, says: "turned on"}
		}
		return gates(n)
	}
}

// offBy says, for a reach whose branch needs a gate that is off by
// default, that its call is not counted; "" otherwise.
func (gates gateLookup) offBy(rc runtimehang.Reach) string {
	if gates == nil {
		return ""
	}
	for _, s := range rc.Steps {
		name := s.NeedsGate()
		if name == "" {
			continue
		}
		if d := gates(name); d.known && !d.on {
			return fmt.Sprintf("%s (only when %s, feature gate %s: %s, not counted)", rc.Method, s.When, name, d.says)
		}
	}
	return ""
}

// words name the gate behind the reach's innermost branch, to follow
// the branch in a note (", feature gate G: on by default"); "" when its
// condition reads no bool field.
func (gates gateLookup) words(rc runtimehang.Reach) string {
	if gates == nil {
		return ""
	}
	var g *runtimehang.BranchGate
	for _, s := range rc.Steps {
		if s.When != "" {
			g = s.Gate
		}
	}
	switch {
	case g == nil:
		return ""
	case g.Unresolved != "":
		return fmt.Sprintf(", %s not followed to a feature gate: %s", g.Field, g.Unresolved)
	}
	return fmt.Sprintf(", feature gate %s: %s", g.Name, gates(g.Name).says)
}

// scrapeCalls is gatedCalls for one collector's reaches, the calls not
// counted named after those counted.
func scrapeCalls(rs []runtimehang.Reach, gates gateLookup) (int, []string) {
	n, ms, skipped := gatedCalls(rs, gates)
	return n, append(ms, skipped...)
}

// addScrapeCallsGated sets in.ScrapeCallsGated: for each gate off by
// default that a branch of the counted collectors cs needs, the calls of
// the collector making the most with that gate alone turned on.
func addScrapeCallsGated(in *ladder.Inputs, cs []runtimehang.Collector, gates gateLookup) {
	if gates == nil {
		return
	}
	var names []string
	for _, c := range cs {
		for _, rc := range c.Reaches {
			for _, s := range rc.Steps {
				if name := s.NeedsGate(); name != "" && !slices.Contains(names, name) {
					if d := gates(name); d.known && !d.on {
						names = append(names, name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	var from []string
	for _, name := range names {
		most, what := 0, ""
		for _, c := range cs {
			if n, ms, _ := gatedCalls(c.Reaches, gates.turnedOn(name)); n > most && c.Collect != nil {
				most, what = n, fmt.Sprintf("%s's %s calls %v", c.Constructor, c.Collect.Func, ms)
			}
		}
		if in.ScrapeCallsGated == nil {
			in.ScrapeCallsGated = map[string]int{}
		}
		in.ScrapeCallsGated[name] = most
		from = append(from, fmt.Sprintf("with %s on, %d: %s", name, most, what))
	}
	if len(from) > 0 {
		in.From["scrapeCallsGated"] = strings.Join(from, "; ")
	}
}
