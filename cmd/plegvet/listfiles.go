package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// runListFiles is gates -verify and -update on a checkout: the feature
// list Kubernetes commits, checked or rewritten as its own
// hack/verify-featuregates.sh and hack/update-featuregates.sh do, with
// the rules of the checkout's own feature-list tool.
func runListFiles(ctx context.Context, src sourceFlags, names []string, verify, update bool, stdout, stderr io.Writer) int {
	switch {
	case verify && update:
		return usageError(stderr, "gates", "-verify and -update exclude each other")
	case src.k8s != "" || src.yaml || len(names) > 0:
		return usageError(stderr, "gates", "-verify and -update read and write a checkout's own files: give -C DIR, and no -k8s, -yaml or gate names")
	}
	rep, err := plegvet.Gates(ctx, src.options(stderr))
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
		return fail(stderr, "gates", err)
	}
	rewrite := "`plegvet gates -update -C " + shellQuote(src.dir) + "`"
	ds := plegvet.CheckFeatureList(rep, rel, list, rewrite)
	files := []listFile{{name, rel, want.Bytes(), len(ds) > 0}}
	if rep.Markdown != nil {
		md, mds, err := markdownList(src.dir, rep, rewrite)
		if err != nil {
			return fail(stderr, "gates", err)
		}
		md.differs = len(mds) > 0
		files = append(files, md)
		ds = append(ds, mds...)
	}
	if update {
		return updateList(stderr, rep, files, ds)
	}
	if len(ds) == 0 && !bytes.Equal(data, want.Bytes()) {
		// The same gates, written otherwise: a header or layout by hand,
		// which the tool's byte comparison refuses too.
		files[0].differs = true
		ds = append(ds, answer.Diagnostic{Category: string(suite.StaleList), Pos: answer.Pos{File: rel, Line: firstDifferentLine(data, want.Bytes()), Column: 1},
			Related: []answer.Related{}, Message: "the list holds the code's gates but not in the bytes the feature-list tool writes (header or layout); rewrite the list with " + rewrite})
	}
	return reportList(stdout, stderr, rep, differing(files), ds, rewrite, src.json)
}

// differing names the files with differences ("A and B"), the first when
// none has.
func differing(files []listFile) string {
	var names []string
	for _, f := range files {
		if f.differs {
			names = append(names, f.rel)
		}
	}
	if len(names) == 0 {
		return files[0].rel
	}
	return strings.Join(names, " and ")
}

// listFile is a file -update writes: its path, as named, and its bytes;
// differs says that its check found differences.
type listFile struct {
	name, rel string
	data      []byte
	differs   bool
}

// markdownList is the checkout's feature_list.md as the generator writes
// it, and the committed file's differences from it.
func markdownList(dir string, rep *answer.GatesReport, rewrite string) (listFile, []answer.Diagnostic, error) {
	rel := rep.Markdown.File
	var want bytes.Buffer
	if err := rep.WriteMarkdownList(&want); err != nil {
		return listFile{}, nil, err
	}
	md := listFile{name: filepath.Join(dir, filepath.FromSlash(rel)), rel: rel, data: want.Bytes()}
	data, err := inputfile.Read(md.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return md, []answer.Diagnostic{{Category: string(suite.StaleMarkdown), Pos: answer.Pos{File: rel, Line: 1, Column: 1}, Related: []answer.Related{},
			Message: rel + " does not exist; the tree's generator writes it; write it with " + rewrite}}, nil
	case err != nil:
		return listFile{}, nil, fmt.Errorf("%s: %w", rel, err)
	}
	ds, err := plegvet.CheckMarkdownList(rep, rel, data, rewrite)
	return md, ds, err
}

// updateList writes the lists, unless a gate was removed too early (the
// tool's update refuses that too) or the tree was not read in full.
func updateList(stderr io.Writer, rep *answer.GatesReport, files []listFile, ds []answer.Diagnostic) int {
	rel := files[0].rel
	if code := problems(stderr, "gates", rep.Source); code != exitOK {
		fmt.Fprintf(stderr, "plegvet gates: %s not written: the tree was not read in full\n", rel)
		return code
	}
	refused := 0
	for _, d := range ds {
		if d.Category == string(suite.RemovedTooEarly) {
			writeFindings(stderr, d)
			refused++
		}
	}
	if refused > 0 {
		fmt.Fprintf(stderr, "plegvet gates: %s not written: %s removed too early\n", rel, plural(refused, "gate"))
		return exitFindings
	}
	for _, f := range files {
		if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
			return fail(stderr, "gates", err)
		}
	}
	return conflictsExit(stderr, "gates", rep.Conflicts, exitOK)
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
