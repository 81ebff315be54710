package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// readReport is `plegvet report -k8s release -json` as the repository's
// plegvet computes it from the release's code; nil with why when it
// gives none.
func readReport(ctx context.Context, plegvet, release string) (*answer.Report, string) {
	out, err := exec.CommandContext(ctx, plegvet, "report", "-k8s", release, "-json").Output()
	var rep answer.Report
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		return nil, fmt.Sprintf("`plegvet report -k8s %s -json` gave no report (%v %v)", release, err, jerr)
	}
	return &rep, ""
}

// readLadder is the report's health.ladder; nil with why when it has none.
func readLadder(rep *answer.Report, why, release string) (*ladder.Ladder, string) {
	if rep == nil || rep.Health == nil || rep.Health.Ladder == nil {
		if why == "" {
			why = fmt.Sprintf("`plegvet report -k8s %s -json` gave no health.ladder", release)
		}
		return nil, why
	}
	return rep.Health.Ladder, ""
}

// periodInForce is the relist period a kubelet with gates runs by, as the
// report reads it (0 when it reads none): after a hang the PLEG is healthy
// again only at the next relist, up to a period later.
func periodInForce(rep *answer.Report, gates map[string]bool) time.Duration {
	if rep == nil || rep.Relist == nil || rep.Relist.GateOff == nil {
		return 0
	}
	v := rep.Relist.GateOff.Period
	if g := rep.Relist.Gate; g != nil && gates[g.Name] && rep.Relist.GateOn != nil {
		v = rep.Relist.GateOn.Period
	}
	if v == nil {
		return 0
	}
	d, _ := time.ParseDuration(v.Value)
	return d
}

// thresholdInForce is the PLEG threshold a kubelet with gates runs by,
// as the report reads it from the source: the gate-on mode's when the
// report's gate is set on, the gate-off mode's otherwise.
func thresholdInForce(rep *answer.Report, gates map[string]bool) (time.Duration, error) {
	if rep == nil || rep.Relist == nil || rep.Relist.GateOff == nil {
		return 0, fmt.Errorf("the report has no relist.gateOff")
	}
	v, mode := rep.Relist.GateOff.Threshold, "relist.gateOff"
	if g := rep.Relist.Gate; g != nil && gates[g.Name] {
		if rep.Relist.GateOn == nil {
			return 0, fmt.Errorf("%s is set on, and the report has no relist.gateOn", g.Name)
		}
		v, mode = rep.Relist.GateOn.Threshold, "relist.gateOn"
	}
	if v == nil || v.Value == "" {
		return 0, fmt.Errorf("the report has no %s.threshold", mode)
	}
	d, err := time.ParseDuration(v.Value)
	if err != nil {
		return 0, fmt.Errorf("%s.threshold %q: %v", mode, v.Value, err)
	}
	return d, nil
}

// writePredictions writes the ladder's prediction beside each rung's
// measurement.
func writePredictions(b *strings.Builder, l *ladder.Ladder, why string, runs []measured) {
	b.WriteString("## The ladder's prediction beside the measurement\n\n")
	if l == nil {
		b.WriteString(why + ".\n\n")
		return
	}
	in := l.Inputs
	fmt.Fprintf(b, "The ladder of `plegvet report -k8s RELEASE -json` (health.ladder), no pod changing: a /metrics scrape makes %d CRI calls one after another, a relist %d before it stores its time, the status loop %d every %s (the runtime is down once its sync time is %s old), the node status update %d every %s; the PLEG's threshold %s. Rungs:",
		in.ScrapeCalls, in.RelistListCalls, in.StatusCalls, in.StatusPeriod, in.RuntimeDown, in.NodeStatusCalls, in.NodeStatusFrequency, in.RelistThreshold)
	for _, r := range l.Rungs {
		fmt.Fprintf(b, " %s from %s;", r.Name, r.Latency)
	}
	b.WriteString(" measured against it as follows (the tolerance: a round is 10 s, so a moment read by the rounds is known to within 10 s; a relist interval from the counter within one relist over the samples' span). With pods started at once, the ladder is taken with as many pods changing in one relist as the kubelet's log shows the busiest relist inspecting (its `PLEG: Write status` lines after its `GetPods`).\n\n")
	b.WriteString("| latency | pods changing (busiest relist, log) | rung (ladder) | next rung | scrape time: predicted / patient request measured | relist cycle: predicted / counter / log | health age worst: predicted / kubelet's log, oldest (lines) | status age worst: predicted / log's longest gap | Ready |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range runs {
		lat := m.run.Fault.Latency
		pods, changing := 0, "-"
		if m.run.Fault.Pods > 0 {
			changing = "none inspected"
			if most, ok := harness.MostInspected(m.run.Inspections()); ok {
				pods = most.Pods
				changing = fmt.Sprintf("%d of %d, stored over %.1fs from %s", most.Pods, m.run.Fault.Pods, most.Last.Sub(most.Listed).Seconds(), at(most.Listed, m.run.Frozen))
			}
		}
		lp := ladder.Compute(in, pods)
		on, next := lp.Place(lat)
		name := func(r *ladder.Rung) string {
			if r == nil {
				return "none"
			}
			return fmt.Sprintf("%s (from %s)", r.Name, r.Latency)
		}
		scrape := "no answer"
		if ps := m.run.PatientScrapes(); len(ps) > 0 {
			scrape = fmt.Sprintf("%.1fs", ps[0].Seconds())
		}
		counter := "-"
		if r, ok := m.run.RelistRate(); ok {
			counter = fmt.Sprintf("%.1fs", r.Interval().Seconds())
		}
		relisted, status := m.run.LogGaps(harness.LogRelisted), m.run.LogGaps(harness.LogRuntimeStatus)
		ready := "True throughout"
		if f := m.tl.ReadyFalse; f != nil {
			ready = fmt.Sprintf("False at %s: %s", at(f.Ready.At, m.run.Frozen), harness.Cut(f.Ready.Message, 100))
		}
		age := "never past the threshold"
		if oldest, lines := m.run.LongestPLEGAge(); lines > 0 {
			age = fmt.Sprintf("%.1fs (%d)", oldest.Seconds(), lines)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s / %s | %s / %s / %.1fs | %s / %s | %s / %.1fs | %s |\n", lat, harness.Cell(changing), name(on), name(next),
			lp.ScrapeTime(lat), scrape, lp.RelistCycle(lat, pods), counter, relisted.Mean.Seconds(), lp.HealthAge(lat, pods), age, lp.StatusAge(lat), status.Longest.Seconds(), harness.Cell(ready))
	}
	b.WriteString("\n")
}
