package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// relistLine says what one relist asks the runtime, and in what order.
func relistLine(r *answer.RuntimeHang) string {
	rl := r.Relist
	if rl == nil {
		return ""
	}
	s := fmt.Sprintf("the relist lists with %s (%s) (%s), then stores its time", rl.List.Func, srcpos.Line(&rl.List.Pos), strings.Join(rl.ListMethods(), ", "))
	if len(rl.Inspect) > 0 {
		var parts []string
		for _, st := range rl.Inspect {
			parts = append(parts, fmt.Sprintf("%s (%s)", st.Func, srcpos.Line(&st.Pos)))
		}
		s += fmt.Sprintf(", and asks %s for each pod that changed (%s), one call after another", strings.Join(parts, ", "), strings.Join(rl.InspectMethods(), ", "))
	}
	return s
}

// ladderRows is the "On slow runtime" row: each rung, lowest first, and
// how pods changing at once lower the PLEG's.
func ladderRows(row rowFunc, l *answer.Ladder) {
	if l == nil {
		return
	}
	lines := []string{"a runtime answering every CRI call late, by L:"}
	for _, r := range l.Rungs {
		s := fmt.Sprintf("from L = %s: %s", r.Latency, r.What)
		if r.PastDeadline {
			s += " (past the deadline: calls fail first)"
		}
		lines = append(lines, s)
	}
	if b := l.Inputs.ScrapeBounded; b != "" {
		lines = append(lines, "no metrics-dark rung: "+b+": /metrics answers, with errors, however slow the runtime")
	}
	if n, ok := l.Overload(time.Second); ok {
		lines = append(lines, fmt.Sprintf("at L = 1s, %d pods changing at once pass the PLEG's threshold (each relist inspects them one after another)", n))
	}
	if l.Unknown != "" {
		lines = append(lines, "unknown: "+l.Unknown)
	}
	row("On slow runtime", lines...)
}
