package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// writeLatency writes the slow-runtime document: the rungs side by side,
// then each rung's moments, rounds, relist samples, endpoints, the
// proxy's account, Prometheus's view and kubectl pleg's rows.
func writeLatency(b *strings.Builder, runs []measured, st setting, l *ladder.Ladder, why string) {
	release, rules := st.release, st.rules
	var lats []string
	for _, m := range runs {
		lats = append(lats, m.run.Fault.Latency.String()+":"+m.run.Fault.Least.String())
	}
	if n := runs[0].run.Fault.Pods; n > 0 {
		fmt.Fprintf(b, "# The overload: every CRI call delayed and %d pods started at once, as a real kubelet lives it\n\n", n)
	} else {
		fmt.Fprintf(b, "# A slow runtime: every CRI call delayed, as a real kubelet lives it\n\n")
	}
	podsFlag, tested := "", "`TestRuntimeSlow` runs the same rungs and asserts the kubelet's behaviour."
	if n := runs[0].run.Fault.Pods; n > 0 {
		podsFlag = fmt.Sprintf(" -pods %d", n)
		tested = "Its trimmed captures are offline testdata of `plegvet node` (nodeverdict); CI does not run it (it takes a quarter of an hour)."
	}
	fmt.Fprintf(b, "Written by `go run ./cmd/hungtable -k8s %s -fault latency -latency %s%s` in tools/kubeletcheck on %s; not edited by hand. %s\n\n",
		release, strings.Join(lats, ","), podsFlag, runs[0].run.Frozen.UTC().Format("2006-01-02"), tested)
	provenance(b, runs)
	h := runs[0].h
	more := ""
	if n := runs[0].run.Fault.Pods; n > 0 {
		more = fmt.Sprintf(" (and %d more, each a pause container on the host network, written into its manifest directory at once as the fault begins)", n)
	}
	fmt.Fprintf(b, "The kubelet %s is built from its release's source and registered to a kube-apiserver of the same release, with %s and one static pod%s running on containerd %s built from its module (runtimeRequestTimeout: the default 2m). ", release, gatesWords(h.Gates), more, harness.ContainerdVersion)
	fmt.Fprintf(b, "The kubelet talks to containerd through a gRPC pass-through in the harness (raw frames, its own socket). Once the node is Ready, the proxy delays every unary CRI call by the rung's latency before forwarding it (`%s`, the event stream, passes undelayed); a caller that gives up first gets its own context's error. When the rung's time is up the latency is switched off and calls still waiting go on at once. ", harness.EventStream)
	fmt.Fprintf(b, "Every %s the harness requests /metrics, /metrics/cadvisor, /metrics/resource, /configz and /healthz, each with a client timeout of %s, reads the Node object through the API server, and Prometheus's alerts, targets and series; one /metrics request after the other waits up to 5m (the patient scrape, whose answers give `%s` while the rounds' time out); kubectl pleg runs as a node engineer in a loop of its own (`--request-timeout %s`). ",
		h.Every, h.Every, harness.MetricRelists, h.PlegTimeout)
	fmt.Fprintf(b, "Debian's Prometheus scrapes the kubelet in kube-prometheus's layout (job `kubelet`, `metrics_path` `/metrics` and `/metrics/cadvisor`) and kube-state-metrics %s (built from its module, reading the API server with a token; job `kube-state-metrics`, `honor_labels`), every %s with a scrape timeout of %s, as kube-prometheus does. The kubelet logs at -v=4 each `GetPods` with `all=true` (the relist's; the image garbage collector's every 5m too) and each successful runtime `Status`: their lines time the relist and the status loop while /metrics is dark. Times are seconds after the fault began; a moment read by a round is known to within %s, one from the kubelet's log to the microsecond.\n\n",
		harness.KubeStateMetricsVersion, h.Every, h.Every, h.Every)
	if rules != "" {
		rulesTable(b, release, rules)
	}
	b.WriteString("## The rungs side by side\n\n| latency | fault lasted | run took | first /metrics failure | relists during the fault (counter) | GetPods(all) lines (log) | runtime Status refreshes (log) | Ready False | first \"container runtime is down\" | first \"PLEG is not healthy\" | first DeadlineExceeded | alerts (pending / firing) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range runs {
		run, tl := m.run, m.tl
		first := "none"
		if tl.FirstFailed != nil {
			a := tl.FirstFailed.MetricsAnswer
			first = fmt.Sprintf("%s (after %.1fs)", at(a.Start, run.Frozen), a.Took.Seconds())
		}
		relists := "no two samples"
		if r, ok := run.RelistRate(); ok {
			relists = fmt.Sprintf("+%.0f in %.0fs: %.1f/min, one every %.1fs", r.Rise, r.To.At.Sub(r.From.At).Seconds(), r.PerMinute(), r.Interval().Seconds())
		}
		ready := "never"
		if f := tl.ReadyFalse; f != nil {
			ready = fmt.Sprintf("%s: %s", at(f.Ready.At, run.Frozen), harness.Cut(f.Ready.Message, 120))
		}
		logged := func(text string) string {
			if l := tl.Logged[text]; l != nil {
				return at(l.Time, run.Frozen)
			}
			return "never"
		}
		var alerts []string
		for _, a := range tl.Alerts {
			if a.Pending == nil && a.Firing == nil {
				continue
			}
			p, f := "-", "-"
			if a.Pending != nil {
				p = at(a.Pending.AlertsAt, run.Frozen)
			}
			if a.Firing != nil {
				f = at(a.Firing.AlertsAt, run.Frozen)
			}
			alerts = append(alerts, fmt.Sprintf("%s %s / %s", a.Name, p, f))
		}
		if len(alerts) == 0 {
			alerts = []string{"none"}
		}
		gaps := func(text string) string {
			g := run.LogGaps(text)
			return fmt.Sprintf("%d, one every %.1fs, at most %.1fs apart", g.Count, g.Mean.Seconds(), g.Longest.Seconds())
		}
		fmt.Fprintf(b, "| %s | %.0fs | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", run.Fault.Latency, run.Thawed.Sub(run.Frozen).Seconds(), tookWords(run),
			first, relists, gaps(harness.LogRelisted), gaps(harness.LogRuntimeStatus), harness.Cell(ready), logged("container runtime is down"), logged(harness.PLEGUnhealthy), logged("DeadlineExceeded"), harness.Cell(strings.Join(alerts, "; ")))
	}
	b.WriteString("\n")
	writePredictions(b, l, why, runs)
	for _, m := range runs {
		writeRung(b, m)
	}
}

