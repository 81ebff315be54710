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
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var b strings.Builder
	fmt.Fprintf(&b, "# A runtime restart under a running pod, as real kubelets live it\n\n")
	fmt.Fprintf(&b, "Written by `go run ./cmd/restarttable -k8s %s` in tools/kubeletcheck on %s; not edited by hand.\n\n", *releases, time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "Each kubelet is built from its release's source and runs standalone with `EventedPLEG: true` and one static pod, against containerd %s built from its module (its CRI server streams container events) running containers with Debian's crun. After the sixth scrape, containerd is stopped (SIGTERM to its process; the pod's shim and container keep running), and started again %s later. The kubelet is scraped every half second; a row is written when its PLEG log lines, its PLEG metrics or plegvet's verdict changed since the row before. Time is seconds since the first scrape. Metrics: `stream ok/err` = `kubelet_evented_pleg_connection_success_count` / `_error_count` (ok counts stream clients created, not streams that delivered), `events` = `kubelet_evented_pleg_connection_latency_seconds_count`, `relists` = `kubelet_pleg_relist_interval_seconds_count` and its mean.\n\n", harness.ContainerdVersion, down)
	for _, release := range strings.Split(*releases, ",") {
		if err := table(ctx, &b, release); err != nil {
			fmt.Fprintln(os.Stderr, "restarttable:", err)
			os.Exit(1)
		}
	}
	if *out == "" {
		fmt.Print(b.String())
		return
	}
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "restarttable:", err)
		os.Exit(1)
	}
}

func table(ctx context.Context, b *strings.Builder, release string) error {
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
	s := &harness.Scenario{Name: "restart", Kubelet: k, Runtime: rt, WithPod: true, Scrapes: 50, Every: 500 * time.Millisecond, At: 6, Logf: logf,
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
	rtInfo, err := nodeverdict.ReadCrictl("crictl version", caps[0].Crictl)
	if err != nil {
		return err
	}
	plegvet.JudgeRuntime(ctx, rtInfo)
	t0 := caps[0].Start
	fmt.Fprintf(b, "## Kubernetes %s\n\n", release)
	fmt.Fprintf(b, "containerd stopped at +%.1fs, started again at +%.1fs.\n\n", stopped.Sub(t0).Seconds(), started.Sub(t0).Seconds())
	fmt.Fprintf(b, "| time | the kubelet's log (PLEG lines since the row before) | stream ok/err | events | relists (mean) | plegvet |\n|---|---|---|---|---|---|\n")
	var prevMetrics, prevVerdict string
	from := time.Time{}
	for _, c := range caps {
		if c.Err != nil {
			fmt.Fprintf(b, "| +%.1fs | | | | | scrape failed: %s |\n", c.Start.Sub(t0).Seconds(), cell(c.Err.Error()))
			continue
		}
		var lines []string
		for _, l := range log {
			if l.Time.After(from) && !l.Time.After(c.End) && plegLine(l) {
				lines = append(lines, fmt.Sprintf("+%.3fs %s %s", l.Time.Sub(t0).Seconds(), l.Source, l.Text))
			}
		}
		from = c.End
		metrics := fmt.Sprintf("%s/%s | %s | %s", metric(c, "kubelet_evented_pleg_connection_success_count"), metric(c, "kubelet_evented_pleg_connection_error_count"),
			metric(c, "kubelet_evented_pleg_connection_latency_seconds_count"), relists(c))
		verdict := decide(src, c, rtInfo)
		if len(lines) == 0 && metrics == prevMetrics && verdict == prevVerdict {
			continue
		}
		prevMetrics, prevVerdict = metrics, verdict
		fmt.Fprintf(b, "| +%.1fs | %s | %s | %s |\n", c.Start.Sub(t0).Seconds(), cell(strings.Join(lines, "<br>")), metrics, cell(verdict))
	}
	b.WriteString("\n")
	return nil
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

// cell escapes a table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
