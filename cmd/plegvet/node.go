package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/nodeverdict"
)

func runNode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("node", false)
	dir := fs.Lookup("C")
	dir.Usage, dir.DefValue = "the root of a Kubernetes checkout to read the gate and the periods from (default: the kubelet's own release, fetched)", ""
	var opts plegvet.NodeOptions
	fs.StringVar(&opts.Configz, "configz", "", "`file` holding kubectl get --raw /api/v1/nodes/NODE/proxy/configz (required)")
	fs.StringVar(&opts.Metrics, "metrics", "", "`file` holding kubectl get --raw /api/v1/nodes/NODE/proxy/metrics (required, unless the request failed: -metrics-error)")
	fs.StringVar(&opts.MetricsError, "metrics-error", "", "the `error` the metrics request got instead (at -at): a hung runtime makes the kubelet's /metrics time out while its configz answers")
	fs.DurationVar(&opts.MetricsWaited, "metrics-waited", 0, "with -metrics-error, how long the request waited before it failed")
	fs.StringVar(&opts.MetricsErrorFile, "metrics-error-file", "", "`file` holding a failed metrics request as kubectl pleg --save keeps it (metrics-error.txt), instead of -metrics and -metrics-error")
	fs.StringVar(&opts.LastMetrics, "last-metrics", "", "with -metrics-error, a `file` holding the last scrape that answered, with its \"# scraped at\" line")
	fs.StringVar(&opts.Node, "node", "", "`file` holding the Node object, kubectl get node NODE --output=json: its Ready condition says whether the kubelet declared its runtime down or its PLEG unhealthy")
	fs.StringVar(&opts.Crictl, "crictl", "", "`file` holding what crictl version prints on the node (crictl version > crictl.txt: its Name:  value lines; JSON or YAML of the same fields also do)")
	fs.BoolVar(&opts.SkipRuntimeSource, "skip-runtime-source", false, "with -crictl, do not fetch the runtime's source to read whether it can stream container events")
	fs.StringVar(&opts.KubeletVersion, "kubelet-version", "", "the kubelet's `version` (v1.36.1), when the metrics lack kubernetes_build_info or are wrong; with -k8s or -C and neither, a kubelet that does not say its release is read at the source's")
	at := fs.String("at", "", "when the metrics were scraped, in `RFC3339` (2026-12-03T06:45:01Z), to tell the PLEG's health: the time since its last relist; without it, the metrics file's \"# scraped at\" line (kubectl pleg --save writes one), never the file's mtime")
	useIndex := fs.Bool("index", true, "take the source's answer for a release from plegvet's index when it holds it (-index=false reads the release's source with the go command)")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		if code == exitOK {
			fmt.Fprint(stdout, nodeExitHelp)
		}
		return code
	}
	failed := opts.MetricsError != "" || opts.MetricsErrorFile != ""
	switch {
	case opts.Configz == "" || (opts.Metrics == "" && !failed):
		return usageError(stderr, "node", "-configz FILE and -metrics FILE (or -metrics-error TEXT, or -metrics-error-file FILE) are required (see plegvet node -h)")
	case opts.Metrics != "" && failed:
		return usageError(stderr, "node", "-metrics and -metrics-error (or -metrics-error-file) exclude each other: the request answered or it did not")
	case opts.MetricsError != "" && opts.MetricsErrorFile != "":
		return usageError(stderr, "node", "-metrics-error and -metrics-error-file exclude each other")
	case opts.LastMetrics != "" && !failed:
		return usageError(stderr, "node", "-last-metrics goes with -metrics-error: it stands for the metrics that did not answer")
	case opts.MetricsWaited != 0 && opts.MetricsError == "":
		return usageError(stderr, "node", "-metrics-waited goes with -metrics-error")
	}
	if *at != "" {
		t, err := time.Parse(time.RFC3339Nano, *at)
		if err != nil {
			return usageError(stderr, "node", "-at %q: want an RFC 3339 time, such as 2026-12-03T06:45:01Z", *at)
		}
		t = t.UTC()
		opts.At = &t
	}
	opts.Options = src.options(stderr)
	opts.SkipIndex = !*useIndex
	// Without -C or -k8s, the source is the kubelet's own release, not
	// the current directory.
	if !flagSet(fs, "C") {
		opts.Dir = ""
	}
	rep, err := plegvet.Node(ctx, opts)
	if errors.Is(err, plegvet.ErrKubeletVersionUnknown) {
		fmt.Fprintf(stderr, "plegvet node: %s; pass -kubelet-version v1.X.Y, or -k8s v1.X.Y to read the gate from the release the kubelet was built from\n", errorLine(err.Error()))
		return exitFailure
	}
	if err != nil {
		return fail(stderr, "node", err)
	}
	if err := src.relocate(rep, rep.Source); err != nil {
		return fail(stderr, "node", err)
	}
	code := printAnswer("node", stdout, stderr, src.output(stdout), rep, func(w io.Writer) error { return render.Node(w, rep) }, rep.Source)
	if code != exitOK {
		return code
	}
	// A script tells an answer whose evidence disagrees, or a PLEG the
	// kubelet declares unhealthy, from a clean one by the exit code, as
	// it tells findings.
	if rep.Verdict == nodeverdict.Inconsistent {
		fmt.Fprintf(stderr, "plegvet node: inconsistent: %d of %d reasons disagree with %s\n", rep.Disagreeing(), len(rep.Reasons), rep.Expected)
		code = exitFindings
	}
	if h := rep.Health; h.State == nodeverdict.Unhealthy {
		past := ""
		if h.Elapsed != "" && h.Threshold != nil {
			past = fmt.Sprintf("last seen active %s ago, past the %s threshold; ", h.Elapsed, h.Threshold.Value)
		}
		fmt.Fprintf(stderr, "plegvet node: unhealthy: %sthe kubelet says: %s\n", past, errorLine(h.Message))
		code = exitFindings
	}
	return code
}

// nodeExitHelp follows the flags in plegvet node -h.
const nodeExitHelp = `
Exit status: 0 when the verdict is generic, evented, generic-with-event-hints
or fell-back; 3 when it is inconsistent (a reason disagrees with the verdict
the source predicts; the report is printed all the same), or when the PLEG's
health is unhealthy (the kubelet declares it so at the capture's time); 1
when an input could not be read, or the source not read in full; 2 for a
bad command line.
`
