// What a dark /metrics waits on, as the source reads it: the chain from
// a collector registered on /metrics to a CRI call, and the deadline each
// call carries. The node's answer names them itself (plegvet's index
// carries them), so that a node decided without a Go toolchain says why
// its /metrics went dark, not where to look.

package nodeverdict

import "fmt"

// HangChain is the source's hang chain in the words the evidence and
// the cause cite (rendered from the report's health.runtimeHang summary).
type HangChain struct {
	// Chain names the collector, the stats provider and the CRI method
	// ("collectors.NewVolumeStatsCollector, through the stats provider
	// criStatsProvider, to RuntimeService.ListContainerStats"); Calls
	// each call from the registration to the CRI call, with its position.
	Chain, Calls string
	// Setting is the configuration setting the CRI calls' deadline comes
	// from (runtimeRequestTimeout; "" for a constant), DeadlineAt where
	// the CRI client is given it, Default its default (or the constant)
	// with its declaration ("2m0s (FILE:LINE)").
	Setting, DeadlineAt, Default string
	// Why says why the chain is not known (plegvet's index holds none for
	// the release, the report could not read it); "" when it is, or when
	// nothing was asked of the source.
	Why string
}

// chainEvidence says, for a metrics request that timed out, what the
// source says a scrape waits on when the runtime hangs.
func (d *decider) chainEvidence(h *Health) {
	c := d.in.Hang
	if d.in.Failure == nil || d.in.Failure.Kind != FailureTimeout || c.Calls == "" {
		return
	}
	e := "what a scrape of /metrics waits on, as the source reads it: " + c.Calls
	if dl := c.deadline(); dl != "" {
		e += "; each CRI call waits at most its deadline, " + dl
	}
	h.Evidence = append(h.Evidence, e)
}

// chainCause names, in a cause, the collectors /metrics waits with: the
// chain, or why it is not known.
func (d *decider) chainCause() string {
	switch c := d.in.Hang; {
	case c.Chain != "":
		return ": " + c.Chain + " (the evidence gives each call)"
	case c.Why != "":
		return " (which ones is not known: " + c.Why + ")"
	}
	return ""
}

// deadline words the source's deadline: the setting, where the CRI
// client is given it, its default; "" when not read.
func (c HangChain) deadline() string {
	if c.Default == "" {
		return ""
	}
	w := c.Default
	if c.Setting != "" {
		w = c.Setting + ", default " + c.Default
	}
	if c.DeadlineAt != "" {
		w += ", given to the CRI client at " + c.DeadlineAt
	}
	return w
}

// deadlineWords are the CRI calls' deadline for a cause, in
// parentheses: configz's or the ladder's, with where the source gives it
// to the CRI client and its default; "" when none is known.
func (d *decider) deadlineWords() string {
	c := d.in.Hang
	t, from := d.requestTimeout()
	switch {
	case t > 0 && from == "from configz" && c.Default != "":
		w := fmt.Sprintf("runtimeRequestTimeout %s, from configz", t)
		if c.DeadlineAt != "" {
			w += ", given to the CRI client at " + c.DeadlineAt
		}
		return " (" + w + "; the source's default " + c.Default + ")"
	case c.Default != "":
		return " (" + c.deadline() + ")"
	case t > 0:
		return fmt.Sprintf(" (runtimeRequestTimeout %s, %s)", t, from)
	}
	return ""
}
