package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
)

// runGatesHistory answers plegvet gates -k8s with a range or a comma list
// of releases: one row per gate and release, then a line per gate with the
// releases where it changed; -json prints the answer.GateHistoryReport. A
// release that cannot be read is a row with its error (under the table,
// and on stderr), and the exit code is 1.
func runGatesHistory(ctx context.Context, src sourceFlags, names []string, stdout, stderr io.Writer) int {
	rep, err := plegvet.GateHistory(ctx, plegvet.HistoryOptions{Kubernetes: src.k8s, Workers: runtime.NumCPU(), Progress: releaseProgress(stderr), CacheDir: plegvet.DefaultCacheDir(), Fetch: src.fetch(stderr)}, names...)
	if err != nil {
		return fail(stderr, "gates", err)
	}
	// Each row's position is in its own release.
	for _, g := range rep.Gates {
		for i := range g.Releases {
			r := &g.Releases[i]
			if err := src.relocate(r, answer.Source{Dir: "k8s.io/kubernetes@" + r.KubernetesVersion, KubernetesVersion: r.KubernetesVersion}); err != nil {
				return fail(stderr, "gates", err)
			}
		}
	}
	if src.json {
		// "->" in the phrases of changes reads as written, not \u003e.
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = withJSONNames(rep, func() error { return enc.Encode(rep) })
	} else {
		err = src.output(stdout).text(stdout, rep, func(w io.Writer) error { return render.GateHistory(w, rep) }, nil)
	}
	if err != nil {
		return fail(stderr, "gates", err)
	}
	return historyProblems(stderr, rep, len(names) > 0)
}

// historyProblems says, under the history, what was not read: a release
// that failed, files that did not load, and, once for the whole history,
// the releases read in part (staging modules the go command did not
// fetch) and why. Those fail the history only where they could matter:
// for the whole list, or where a gate asked for is found in no module
// read of a release that did not fetch one of the gate's own modules
// (a line names it). A gate whose own modules were read is answered,
// exit 0. A range and a list of the same releases exit alike.
func historyProblems(stderr io.Writer, rep *answer.GateHistoryReport, named bool) int {
	code := exitOK
	for _, r := range rep.Releases {
		if r.Error != "" {
			fmt.Fprintf(stderr, "plegvet gates: %s: %s\n", r.KubernetesVersion, errorLine(r.Error))
			code = exitFailure
			continue
		}
		if problems(stderr, "gates: "+r.KubernetesVersion, r.Source) != exitOK {
			code = exitFailure
		}
	}
	if line := render.ReadInPart(rep, named); line != "" {
		fmt.Fprintf(stderr, "plegvet gates: %s\n", errorLine(line))
		if !named {
			code = exitFailure // the whole list lacks those modules' gates
		}
	}
	if named {
		for _, line := range render.UnknownAbsences(rep) {
			fmt.Fprintf(stderr, "plegvet gates: %s\n", errorLine(line))
			code = exitFailure
		}
	}
	return code
}
