// Command restarttable runs issue 20's scenario 4 for each release named:
// a kubelet with EventedPLEG on, a pod running, and the containerd that
// streams stopped for a few seconds and started again under it. It
// scrapes the kubelet every half second throughout and writes, as
// Markdown, a table of what changed at each scrape: the kubelet's PLEG
// log lines, its PLEG metrics, and plegvet's verdict on that scrape.
//
//	go run ./cmd/restarttable -k8s v1.36.5,v1.37.2 -o ../../docs/runtime-restart.md
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

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// down is how long containerd stays stopped.
const down = 5 * time.Second

func main() {
	releases := flag.String("k8s", "v1.36.5,v1.37.2", "the `releases` whose kubelets are run, comma-separated")
	out := flag.String("o", "", "the Markdown `file` to write (default: standard output)")
	captures := flag.String("captures", "", "a `directory` to keep every scrape in, per release")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var b strings.Builder
	fmt.Fprintf(&b, "# A runtime restart under a running pod, as real kubelets live it\n\n")
	fmt.Fprintf(&b, "Written by `go run ./cmd/restarttable -k8s %s` in tools/kubeletcheck on %s; not edited by hand.\n\n", *releases, time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "Each kubelet is built from its release's source and runs standalone with `EventedPLEG: true` and one static pod, against containerd %s built from its module (its CRI server streams container events) running containers with runc %s built from its module. After the sixth scrape, once the pod's container runs, containerd is stopped with everything it runs (SIGTERM to containerd, then SIGKILL to its shims and every process below them: the pod's container dies with it, and the kubelet starts it again; containerd's own systemd unit, KillMode=process, would leave them running, which this table does not show), and started again %s later. The kubelet is scraped every half second throughout; a row is written when its PLEG log lines, its stream and event counters or plegvet's verdict changed since the row before, and for the last scrape. Log lines are cut at 200 characters. Time is seconds since the first scrape. Metrics: `stream ok/err` = `kubelet_evented_pleg_connection_success_count` / `_error_count` (ok counts stream clients created, not streams that delivered), `events` = `kubelet_evented_pleg_connection_latency_seconds_count`, `relists` = `kubelet_pleg_relist_interval_seconds_count` and its mean.\n\n", harness.ContainerdVersion, harness.RuncVersion, down)
	for _, release := range strings.Split(*releases, ",") {
		keep := ""
		if *captures != "" {
			keep = filepath.Join(*captures, release)
		}
		if err := table(ctx, &b, release, keep); err != nil {
			fmt.Fprintln(os.Stderr, "restarttable:", err)
			os.Exit(1)
		}
	}
	if err := harness.WriteDoc(*out, b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "restarttable:", err)
		os.Exit(1)
	}
}

func table(ctx context.Context, b *strings.Builder, release, keep string) error {
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	parts, err := harness.Prepare(ctx, logf)
	if err != nil {
		return err
	}
	bin, err := parts.Builder.Kubernetes(ctx, release, "kubelet")
	if err != nil {
		return err
	}
	src, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release}, release)
	if err != nil {
		return err
	}
	rt, dir, err := parts.NewRuntimeNamed(ctx, "built")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer rt.Stop()
	k := &harness.Kubelet{Version: release, Bin: bin, Dir: filepath.Join(dir, "kubelet"), Gates: map[string]bool{"EventedPLEG": true}}
	var stopped, started time.Time
	s := &harness.Scenario{Name: "restart", Kubelet: k, Runtime: rt, WithPod: true, Scrapes: 50, Every: 500 * time.Millisecond, At: 6, Logf: logf, Out: keep,
		During: func(ctx context.Context) error {
			if _, _, err := rt.RunningContainer(ctx, "sleeper", 60*time.Second); err != nil {
				return err
			}
			stopped = time.Now()
			if err := rt.Stop(); err != nil {
				return err
			}
			time.Sleep(down)
			started = time.Now()
			return rt.Start(ctx)
		}}
	caps, err := s.Run(ctx, parts.Image)
	if err != nil {
		return err
	}
	log, err := harness.ReadLog(k.Log())
	if err != nil {
		return err
	}
	if keep != "" {
		data, err := os.ReadFile(k.Log())
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(keep, "kubelet.log"), data, 0o644); err != nil {
			return err
		}
	}
	rtInfo, err := nodeverdict.ReadCrictl("crictl version", caps[0].Crictl)
	if err != nil {
		return err
	}
	plegvet.JudgeRuntime(ctx, rtInfo)
	t0 := caps[0].Start
	fmt.Fprintf(b, "## Kubernetes %s\n\n", release)
	fmt.Fprintf(b, "containerd stopped at +%.1fs, started again at +%.1fs.\n\n", stopped.Sub(t0).Seconds(), started.Sub(t0).Seconds())
	summarize(b, log, t0, stopped, started, caps[len(caps)-1])
	fmt.Fprintf(b, "| time | the kubelet's log (PLEG lines since the row before) | stream ok/err | events | relists (mean) | plegvet |\n|---|---|---|---|---|---|\n")
	var prevMetrics, prevVerdict string
	from := time.Time{}
	for _, c := range caps {
		if c.Err != nil {
			fmt.Fprintf(b, "| +%.1fs | | | | | scrape failed: %s |\n", c.Start.Sub(t0).Seconds(), harness.Cell(c.Err.Error()))
			continue
		}
		var lines []string
		for _, l := range log {
			if l.Time.After(from) && !l.Time.After(c.End) && plegLine(l) {
				lines = append(lines, fmt.Sprintf("+%.3fs %s %s", l.Time.Sub(t0).Seconds(), l.Source, harness.Cut(l.Text, 200)))
			}
		}
		from = c.End
		counters := fmt.Sprintf("%s/%s | %s", metric(c, "kubelet_evented_pleg_connection_success_count"), metric(c, "kubelet_evented_pleg_connection_error_count"),
			metric(c, "kubelet_evented_pleg_connection_latency_seconds_count"))
		verdict := decide(src, c, rtInfo)
		last := c.Index == len(caps)-1
		if len(lines) == 0 && counters == prevMetrics && verdict == prevVerdict && !last {
			continue
		}
		prevMetrics, prevVerdict = counters, verdict
		fmt.Fprintf(b, "| +%.1fs | %s | %s | %s | %s |\n", c.Start.Sub(t0).Seconds(), harness.Cell(strings.Join(lines, "<br>")), counters, relists(c), harness.Cell(verdict))
	}
	b.WriteString("\n")
	return nil
}

