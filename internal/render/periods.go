package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// Periods prints plegvet periods: the gate that decides, then each mode's
// relist values with their evidence, then findings.
func Periods(w io.Writer, rep *answer.PeriodsReport, findings Findings) error {
	sourceHeader(w, "periods", rep.Source, "")
	r := rep.Relist
	if u := r.GateUnresolved; r.Gate == nil && u != nil {
		fmt.Fprintf(w, "%s builds an evented PLEG (%s) under %s (%s:%d), a test plegvet could not follow to a feature gate: %s.\nWhich PLEG runs is unknown; the column is what runs when that test is %t.\n\n",
			rep.Source.Dir, srcpos.Line(u.Evented), u.Expr, u.Test.File, u.Test.Line, u.Unresolved, !u.Holds)
	} else if r.Gate == nil {
		fmt.Fprintf(w, "%s builds no evented PLEG: one generic PLEG relists, whatever the gates say.\n\n", rep.Source.Dir)
	} else {
		spec := "spec not found"
		if r.Gate.PreRelease != nil && r.Gate.Default != nil {
			spec = fmt.Sprintf("%s, default %t", *r.Gate.PreRelease, *r.Gate.Default)
		}
		fmt.Fprintf(w, "%s (%s) decides the PLEG at %s\n\n", r.Gate.Name, spec, srcpos.Line(&r.Gate.Test))
	}
	off, on := r.GateOff, r.GateOn
	if on == nil {
		on = &answer.GateOnMode{}
	}
	// The rows, laid out below: two cells (gate off, gate on) beside
	// each label.
	type periodRow struct{ name, a, b string }
	var rows []periodRow
	row := func(name, a, b string) { rows = append(rows, periodRow{name, a, b}) }
	if r.Gate == nil && r.GateUnresolved != nil {
		row("", "EVENTED NOT BUILT", "")
	} else if r.Gate == nil {
		row("", "ALWAYS", "")
	} else {
		row("", "GATE OFF", "GATE ON")
	}
	row("generic PLEG", srcpos.Line(off.Call), srcpos.Line(on.Call))
	row("relist period", Value(off.Period, Cited), Value(on.Period, Cited))
	row("health threshold", Value(off.Threshold, Cited), Value(on.Threshold, Cited))
	loop := func(m *answer.Mode) string {
		if m.Loop == nil {
			return "-"
		}
		return m.LoopCall + " at " + srcpos.Line(m.Loop)
	}
	row("relist loop", loop(off), loop(&on.Mode))
	if r.Gate != nil {
		row("evented PLEG", "-", srcpos.Line(on.Evented))
		fallback := Value(on.Fallback, Cited)
		if on.Evented != nil && on.Fallback == nil {
			fallback = "none: the evented PLEG restores no period"
		}
		row("fallback after stream fails", "-", fallback)
		row("max stream retries", "-", Count(on.MaxStreamRetries))
	}
	// Cells wrap so that a line fits a terminal: the evidence goes under
	// its value. Two cells go beside the label column (29 wide, the
	// longest label's) where their longest words fit the width; else
	// each mode is a table of its own, one under the other.
	cw := cellWidth
	stacked := false
	if width := widthOf(w); width > 0 && r.Gate == nil {
		cw = FitTo(w, cellWidth, 29)
	} else if width > 0 {
		cw = min(cellWidth, max((width-29-2)/2, 16))
		longest := 0
		for _, rw := range rows {
			for _, word := range strings.Fields(rw.a + " " + rw.b) {
				longest = max(longest, len(word))
			}
		}
		if longest > cw {
			stacked, cw = true, FitTo(w, 2*cellWidth, 29)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	lay := func(name string, cells ...string) {
		as := wrapCell(cells[0], cw)
		var bs []string
		if len(cells) > 1 {
			bs = wrapCell(cells[1], cw)
		}
		for i := range max(len(as), len(bs)) {
			if i > 0 {
				name = ""
			}
			if len(cells) == 1 {
				fmt.Fprintf(tw, "%s\t%s\n", name, cell(as, i))
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", name, cell(as, i), cell(bs, i))
		}
	}
	switch {
	case r.Gate == nil:
		for _, rw := range rows {
			lay(rw.name, rw.a)
		}
	case stacked:
		for _, rw := range rows {
			lay(rw.name, rw.a)
		}
		lay("", "")
		for _, rw := range rows {
			lay(rw.name, rw.b)
		}
	default:
		for _, rw := range rows {
			lay(rw.name, rw.a, rw.b)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case r.Ratio != nil && *r.Ratio == 1:
		fmt.Fprintln(w, "\nratio gate on / gate off: x1: turning the gate on does not change the generic relist period")
	case r.Ratio != nil:
		fmt.Fprintf(w, "\nratio gate on / gate off: x%s\n", strconv.FormatFloat(*r.Ratio, 'g', 4, 64))
	case r.Gate != nil:
		fmt.Fprintln(w, "\nratio gate on / gate off: unknown (a period is missing or unresolved)")
	}
	findings(w, rep.Diagnostics...)
	return nil
}

// cellWidth is the widest a table cell grows before it wraps: two of them
// beside a label fit 120 columns.
const cellWidth = 44

// wrapCell breaks a cell's text into lines of at most width columns.
func wrapCell(s string, width int) []string {
	if len(s) <= width {
		return []string{s}
	}
	return strings.Split(Wrap(s, width), "\n")
}

func cell(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// Plural counts things: "1 gate", "3 gates".
func Plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
