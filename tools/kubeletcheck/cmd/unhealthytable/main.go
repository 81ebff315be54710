// Command unhealthytable runs issue 33's scenario for each release named:
// a kubelet registered to a real API server, EventedPLEG unset, a pod
// running, containerd stopped alone for longer than the PLEG's threshold
// and started again, with a real Prometheus scraping the kubelet and
// evaluating the rules `plegvet alerts` writes. It writes, as Markdown,
// the moments measured: the runtime stopped, the last-seen gauge frozen,
// the kubelet's messages, the node's Ready condition, each alert, and
// the recovery.
//
//	go run ./cmd/unhealthytable -k8s v1.37.2 -o ../../docs/pleg-unhealthy.md -captures /tmp/unhealthy
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

func main() {
	releases := flag.String("k8s", "v1.37.2", "the `releases` whose kubelets are run, comma-separated")
	out := flag.String("o", "", "the Markdown `file` to write (default: standard output)")
	captures := flag.String("captures", "", "a `directory` to keep the trimmed captures in, as DIR/RELEASE/pleg-unhealthy")
	repo := flag.String("repo", filepath.Join("..", ".."), "the plegvet `repository` whose plegvet writes the rules")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var b strings.Builder
	fmt.Fprintf(&b, "# PLEG is not healthy: a runtime stopped past the threshold, as real kubelets live it\n\n")
	command := "go run ./cmd/unhealthytable -k8s " + *releases
	if *repo != filepath.Join("..", "..") {
		command += " -repo " + *repo
	}
	fmt.Fprintf(&b, "Written by `%s` in tools/kubeletcheck on %s; not edited by hand. `TestPLEGUnhealthy` runs the same scenario and asserts the order below.\n\n", command, time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "Each kubelet is built from its release's source, registered to a kube-apiserver of the same release, with `EventedPLEG` unset (off) and one static pod running on containerd %s built from its module. Once the node is Ready, containerd is stopped alone (SIGTERM to its process group; the pod's shim and container keep running) and started again 10 s after the node's Ready condition names the PLEG and every alert has fired (or %s past the PLEG's threshold of %s). The harness scrapes the kubelet's /metrics, reads the node's Ready condition through the API server and Prometheus's /api/v1/alerts every 3 s; Debian's Prometheus scrapes the kubelet (https, anonymous) and evaluates its rules every 3 s. A moment read from a scrape or a read is known to within those 3 s; a moment from the kubelet's log is to the microsecond. Times are seconds after containerd stopped.\n\n",
		harness.ContainerdVersion, 2*time.Minute, harness.PLEGThreshold)
	for _, release := range strings.Split(*releases, ",") {
		if err := table(ctx, &b, release, *repo, *captures); err != nil {
			fmt.Fprintln(os.Stderr, "unhealthytable:", err)
			os.Exit(1)
		}
	}
	if err := harness.WriteDoc(*out, b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "unhealthytable:", err)
		os.Exit(1)
	}
}

func table(ctx context.Context, b *strings.Builder, release, repo, captures string) error {
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	tr, err := harness.NewTableRun(ctx, "unhealthytable", release, repo, logf)
	if err != nil {
		return err
	}
	defer tr.Close()
	rules := tr.Rules
	u := tr.Parts.NewUnhealthy(release, tr.Kubelet, tr.APIServer, rules, logf)
	began := time.Now()
	run, err := u.Run(ctx)
	if err != nil {
		return err
	}
	took := time.Since(began)
	tl := run.GaugeTimeline(harness.Alerts)
	if captures != "" {
		if err := run.KeepScrapes(filepath.Join(captures, release, u.Name()), run.Picks(tl), tl); err != nil {
			return err
		}
	}
	fmt.Fprintf(b, "## Kubernetes %s\n\n", release)
	switch {
	case rules == "":
		fmt.Fprintf(b, "The plegvet built from this repository has no `alerts` subcommand: Prometheus scraped the kubelet with no rules, and no alert is timed.\n\n")
	case os.Getenv("PLEGVET_KUBELETCHECK_RULES") != "":
		fmt.Fprintf(b, "Rules: the file PLEGVET_KUBELETCHECK_RULES named, not `plegvet alerts`:\n\n```yaml\n%s```\n\n", run.Rules)
	default:
		fmt.Fprintf(b, "Rules: `plegvet alerts -k8s %s -o rules`.\n\n", release)
	}
	if rules != "" && os.Getenv("PLEGVET_KUBELETCHECK_RULES") == "" {
		list, err := harness.ReadRules(rules)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "| alert | expr | for |\n|---|---|---|\n")
		for _, r := range list {
			fmt.Fprintf(b, "| %s | `%s` | %s |\n", r.Alert, harness.Cell(r.Expr), r.For)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "The run took %s, from the control plane's start to the last observation; %d observations.\n\n", took.Round(time.Second), len(run.Rounds))
	fmt.Fprintf(b, "| after the stop | moment | evidence |\n|---|---|---|\n")
	for _, r := range tl.Rows() {
		at := "not seen"
		if !r.At.IsZero() {
			at = fmt.Sprintf("%+.1fs", r.At.Sub(run.Frozen).Seconds())
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", at, harness.Cell(r.What), harness.Cell(harness.Cut(r.Evidence, 300)))
	}
	b.WriteString("\n")
	summarize(b, tl)
	return nil
}

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

// summarize says, in sentences, the spans a node engineer asks for.
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
	fmt.Fprintf(b, "- From the last successful relist to the kubelet's first `%s`: %s (the threshold is %s).\n", harness.PLEGUnhealthy, span(tl.LastRelist, logged), harness.PLEGThreshold)
	fmt.Fprintf(b, "- From containerd's stop to Ready=False: %s; to Ready's message naming the PLEG: %s.\n", span(tl.Stopped, readyFalse), span(tl.Stopped, readyPLEG))
	fmt.Fprintf(b, "- From containerd's start to Ready=True: %s.\n", span(tl.Started, readyTrue))
	for _, a := range tl.Alerts {
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
