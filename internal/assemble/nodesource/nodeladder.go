// The latency ladder for one node: the source's, with what the node's
// configz and a timed-out metrics request say over it.

package nodesource

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/nodeverdict"
)

// nodeLadder is the ladder's inputs for this node: the source's, with
// configz's runtimeRequestTimeout and nodeStatusUpdateFrequency over the
// source's defaults, the scrape's calls with a gate configz turns on
// (ScrapeCallsGated), and a timed-out metrics request's wait as the
// scrape timeout (what the scrape was given); from says so. nil when the
// source read gives none, why saying so.
func (s *NodeSource) nodeLadder(c NodeCapture) (in *ladder.Inputs, from, why string) {
	if s.Ladder == nil {
		if s.Source.From == answer.FromIndex {
			return nil, "", "plegvet's index holds no latency ladder for " + s.Source.Dir
		}
		return nil, "", "the source read (" + s.Source.Dir + ") gives no latency ladder: " + cmp.Or(s.LadderWhy, "it was not read")
	}
	l := *s.Ladder
	var over []string
	if t := c.Config.RequestTimeout(); t > 0 {
		l.Deadline = t
		over = append(over, "runtimeRequestTimeout "+t.String())
	}
	if f := c.Config.StatusFrequency(); f > 0 {
		l.NodeStatusFrequency = f
		over = append(over, "nodeStatusUpdateFrequency "+f.String())
	}
	// A gate off by default that configz turns on makes the scrape's
	// calls behind it (the most, when it turns on several).
	gated := ""
	for _, name := range slices.Sorted(maps.Keys(l.ScrapeCallsGated)) {
		if on, set := c.Config.Gate(name); on && set && l.ScrapeCallsGated[name] > 0 && (gated == "" || l.ScrapeCallsGated[name] > l.ScrapeCalls) {
			l.ScrapeCalls, gated = l.ScrapeCallsGated[name], name
		}
	}
	if gated != "" {
		over = append(over, "featureGates."+gated+" = true")
	}
	from = "the ladder read from " + s.Source.Dir
	if len(over) > 0 {
		from += ", with configz's " + strings.Join(over, " and ")
	}
	// The ladder's own map stays the source's: the node's is a copy.
	l.From = maps.Clone(l.From)
	if l.From == nil {
		l.From = map[string]string{}
	}
	for key, v := range map[string]string{"deadline": "runtimeRequestTimeout", "nodeStatusFrequency": "nodeStatusUpdateFrequency"} {
		if !strings.Contains(strings.Join(over, " "), v) {
			continue
		}
		l.From[key] = v + " from configz"
	}
	if gated != "" {
		l.From["scrapeCalls"] = fmt.Sprintf("%d with configz's featureGates.%s = true (the source's scrapeCallsGated: %s)", l.ScrapeCalls, gated, cmp.Or(s.Ladder.From["scrapeCallsGated"], "read with the ladder"))
	}
	if f := c.MetricsFailure; f != nil && f.Kind == nodeverdict.FailureTimeout && f.WaitedFor() > 0 {
		l.ScrapeTimeout = f.WaitedFor()
		l.From["scrapeTimeout"] = "the failed metrics request's wait"
		from += ", and the failed request's wait (" + f.Waited + ") as the scrape timeout"
	} else {
		if l.ScrapeTimeout == 0 {
			l.ScrapeTimeout = ladder.DefaultScrapeTimeout
		}
		from += ", and a scrape timeout of " + l.ScrapeTimeout.String() + " (Prometheus' default)"
	}
	return &l, from, ""
}