// summarize says, from the log, what the kubelet did once containerd
// stopped: the stream's failures, what the evented PLEG did after the
// last, and whether any stream ran again after containerd came back.
func summarize(b *strings.Builder, log []harness.LogLine, t0, stopped, started time.Time, last harness.Capture) {
	var failures []harness.LogLine
	var gaveUp *harness.LogLine
	var after []harness.LogLine
	for i, l := range log {
		switch {
		case l.Time.Before(stopped):
		case strings.Contains(l.Text, "ailed to get container events"):
			failures = append(failures, l)
		case gaveUp == nil && (strings.Contains(l.Text, "Fall back to Generic PLEG relisting") || strings.Contains(l.Text, "disabling container-termination fast path")):
			gaveUp = &log[i]
		}
		if l.Time.After(started) && strings.Contains(l.Text, "Evented PLEG") {
			after = append(after, l)
		}
	}
	if len(failures) == 0 {
		fmt.Fprintf(b, "No stream failure was logged after containerd stopped.\n\n")
		return
	}
	first, lastFail := failures[0], failures[len(failures)-1]
	fmt.Fprintf(b, "- The stream failed %d times from +%.3fs to +%.3fs (%s): `%s`.\n", len(failures), first.Time.Sub(t0).Seconds(), lastFail.Time.Sub(t0).Seconds(), first.Source, harness.Cell(harness.Cut(first.Text, 200)))
	if gaveUp != nil {
		fmt.Fprintf(b, "- Then, at +%.3fs (%s): `%s`.\n", gaveUp.Time.Sub(t0).Seconds(), gaveUp.Source, harness.Cell(harness.Cut(gaveUp.Text, 200)))
	} else {
		fmt.Fprintf(b, "- The evented PLEG logged no fallback and no end of its watcher.\n")
	}
	if len(after) == 0 {
		fmt.Fprintf(b, "- After containerd came back, the evented PLEG logged nothing more: no stream was opened again for the rest of the run; at the last scrape the counters read %s/%s.\n\n",
			metric(last, "kubelet_evented_pleg_connection_success_count"), metric(last, "kubelet_evented_pleg_connection_error_count"))
	} else {
		fmt.Fprintf(b, "- After containerd came back, the evented PLEG logged %d lines, the first at +%.3fs: `%s`.\n\n", len(after), after[0].Time.Sub(t0).Seconds(), harness.Cell(harness.Cut(after[0].Text, 200)))
	}
}

// plegLine keeps the lines about the PLEGs, the event stream and the
// runtime connection.
func plegLine(l harness.LogLine) bool {
	for _, s := range []string{"Evented PLEG", "Fall back", "streaming container event", "PLEG is not healthy", "GetContainerEvents", "container finished", "SyncLoop (PLEG)"} {
		if strings.Contains(l.Text, s) {
			return true
		}
	}
	return false
}

func decide(src *plegvet.NodeSource, c harness.Capture, rt *nodeverdict.Runtime) string {
	cfg, err := nodeverdict.ReadConfigz("configz", c.Configz)
	if err != nil {
		return err.Error()
	}
	met, err := nodeverdict.ReadMetrics("metrics", c.Metrics)
	if err != nil {
		return err.Error()
	}
	rep, err := src.Decide(plegvet.NodeCapture{Config: cfg, Metrics: met, Runtime: rt})
	if err != nil {
		return err.Error()
	}
	return rep.Verdict
}

func metric(c harness.Capture, name string) string {
	v, ok := harness.Metric(c.Metrics, name)
	if !ok {
		return "-"
	}
	return v
}

func relists(c harness.Capture) string {
	n, sum := metric(c, "kubelet_pleg_relist_interval_seconds_count"), metric(c, "kubelet_pleg_relist_interval_seconds_sum")
	var count, total float64
	if _, err := fmt.Sscan(n, &count); err != nil || count == 0 {
		return n
	}
	fmt.Sscan(sum, &total)
	return fmt.Sprintf("%s (%.3fs)", n, total/count)
}
