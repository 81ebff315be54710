// The table: a row a node, its columns as the user reads them, and what
// the cluster supplies escaped.

package fleet

import (
	"cmp"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/nodeverdict"
)

// row is what the table keeps of a node: a few strings, whatever the
// number of nodes.
type row struct {
	node, kubelet, runtime, gate, verdict, reason string
	health, ready                                 string
	relist, streams, source                       string
	failed                                        bool
}

// tableRow is a result as the table shows it.
func tableRow(r *Result) row {
	rw := row{node: r.Node, kubelet: r.NodeInfo.KubeletVersion, runtime: r.NodeInfo.ContainerRuntimeVersion, gate: "-", verdict: "error", health: "-", ready: readyText(r.Condition), relist: "-", streams: "-", source: "-"}
	if rw.kubelet == "" {
		rw.kubelet = "-"
	}
	if rw.runtime == "" {
		rw.runtime = "-"
	}
	if r.Error != "" {
		rw.failed, rw.reason = true, r.Error
		return rw
	}
	rep := r.NodeReport
	rw.verdict = rep.Verdict
	rw.health = healthText(rep.Health)
	rw.gate = gateText(rep.Gate)
	rw.reason = firstReason(rep.Reasons)
	if h := rep.Health; rep.Verdict != nodeverdict.Inconsistent && (h.State == nodeverdict.Unhealthy || h.State == nodeverdict.AtRisk) {
		// What stalls the PLEG tells more than an agreeing reason.
		rw.reason = "PLEG " + h.State + ": " + cmp.Or(h.Cause, "the scrape does not say what stalls it")
	}
	if m := rep.Relist.MeanIntervalSeconds; m != nil {
		rw.relist = fmt.Sprintf("%s (want %s)", (time.Duration(*m * float64(time.Second))).Round(time.Millisecond), orDash(rep.Relist.Expected))
	}
	if s, e := rep.Metrics.StreamSuccesses, rep.Metrics.StreamErrors; s != nil || e != nil {
		rw.streams = fmt.Sprintf("%s ok/%s err", count(s), count(e))
	}
	rw.source = rep.Source.Dir
	if rep.Source.From == answer.FromIndex {
		rw.source += " (index)"
	}
	return rw
}

// gateText is the gate as the node has it: configz's value, or the
// source's default.
func gateText(g answer.NodeGate) string {
	switch {
	case g.Explicit:
		return fmt.Sprint(g.Value)
	case g.Default != nil:
		return fmt.Sprintf("default %t", *g.Default)
	}
	return "default none"
}

// firstReason is the reason that tells most: the first that disagrees
// with the verdict the source predicts, or the first.
func firstReason(rs []nodeverdict.Reason) string {
	for _, r := range rs {
		if r.Agrees != nil && !*r.Agrees {
			return r.Claim
		}
	}
	if len(rs) > 0 {
		return rs[0].Claim
	}
	return ""
}

func count(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeTable(w io.Writer, rows []row, wide bool) {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	if wide {
		fmt.Fprintln(tw, "NODE\tKUBELET\tRUNTIME\tGATE\tVERDICT\tHEALTH\tREADY\tRELIST\tSTREAMS\tSOURCE\tREASON")
	} else {
		fmt.Fprintln(tw, "NODE\tKUBELET\tRUNTIME\tGATE\tVERDICT\tHEALTH\tREADY\tREASON")
	}
	for _, r := range rows {
		reason := r.reason
		if !wide && !r.failed {
			reason = cut(reason, 72)
		}
		// What the cluster supplies (the node's name and info, and the
		// messages that quote it) is printed escaped: a CR, LF or tab
		// would forge a row or a column, an escape drive the terminal.
		r.node, r.kubelet, r.runtime = inputfile.QuoteName(r.node), inputfile.QuoteName(r.kubelet), inputfile.QuoteName(r.runtime)
		r.gate, r.verdict, r.relist, r.streams, r.source = inputfile.OneLine(r.gate), inputfile.OneLine(r.verdict), inputfile.OneLine(r.relist), inputfile.OneLine(r.streams), inputfile.OneLine(r.source)
		r.health, r.ready = inputfile.OneLine(r.health), inputfile.OneLine(r.ready)
		reason = inputfile.OneLine(reason)
		if wide {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.node, r.kubelet, r.runtime, r.gate, r.verdict, r.health, r.ready, r.relist, r.streams, r.source, reason)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.node, r.kubelet, r.runtime, r.gate, r.verdict, r.health, r.ready, reason)
		}
	}
	_ = tw.Flush()
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
