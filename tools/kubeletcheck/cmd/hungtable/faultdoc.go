package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// write writes the document of a run of one fault (stopped, hung,
// slow-call): its setting, the moments, each endpoint, Prometheus per
// metrics_path, the patient request, kubectl pleg, where the kubelet
// waits.
func write(b *strings.Builder, m measured, st setting) {
	run, tl, h, fault, release, rules := m.run, m.tl, m.h, st.fault, st.release, st.rules
	switch {
	case fault == "stopped":
		fmt.Fprintf(b, "# A dead runtime: containerd stopped, as a real kubelet lives it\n\n")
	case fault == "hung" && len(h.Gates) > 0:
		fmt.Fprintf(b, "# A hung runtime with %s: containerd frozen, as a real kubelet lives it\n\n", gatesWords(h.Gates))
	case fault == "hung":
		fmt.Fprintf(b, "# A hung runtime: containerd frozen, as a real kubelet lives it\n\n")
	default:
		fmt.Fprintf(b, "# One slow CRI call: %s held past the kubelet's timeout, as a real kubelet lives it\n\n", SlowMethod)
	}
	cmd := "go run ./cmd/hungtable -k8s " + release
	if fault != "hung" {
		cmd += " -fault " + fault
	}
	if len(h.Gates) > 0 {
		cmd += " -gate " + gatesFlag(h.Gates)
	}
	fmt.Fprintf(b, "Written by `%s` in tools/kubeletcheck on %s; not edited by hand.", cmd, run.Frozen.UTC().Format("2006-01-02"))
	switch {
	case fault == "stopped":
		b.WriteString(" `TestPLEGUnhealthy` runs the same scenario and asserts the order of its moments and plegvet's health at every scrape.")
	case len(h.Gates) == 0:
		b.WriteString(" `TestRuntimeHung` runs the same scenario and asserts what docs/runtime-hung-measured.md lists.")
	}
	b.WriteString("\n\n")
	provenance(b, []measured{m})
	fmt.Fprintf(b, "The kubelet %s is built from its release's source and registered to a kube-apiserver of the same release, with %s and one static pod running on containerd %s built from its module (runtimeRequestTimeout: the default 2m). ", release, gatesWords(h.Gates), harness.ContainerdVersion)
	ends := "SIGCONT"
	switch fault {
	case "stopped":
		ends = "containerd is started again"
		fmt.Fprintf(b, "Once the node is Ready, containerd's daemon process alone is stopped with SIGTERM: every CRI call fails at once (nothing listens on its socket); the pod's shim and container run on. ")
	case "hung":
		fmt.Fprintf(b, "Once the node is Ready, containerd's daemon process alone is frozen with SIGSTOP: its socket still accepts connections (the kernel's backlog) and answers nothing; the pod's shim and container run on. ")
	default:
		ends = "the proxy lets the calls through"
		fmt.Fprintf(b, "The kubelet talks to containerd through a gRPC pass-through in the harness (raw frames, its own socket). Once the node is Ready, the proxy holds every `%s` call until the kubelet's own deadline passes; every other call is answered. ", SlowMethod)
	}
	fmt.Fprintf(b, "The fault lasts at least %s and ends %s after the node's Ready names the PLEG and every alert has fired (at most %s): %s. ", h.Fault.Least, h.Fault.Hold, h.Fault.Most, ends)
	fmt.Fprintf(b, "Every %s the harness requests /metrics, /metrics/cadvisor, /metrics/resource, /configz and /healthz, each with a client timeout of %s, reads the Node object through the API server, and Prometheus's /api/v1/alerts, /api/v1/targets and the `up` and `scrape_duration_seconds` series; kubectl pleg runs as a node engineer in a loop of its own (`--request-timeout %s`). Debian's Prometheus scrapes the kubelet in kube-prometheus's layout: one job, `kubelet`, with two endpoints told apart by `metrics_path` (`/metrics`, `/metrics/cadvisor`), every %s with a scrape timeout of %s. Times are seconds after the fault began; a moment read by a round is known to within %s, one from the kubelet's log to the microsecond.\n\n",
		h.Every, h.Every, h.PlegTimeout, h.Every, h.Every, h.Every)
	if rules != "" {
		rulesTable(b, release, rules)
	} else {
		b.WriteString("The plegvet built from this repository has no `alerts` subcommand: Prometheus ran with no rules.\n\n")
	}
	fmt.Fprintf(b, "The run took %s, from the control plane's start to the last round; the fault lasted %.0fs; %d rounds.\n\n", tookWords(run), run.Thawed.Sub(run.Frozen).Seconds(), len(run.Rounds))
	b.WriteString(picture(m))
	fmt.Fprintf(b, "## Moment by moment\n\n| after the fault | moment | evidence |\n|---|---|---|\n")
	for _, r := range tl.Rows(h.Fault.Describe()) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", at(r.At, run.Frozen), harness.Cell(r.What), harness.Cell(harness.Cut(r.Evidence, 300)))
	}
	endpointsTable(b, run, "##")
	b.WriteString("\n## Prometheus, per metrics_path\n\nEach change of `up`, with `scrape_duration_seconds` and the target's last error, as the round read them.\n\n| after the fault | metrics_path | up | scrape_duration_seconds | lastError |\n|---|---|---|---|---|\n")
	prev := map[string]string{}
	for _, r := range run.Rounds {
		up, dur := r.Up(), r.Durations()
		var paths []string
		for p := range up {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			key := fmt.Sprintf("%v %q", up[p], r.TargetError(p))
			if prev[p] == key {
				continue
			}
			prev[p] = key
			fmt.Fprintf(b, "| %s | `%s` | %v | %.3f | %s |\n", at(r.Start, run.Frozen), p, up[p], dur[p], harness.Cell(harness.Cut(r.TargetError(p), 200)))
		}
	}
	b.WriteString("\n## A /metrics request that waits\n\nOne request after the other from the fault on, each with a client timeout of 5m: how long a scrape that waits waits.\n\n| sent | took | status | error |\n|---|---|---|---|\n")
	for _, a := range run.Patient {
		fmt.Fprintf(b, "| %s | %.1fs | %d | %s |\n", at(a.Start, run.Frozen), a.Took.Seconds(), a.Status, harness.Cell(harness.Cut(a.Err, 200)))
	}
	b.WriteString("\n## kubectl pleg\n\nEach change of its row (as the node engineer, `--skip-runtime-source -o json`).\n\n| sent | took | row |\n|---|---|---|\n")
	prevSays := ""
	for _, p := range run.Pleg {
		if s := p.Says(); s != prevSays {
			fmt.Fprintf(b, "| %s | %.1fs | %s |\n", at(p.Start, run.Frozen), p.Took.Seconds(), harness.Cell(s))
			prevSays = s
		}
	}
	b.WriteString("\n## Where the kubelet waits\n\n")
	for _, d := range run.Dumps {
		fmt.Fprintf(b, "- `GET /debug/pprof/goroutine?debug=2` at %s: status %d in %.2fs", at(d.Start, run.Frozen), d.Status, d.Took.Seconds())
		if d.Err != "" {
			fmt.Fprintf(b, ", error %s", d.Err)
		}
		collectors, gathers, others := harness.BlockedMetrics(d.Text)
		fmt.Fprintf(b, "; %d metrics collectors wait on a CRI call, %d endpoint handlers wait in Gather for them, %d other goroutines wait on a CRI call.\n", len(collectors), len(gathers), len(others))
	}
	for i := len(run.Dumps) - 1; i >= 0; i-- {
		if c, _, _ := harness.BlockedMetrics(run.Dumps[i].Text); len(c) > 0 {
			fmt.Fprintf(b, "\nThe goroutines of the dump at %s that wait on the runtime, trimmed to Kubernetes', gRPC's, Prometheus's and net/http's handler frames (alike ones counted once):\n\n```\n%s```\n", at(run.Dumps[i].Start, run.Frozen), run.BlockedText(run.Dumps[i]))
			break
		}
	}
	if len(run.Stall) > 0 {
		b.WriteString("\n## The proxy's account\n\n```\n" + strings.Join(run.Stall, "\n") + "\n```\n")
	}
}

