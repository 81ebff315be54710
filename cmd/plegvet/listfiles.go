package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/suite"
)

// runListFiles is gates -verify and -update on a checkout: the feature
// list Kubernetes commits, checked or rewritten as its own
// hack/verify-featuregates.sh and hack/update-featuregates.sh do, with
// the rules of the checkout's own feature-list tool.
func runListFiles(ctx context.Context, src sourceFlags, names []string, verify, update bool, stdout, stderr io.Writer) int {
	switch {
	case verify && update:
		fmt.Fprintln(stderr, "plegvet gates: -verify and -update exclude each other")
		return exitUsage
	case src.k8s != "" || src.yaml || len(names) > 0:
		fmt.Fprintln(stderr, "plegvet gates: -verify and -update read and write a checkout's own files: give -C DIR, and no -k8s, -yaml or gate names")
		return exitUsage
	}
	rep, err := plegvet.Gates(ctx, src.options())
	if err != nil {
		return fail(stderr, "gates", err)
	}
	if rep.Lifecycle == nil {
		fmt.Fprintf(stderr, "plegvet gates: %s: no %s: the checkout has no feature-list tool saying what its list holds\n", src.dir, featurelist.GeneratorFile)
		return exitFailure
	}
	rel := rep.Lifecycle.ListFile
	name := filepath.Join(src.dir, filepath.FromSlash(rel))
	var want bytes.Buffer
	if err := rep.WriteFeatureList(&want, false); err != nil {
		return fail(stderr, "gates", err)
	}
	data, err := inputfile.Read(name)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet gates: %s: %s\n", rel, errorLine(err.Error()))
		return exitFailure
	}
	list, err := featurelist.Parse(rel, data)
	if err != nil {
		fmt.Fprintf(stderr, "plegvet gates: %s\n", errorLine(err.Error()))
		return exitFailure
	}
	rewrite := "`plegvet gates -update -C " + shellQuote(src.dir) + "`"
	ds := rep.CheckFeatureList(rel, list, rewrite)
	if update {
		return updateList(stderr, rep, name, rel, want.Bytes(), ds)
	}
	if len(ds) == 0 && !bytes.Equal(data, want.Bytes()) {
		// The same gates, written otherwise: a header or layout by hand,
		// which the tool's byte comparison refuses too.
		ds = append(ds, plegvet.Diagnostic{Category: string(suite.StaleList), Pos: plegvet.Pos{File: rel, Line: firstDifferentLine(data, want.Bytes()), Column: 1},
			Related: []plegvet.Related{}, Message: "the list holds the code's gates but not in the bytes the feature-list tool writes (header or layout); rewrite the list with " + rewrite})
	}
	return reportList(stdout, stderr, rep, rel, ds, rewrite, src.json)
}

// updateList writes the list, unless a gate was removed too early (the
// tool's update refuses that too) or the tree was not read in full.
func updateList(stderr io.Writer, rep *plegvet.GatesReport, name, rel string, data []byte, ds []plegvet.Diagnostic) int {
	if code := problems(stderr, "gates", rep.Source); code != exitOK {
		fmt.Fprintf(stderr, "plegvet gates: %s not written: the tree was not read in full\n", rel)
		return code
	}
	refused := 0
	for _, d := range ds {
		if d.Category == string(suite.RemovedTooEarly) {
			fmt.Fprintf(stderr, "%s:%d:%d: %s [%s]\n", d.Pos.File, d.Pos.Line, d.Pos.Column, errorLine(d.Message), d.Category)
			refused++
		}
	}
	if refused > 0 {
		fmt.Fprintf(stderr, "plegvet gates: %s not written: %s removed too early\n", rel, plural(refused, "gate"))
		return exitFindings
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return fail(stderr, "gates", err)
	}
	return conflictsExit(stderr, "gates", rep.Diagnostics, exitOK)
}

// firstDifferentLine is the first line where a and b differ (1-based).
func firstDifferentLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
