package nodesource

import (
	"cmp"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/nodeverdict"
)

// hangChain is the source's hang chain in the words a dark node's
// answer cites, or why it has none: the index holds none for the release
// (its report could not be read when the index was made), or the source
// read gives none.
func (s *NodeSource) hangChain() nodeverdict.HangChain {
	var c nodeverdict.HangChain
	c.Chain, c.Calls, c.DeadlineAt, c.Default = render.HangChain(s.Hang)
	if s.Hang != nil {
		c.Setting = s.Hang.Setting
	}
	switch {
	case c.Chain != "":
	case s.Hang != nil:
		c.Why = "the source read (" + s.Source.Dir + ") shows no collector registered on /metrics that reaches a CRI call"
	case s.Source.From == answer.FromIndex:
		c.Why = "plegvet's index holds no hang chain for " + s.Source.Dir
	default:
		c.Why = "the source read (" + s.Source.Dir + ") gives no hang chain: " + cmp.Or(s.HangWhy, "it was not read")
	}
	return c
}
