package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

func gateWords(r *answer.Report) string {
	if r.FeatureGate == nil {
		return "-"
	}
	s, ok := r.FeatureGate.InForce()
	if !ok {
		return "?"
	}
	return fmt.Sprintf("%s/%t", s.PreRelease, s.Default)
}

// Timeline prints plegvet report over releases: a row per release, the
// errors of those that could not be read under the table.
func Timeline(w io.Writer, rows []*answer.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tGATE\tDEFAULT PLEG\tEVENTED ROLE\tGATE OFF\tGATE ON\tRATIO\tFALLBACK\tRPC")
	var failed []*answer.Report
	for _, r := range rows {
		v := r.Source.KubernetesVersion
		if r.Error != "" {
			// The error goes under the table, where it can be read whole.
			fmt.Fprintf(tw, "%s\terror (below)\t\t\t\t\t\t\t\n", v)
			failed = append(failed, r)
			continue
		}
		off, on, ratio, fallback := "-", "-", "-", "-"
		if rl := r.Relist; rl != nil {
			off = Value(rl.GateOff.Period, Cell)
			if rl.GateOn != nil {
				on = Value(rl.GateOn.Period, Cell)
				fallback = "none"
				if rl.GateOn.Fallback != nil {
					fallback = Value(rl.GateOn.Fallback, Cell)
				}
			}
			if rl.Ratio != nil {
				ratio = "x" + Ratio(*rl.Ratio)
			}
		}
		rpc := "-"
		if r.RPC != nil {
			rpc = fmt.Sprintf("api.proto:%d", r.RPC.Pos.Line)
			if !r.RPC.ServerStreaming {
				rpc += " (unary)"
			}
		}
		role := "-"
		if r.EventedPLEG != nil {
			role = string(r.EventedPLEG.Role)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v, gateWords(r), r.DefaultPLEG, role, off, on, ratio, fallback, rpc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, r := range failed {
		if i == 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %s\n", r.Source.KubernetesVersion, r.Error)
	}
	return nil
}

// sourceHeader names what a subcommand analysed, and how, as its
// first line: the checkout or module@version (the release), else the
// proto read alone.
func sourceHeader(w io.Writer, cmd string, src answer.Source, proto string) {
	if src.Dir == "" {
		fmt.Fprintf(w, "plegvet %s: %s (%s)\n\n", cmd, proto, src.Load.Mode)
		return
	}
	fmt.Fprintf(w, "plegvet %s: %s (loaded from %s, %s stubbed)\n%s\n", cmd, src.Dir, src.Load.Mode, Plural(src.Load.Stubbed, "import"), filesAt(src))
}

// filesAt names, once, the tag a release's relative file names are at,
// so that each position below stays short (a terminal links each to its
// line there): a line, or "" for a checkout, whose names are relative to
// it.
func filesAt(src answer.Source) string {
	if u := src.TreeURL(); u != "" {
		return "files at " + u + "\n"
	}
	return ""
}

// releaseHeader opens an answer about a release that has no header of
// its own with filesAt, naming the release.
func releaseHeader(w io.Writer, src answer.Source) {
	if src.TreeURL() != "" {
		fmt.Fprintf(w, "Kubernetes %s: %s\n", src.Release(), filesAt(src))
	}
}

// Report prints one report: short, aligned, then the argument. Each
// part of the report has its rows written by one function below, in the
// order they are printed; a new fact gets its rows in the part it belongs to.
func Report(w io.Writer, r *answer.Report, findings Findings) error {
	sourceHeader(w, "report", r.Source, "")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	// Values wrap under their label: the label column is 14 wide.
	valueWidth := FitTo(w, 2*cellWidth, 14)
	row := func(k string, vs ...string) {
		for _, v := range vs {
			for _, line := range wrapCell(v, valueWidth) {
				fmt.Fprintf(tw, "%s\t%s\n", k, line)
				k = ""
			}
		}
	}
	gateRows(row, r.FeatureGate)
	dependencyRows(row, r.GateDependencies)
	defaultPLEGRow(row, r.DefaultPLEG)
	gateSetInCodeRow(row, r.Relist)
	relistRows(row, r.Relist)
	eventedRows(row, r.EventedPLEG)
	rpcRows(row, r.RPC)
	syncLoopRows(row, r.SyncLoop)
	healthRows(row, r.Health)
	for _, m := range r.Missing {
		row("Missing", m.Part+": "+m.Why)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nWhy relist stays:\n%s\n", Wrap(r.Summary, FitTo(w, 76, 0)))
	findings(w, r.Diagnostics...)
	return nil
}

// rowFunc writes rows of a report's table: a label ("" under the row
// before) on the first, and each value, wrapped.
type rowFunc func(label string, values ...string)

// gateRows says the feature gate: its spec in force and where it is
// declared, or why no spec could be read.
func gateRows(row rowFunc, g *answer.Gate) {
	if g == nil {
		row("Feature gate", "none")
		return
	}
	decl := "-"
	if g.Decl != nil {
		decl = srcpos.Line(g.Decl)
	}
	s, ok := g.InForce()
	if !ok {
		// No spec could be read (an empty list, or one built by a call):
		// say so rather than invent a stage.
		row("Feature gate", fmt.Sprintf("%s: spec unresolved: %s", g.Name, cmp.Or(g.Unresolved, "no spec was found")),
			fmt.Sprintf("constant %s, entry %s", decl, srcpos.Line(&g.Entry)))
		return
	}
	since := cmp.Or(g.Specs[0].Version, "unversioned")
	row("Feature gate", fmt.Sprintf("%s: %s, default %t, since %s", g.Name, s.PreRelease, s.Default, since),
		fmt.Sprintf("constant %s, spec %s", decl, srcpos.Line(&s.Pos)))
}

// dependencyRows says each gate the feature gate depends on, a row each.
func dependencyRows(row rowFunc, deps []answer.GateDependency) {
	var lines []string
	for _, d := range deps {
		spec := "spec unknown"
		if s := d.Effective; s != nil {
			spec = fmt.Sprintf("%s, default %t", s.PreRelease, s.Default)
			if s.LockToDefault {
				spec += ", locked"
			}
		}
		lines = append(lines, fmt.Sprintf("%s: %s (%s)", d.Name, spec, srcpos.Line(d.Decl)))
	}
	row("Depends on", lines...)
}

// defaultPLEGRow says what a node that does not set the gate runs.
func defaultPLEGRow(row rowFunc, which string) {
	switch which {
	case "evented":
		row("Default PLEG", "evented: a node that does not set the gate runs the evented PLEG, the generic relist beside it")
	case "unknown":
		row("Default PLEG", "unknown: the gate's spec, or the test deciding the evented PLEG, could not be read (see above)")
	default:
		row("Default PLEG", "generic: a node that does not set the gate runs the generic PLEG only")
	}
}

// gateSetInCodeRow says the writes of the gate made in code, which
// decide the default PLEG in the gate's place.
func gateSetInCodeRow(row rowFunc, rl *answer.Relist) {
	if rl == nil || len(rl.GateSetInCode) == 0 {
		return
	}
	var ws []string
	for _, w := range rl.GateSetInCode {
		ws = append(ws, w.String())
	}
	row("", "the gate's default is overridden in code: "+strings.Join(ws, "; "))
}

// relistRows says the relist period and threshold in each mode, and what
// the evented PLEG restores after its stream fails.
func relistRows(row rowFunc, rl *answer.Relist) {
	if rl == nil {
		return
	}
	row("Relist", modeLines("gate off:", rl.GateOff, "")...)
	if rl.GateOn == nil {
		return
	}
	ratio := ""
	if rl.Ratio != nil {
		ratio = " (x" + Ratio(*rl.Ratio) + ")"
	}
	row("", modeLines("gate on: ", &rl.GateOn.Mode, ratio)...)
	fb := "none: the evented PLEG restores no period after the stream fails"
	if f := rl.GateOn.Fallback; f != nil && f.Unresolved != "" {
		fb = "unknown: " + f.Unresolved
	} else if f != nil {
		fb = "after the stream fails, the evented PLEG restores " + Value(f, Cited)
	}
	if n := rl.GateOn.MaxStreamRetries; n != nil && n.Value != nil {
		fb += fmt.Sprintf("; retries %s", Count(n))
	}
	row("Fallback", fb)
}

// eventedRows says what the tree's evented PLEG does, read from its code.
func eventedRows(row rowFunc, e *answer.EventedPLEG) {
	if e == nil {
		return
	}
	row("Evented PLEG", fmt.Sprintf("%s: %s", e.Role, e.Why), "built at "+srcpos.Line(&e.Constructed))
	if e.UpdatesPodCache != nil {
		row("", "writes the pod cache at "+srcpos.Line(e.UpdatesPodCache))
	}
	if q := e.RequestsRelist; q != nil {
		gate := "ungated"
		if q.Gate != nil {
			gate = "gated by " + *q.Gate
		}
		row("", fmt.Sprintf("requests relists at %s for %s (%s)", srcpos.Line(&q.Pos), strings.Join(q.EventTypes, ", "), gate))
	}
	if h := e.HealthCheck; h != nil {
		row("", fmt.Sprintf("health check %q registered at %s", h.Name, srcpos.Line(&h.Pos)))
	} else {
		row("", "no health check of its own")
	}
	if f := e.RelistOnStreamError; f != nil {
		row("", fmt.Sprintf("on each stream error: runs %s at once (%s)", f.Relist, srcpos.Line(&f.Pos)))
	} else if why := e.RelistOnStreamErrorUnfollowed; why != "" {
		row("", "on each stream error: unknown: "+why)
	}
	row("", fmt.Sprintf("after the last stream failure: %s (%s)", e.OnStreamFailure.Action, srcpos.Line(e.OnStreamFailure.Pos)))
}

// rpcRows says the CRI event stream rpc, where it is declared and called.
func rpcRows(row rowFunc, rpc *answer.RPC) {
	if rpc == nil {
		return
	}
	row("Event stream", fmt.Sprintf("rpc %s.%s(%s) returns (%s%s)", rpc.Service, rpc.Name, rpc.Request, stream(rpc.ServerStreaming), rpc.Response),
		"declared "+srcpos.Line(&rpc.Pos))
	for _, c := range rpc.GoCalls {
		row("", fmt.Sprintf("called at %s", srcpos.Line(&c)))
	}
}

// syncLoopRows says the kubelet loop that receives PLEG events and its ticks.
func syncLoopRows(row rowFunc, sl *answer.SyncLoop) {
	if sl == nil {
		return
	}
	row("Sync loop", fmt.Sprintf("%s at %s: PLEG events at line %d", sl.Func, srcpos.Line(&sl.Pos), sl.PLEGCase.Line))
	for _, t := range sl.Ticks {
		row("", fmt.Sprintf("tick %s every %s (case at line %d)", t.Channel, Value(t.Period, Cited), t.Case.Line))
	}
}

// modeLines says a mode's relist period and threshold, a line each.
func modeLines(label string, m *answer.Mode, ratio string) []string {
	if m.Period == nil {
		return []string{label + " no generic relist"}
	}
	pad := strings.Repeat(" ", len(label))
	return []string{
		fmt.Sprintf("%s relist %s%s", label, Value(m.Period, Cited), ratio),
		fmt.Sprintf("%s threshold %s", pad, Value(m.Threshold, Cited)),
	}
}

// Wrap breaks a paragraph into lines of at most width columns.
func Wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		if n > 0 && n+1+len(word) > width {
			b.WriteString("\n")
			n = 0
		} else if n > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
