package render

import (
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// HangChain words a hang's summary for a node's answer: chain names the
// collector, the stats provider and the CRI method; calls each call of
// the chain with its line; at where the CRI client is given its
// deadline, and def the deadline's default (or constant) as Evidence
// words it. Each "" when not read.
func HangChain(h *answer.HangSummary) (chain, calls, at, def string) {
	if h == nil {
		return "", "", "", ""
	}
	if m := h.Method(); m != "" && h.Collector != "" {
		chain = h.Collector
		if h.Provider != "" {
			chain += ", through the stats provider " + h.Provider + ","
		}
		chain += " to " + m
		calls = hangSteps(h.Chain)
	}
	if h.DeadlineAt != nil {
		at = srcpos.Line(h.DeadlineAt)
	}
	if d := h.Deadline; d != nil && d.Unresolved == "" && d.Value != "" {
		def = Evidence(d.Value, d.Const, d.Decl)
	}
	return chain, calls, at, def
}
