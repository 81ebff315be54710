package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/internal/render/sarif"
)

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("report", false)
	proto := fs.String("proto", "", "read this api.proto `file` instead of the tree's")
	sarifFile := fs.String("sarif", "", "also write the findings to this `file` as SARIF 2.1.0")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	if strings.ContainsAny(src.k8s, ",") || strings.Contains(src.k8s, "..") {
		return runTimeline(ctx, *src, stdout, stderr)
	}
	opts := src.options(stderr)
	opts.Proto = *proto
	rep, err := plegvet.Inspect(ctx, opts)
	if err != nil {
		return fail(stderr, "report", err)
	}
	if err := src.relocate(rep, rep.Source); err != nil {
		return fail(stderr, "report", err)
	}
	if *sarifFile != "" {
		if err := writeSARIFFile(*sarifFile, opts, rep.Source, rep.Diagnostics); err != nil {
			return fail(stderr, "report", err)
		}
	}
	code := printAnswer("report", stdout, stderr, src.output(stdout), rep, func(w io.Writer) error { return render.Report(w, rep, writeFindings) }, rep.Source)
	return conflictsExit(stderr, "report", rep.Conflicts, code)
}

func runTimeline(ctx context.Context, src sourceFlags, stdout, stderr io.Writer) int {
	versions, err := plegvet.Releases(ctx, src.k8s, src.fetch(stderr))
	if err != nil {
		return fail(stderr, "report", err)
	}
	rows := plegvet.Timeline(ctx, versions, plegvet.TimelineOptions{Workers: runtime.NumCPU(), Progress: releaseProgress(stderr), CacheDir: plegvet.DefaultCacheDir(), Fetch: src.fetch(stderr)})
	for _, r := range rows {
		if err := src.relocate(r, r.Source); err != nil {
			return fail(stderr, "report", err)
		}
	}
	if err := src.output(stdout).print(stdout, rows, func(w io.Writer) error { return render.Timeline(w, rows) }, nil); err != nil {
		return fail(stderr, "report", err)
	}
	code := exitOK
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(stderr, "plegvet report: %s: %s\n", r.Source.KubernetesVersion, errorLine(r.Error))
			code = exitFailure
		}
	}
	return code
}

func isTerminal(w io.Writer) bool {
	if u, ok := w.(untilSignal); ok {
		w = u.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeSARIFFile writes a subcommand's findings as SARIF: paths relative to
// the checkout read, or to the release's tree at its tag; the
// invocation successful when the tree was read whole.
func writeSARIFFile(name string, opts plegvet.Options, src answer.Source, ds []answer.Diagnostic) error {
	run := sarif.Run{Version: version(), Category: "report", Rules: suite.Rules(), Results: ds, Successful: len(src.Load.Problems) == 0 && len(src.Load.Unfollowed) == 0}
	run.Notifications = append(append(run.Notifications, src.Load.Problems...), src.Load.Unfollowed...)
	switch {
	case src.Release() != "":
		run.RootURL = plegvet.FileLink(src)("", 0)
	case opts.Kubernetes == "" && opts.Proto == "":
		if abs, err := filepath.Abs(cmp.Or(opts.Dir, ".")); err == nil {
			run.Root = abs
		}
	}
	return createSARIF(name, run)
}

// releaseProgress shows, on a terminal, how many releases of a timeline
// or a history are done; nil elsewhere (a log gets no \r).
func releaseProgress(stderr io.Writer) func(done, total int, version string) {
	if !isTerminal(stderr) {
		return nil
	}
	return func(done, total int, v string) {
		fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s", done, total, v)
		if done == total {
			fmt.Fprint(stderr, "\r\033[K")
		}
	}
}