// writeRung writes one rung's tables.
func writeRung(b *strings.Builder, m measured) {
	run, tl := m.run, m.tl
	title := run.Fault.Latency.String() + " per call"
	if run.Fault.Pods > 0 {
		title += fmt.Sprintf(", %d pods started at once", run.Fault.Pods)
	}
	fmt.Fprintf(b, "\n## %s\n\nThe run took %s, from the control plane's start to the last round; the fault lasted %.0fs; %d rounds.\n\n",
		title, tookWords(run), run.Thawed.Sub(run.Frozen).Seconds(), len(run.Rounds))
	b.WriteString(picture(m))
	b.WriteString("### Moment by moment\n\n| after the fault | moment | evidence |\n|---|---|---|\n")
	for _, r := range tl.Rows(run.Fault.Describe()) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", at(r.At, run.Frozen), harness.Cell(r.What), harness.Cell(harness.Cut(r.Evidence, 300)))
	}
	b.WriteString("\n### Round by round\n\n| round | at | /metrics | relists | /configz | /metrics/cadvisor | Ready (Node object) | Ready (kube-state-metrics) | alerts |\n|---|---|---|---|---|---|---|---|---|\n")
	for i := range run.Rounds {
		r := &run.Rounds[i]
		a := r.MetricsAnswer
		metrics := fmt.Sprintf("%.1fs", a.Took.Seconds())
		if !a.OK() {
			metrics = fmt.Sprintf("failed after %.1fs", a.Took.Seconds())
			if a.TimedOut {
				metrics = fmt.Sprintf("timed out after %.1fs", a.Took.Seconds())
			}
		}
		relists := "-"
		if c := r.Relists(); c > 0 {
			relists = fmt.Sprintf("%.0f", c)
		}
		var alerts []string
		for _, al := range r.Alerts {
			alerts = append(alerts, al.Name+" "+al.State)
		}
		sort.Strings(alerts)
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | %s | %s %s | %s | %s |\n", r.Index, at(r.Start, run.Frozen), metrics, relists, took(r.Answer("/configz")), took(r.Answer("/metrics/cadvisor")),
			r.Ready.Status, harness.Cell(harness.Cut(r.Ready.Message, 100)), r.KSMReady(), harness.Cell(strings.Join(alerts, ", ")))
	}
	b.WriteString("\n### The relist's counter\n\nEvery answer of /metrics (a round's, or the patient request's) gave `" + harness.MetricRelists + "` at the moment it came.\n\n| at | count | from |\n|---|---|---|\n")
	for _, s := range run.RelistSamples() {
		fmt.Fprintf(b, "| %s | %.0f | %s |\n", at(s.At, run.Frozen), s.Count, s.From)
	}
	if r, ok := run.RelistRate(); ok {
		fmt.Fprintf(b, "\nDuring the fault (after its first 20 s): %s.\n", r)
	}
	endpointsTable(b, run, "###")
	b.WriteString("\n### The patient /metrics request\n\n| sent | took | status | relists | error |\n|---|---|---|---|---|\n")
	for _, p := range run.Patient {
		fmt.Fprintf(b, "| %s | %.1fs | %d | %.0f | %s |\n", at(p.Start, run.Frozen), p.Took.Seconds(), p.Status, p.Relists, harness.Cell(harness.Cut(p.Err, 200)))
	}
	b.WriteString("\n### kubectl pleg\n\nEach change of its row.\n\n| sent | took | row |\n|---|---|---|\n")
	prev := ""
	for _, p := range run.Pleg {
		if s := p.Says(); s != prev {
			fmt.Fprintf(b, "| %s | %.1fs | %s |\n", at(p.Start, run.Frozen), p.Took.Seconds(), harness.Cell(s))
			prev = s
		}
	}
	if len(run.Stall) > 0 {
		b.WriteString("\n### The proxy's account\n\n```\n" + strings.Join(run.Stall, "\n") + "\n```\n")
	}
}

// took is how an endpoint's request of a round went, in a cell.
func took(a *harness.Answer) string {
	switch {
	case a == nil:
		return "-"
	case a.OK():
		return fmt.Sprintf("%.2fs", a.Took.Seconds())
	case a.TimedOut:
		return fmt.Sprintf("timed out after %.1fs", a.Took.Seconds())
	}
	return "failed: " + harness.Cell(harness.Cut(a.Err, 80))
}
