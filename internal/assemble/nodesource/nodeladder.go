// The latency ladder for one node: the source's, with what the node's
// configz and a timed-out metrics request say over it.

package nodesource

import (
	"cmp"
	"maps"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/nodeverdict"
)

// nodeLadder is the ladder's inputs for this node: the source's, with
// configz's runtimeRequestTimeout and nodeStatusUpdateFrequency over the
// source's defaults, and a timed-out metrics request's wait as the
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