// tookWords is how long a run took, as a live run measured it.
func tookWords(run *harness.FaultRun) string {
	if run.Took == 0 {
		return "(not saved)"
	}
	return run.Took.Round(time.Second).String()
}

// gatesWords names the kubelet's feature gates in a sentence.
func gatesWords(gates map[string]bool) string {
	if len(gates) == 0 {
		return "`EventedPLEG` unset (off)"
	}
	return "the feature gates `" + gatesFlag(gates) + "` in its configuration"
}

// gatesFlag is the gates as -gate takes them, sorted.
func gatesFlag(gates map[string]bool) string {
	var gs []string
	for g, v := range gates {
		gs = append(gs, fmt.Sprintf("%s=%t", g, v))
	}
	sort.Strings(gs)
	return strings.Join(gs, ",")
}

// rulesTable writes the rules Prometheus ran, one row each.
func rulesTable(b *strings.Builder, release, rules string) {
	fmt.Fprintf(b, "Rules: `plegvet alerts -k8s %s -o rules`.\n\n| alert | expr | for |\n|---|---|---|\n", release)
	list, _ := harness.ReadRules(rules)
	for _, r := range list {
		fmt.Fprintf(b, "| %s | `%s` | %s |\n", r.Alert, harness.Cell(r.Expr), r.For)
	}
	b.WriteString("\n")
}

// endpointsTable writes how each kubelet endpoint answered during the
// fault, under a heading of level (## or ###).
func endpointsTable(b *strings.Builder, run *harness.FaultRun, level string) {
	b.WriteString("\n" + level + " Each endpoint during the fault\n\n| endpoint | answered | slowest answer | timed out | refused | other | first failure | its error | last answer | answers again |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, e := range run.Endpoints() {
		slow := "-"
		if e.OK > 0 {
			slow = fmt.Sprintf("%.2fs", e.MaxOK.Seconds())
		}
		fmt.Fprintf(b, "| `%s` | %d | %s | %d | %d | %d | %s | %s | %s | %s |\n", e.Path, e.OK, slow, e.TimedOut, e.Refused, e.Other,
			at(e.FirstFailAt, run.Frozen), harness.Cell(harness.Cut(e.FirstErr, 200)), at(e.LastOKAt, run.Frozen), at(e.FirstBack, run.Frozen))
	}
}
