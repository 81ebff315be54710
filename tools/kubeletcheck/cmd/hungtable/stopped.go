package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// relative says when at came against ref, to within the 3 s between two
// reads: "60.0s before", "in the same read as", "3.0s after".
func relative(at, ref time.Time) string {
	switch d := ref.Sub(at).Seconds(); {
	case at.IsZero() || ref.IsZero():
		return "not measured against when"
	case d >= 1:
		return fmt.Sprintf("%.1fs before", d)
	case d <= -1:
		return fmt.Sprintf("%.1fs after", -d)
	default:
		return "in the same round of reads as when"
	}
}

// summarize says, in sentences, the spans a node engineer asks for of a
// dead runtime: from the last relist to the kubelet's words, from the stop
// to Ready False, and each alert against Ready naming the PLEG.
func summarize(b *strings.Builder, tl *harness.Timeline) {
	span := func(from, to time.Time) string {
		if from.IsZero() || to.IsZero() {
			return "not measured"
		}
		return fmt.Sprintf("%.1fs", to.Sub(from).Seconds())
	}
	var readyFalse, readyPLEG, readyTrue time.Time
	if tl.ReadyFalse != nil {
		readyFalse = tl.ReadyFalse.Ready.At
	}
	if tl.ReadyPLEG != nil {
		readyPLEG = tl.ReadyPLEG.Ready.At
	}
	if tl.ReadyTrue != nil {
		readyTrue = tl.ReadyTrue.Ready.At
	}
	var logged time.Time
	if tl.PLEGLogged != nil {
		logged = tl.PLEGLogged.Time
	}
	b.WriteString("## The spans\n\n")
	fmt.Fprintf(b, "- From the last successful relist to the kubelet's first `%s`: %s (the threshold is %s).\n", harness.PLEGUnhealthy, span(tl.LastRelist, logged), harness.PLEGThreshold)
	fmt.Fprintf(b, "- From containerd's stop to Ready=False: %s; to Ready's message naming the PLEG: %s.\n", span(tl.Stopped, readyFalse), span(tl.Stopped, readyPLEG))
	fmt.Fprintf(b, "- From containerd's start to Ready=True: %s.\n", span(tl.Started, readyTrue))
	for _, a := range tl.Alerts {
		if a.Pending == nil && a.Firing == nil {
			continue // the alerts that never fired are in the table
		}
		var firing, resolved time.Time
		if a.Firing != nil {
			firing = a.Firing.AlertsAt
		}
		if a.Resolved != nil {
			resolved = a.Resolved.AlertsAt
		}
		fmt.Fprintf(b, "- %s: fired %s after the stop, %s Ready named the PLEG; resolved %s after containerd's start.\n", a.Name, span(tl.Stopped, firing), relative(firing, readyPLEG), span(tl.Started, resolved))
	}
	b.WriteString("\n")
}
