package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// readLadder is health.ladder of `plegvet report -k8s release -json`, as
// the repository's plegvet computes it from the release's code; nil with
// why when it gives none.
func readLadder(ctx context.Context, plegvet, release string) (*ladder.Ladder, string) {
	out, err := exec.CommandContext(ctx, plegvet, "report", "-k8s", release, "-json").Output()
	var rep struct {
		Health struct {
			Ladder *ladder.Ladder `json:"ladder"`
		} `json:"health"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil || rep.Health.Ladder == nil {
		return nil, fmt.Sprintf("`plegvet report -k8s %s -json` gave no health.ladder (%v %v)", release, err, jerr)
	}
	return rep.Health.Ladder, ""
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
	b.WriteString(" measured against it as follows (the tolerance: a round is 10 s, so a moment read by the rounds is known to within 10 s; a relist interval from the counter within one relist over the samples' span).\n\n")
	b.WriteString("| latency | rung (ladder) | next rung | scrape time: predicted / patient request measured | relist cycle: predicted / counter / log | health age worst: predicted | status age worst: predicted / log's longest gap | Ready |\n|---|---|---|---|---|---|---|---|\n")
	for _, m := range runs {
		lat := m.run.Fault.Latency
		on, next := l.Place(lat)
		name := func(r *ladder.Rung) string {
			if r == nil {
				return "none"
			}
			return fmt.Sprintf("%s (from %s)", r.Name, r.Latency)
		}
		scrape := "no answer"
		for _, p := range m.run.Patient {
			if p.OK() && p.Start.After(m.run.Frozen) && p.Start.Add(p.Took).Before(m.run.Thawed) {
				scrape = fmt.Sprintf("%.1fs", p.Took.Seconds())
				break
			}
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
		fmt.Fprintf(b, "| %s | %s | %s | %s / %s | %s / %s / %.1fs | %s | %s / %.1fs | %s |\n", lat, name(on), name(next),
			l.ScrapeTime(lat), scrape, l.RelistCycle(lat, 0), counter, relisted.Mean.Seconds(), l.HealthAge(lat, 0), l.StatusAge(lat), status.Longest.Seconds(), harness.Cell(ready))
	}
	b.WriteString("\n")
}
