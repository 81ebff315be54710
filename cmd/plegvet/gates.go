package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/render"
)

func runGates(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("gates", true)
	check := fs.String("check", "", "compare the tree's gates with this feature list `file` (the format of versioned_feature_list.yaml), and apply the tree's removal rule to the gates it lists and the code dropped; exit 3 on differences")
	verify := fs.Bool("verify", false, "with -C: check the checkout's own feature list as hack/verify-featuregates.sh does (the list, its bytes, the removal rule); exit 3 on differences")
	update := fs.Bool("update", false, "with -C: rewrite the checkout's feature list as hack/update-featuregates.sh does (refused, as there, when a gate is removed too early)")
	markdown := fs.Bool("md", false, "print the gates as the tree's cmd/genfeaturegates writes feature_list.md (v1.36 on; hack/update-featuregates.sh's bytes)")
	annotate := fs.Bool("annotate", false, "with -yaml: a comment line before each gate and spec naming its position in the code")
	names, code, ok := parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if *verify || *update {
		return runListFiles(ctx, *src, names, *verify, *update, stdout, stderr)
	}
	if *annotate && !src.yaml {
		return usageError(stderr, "gates", "-annotate annotates -yaml's output; give -yaml too")
	}
	if src.json && src.yaml || *markdown && (src.json || src.yaml) {
		return usageError(stderr, "gates", "-json, -yaml and -md exclude each other")
	}
	if *markdown && len(names) > 0 {
		return usageError(stderr, "gates", "-md writes the whole list; it takes no gate names")
	}
	if *check != "" && (src.yaml || len(names) > 0) {
		return usageError(stderr, "gates", "-check compares the whole list; it takes no -yaml and no gate names")
	}
	if strings.Contains(src.k8s, "..") || strings.Contains(src.k8s, ",") {
		if src.yaml || *check != "" {
			return usageError(stderr, "gates", "-yaml and -check read one release; a range or list of releases prints a gate history")
		}
		return runGatesHistory(ctx, *src, names, stdout, stderr)
	}
	var list []answer.Gate
	if *check != "" {
		data, err := inputfile.Read(*check)
		if err != nil {
			return fail(stderr, "gates", fmt.Errorf("%s: %w", inputfile.QuoteName(*check), err))
		}
		if list, err = featurelist.Parse(*check, data); err != nil {
			return fail(stderr, "gates", err)
		}
	}
	rep, err := plegvet.Gates(ctx, src.options(stderr), names...)
	if err != nil {
		return fail(stderr, "gates", err)
	}
	if *check != "" {
		where := "-C " + shellQuote(src.dir)
		if src.k8s != "" {
			where = "-k8s " + src.k8s
		}
		rewrite := fmt.Sprintf("`plegvet gates -yaml %s > %s`", where, shellQuote(*check))
		return reportList(stdout, stderr, rep, *check, plegvet.CheckFeatureList(rep, *check, list, rewrite), rewrite, src.json)
	}
	if !src.yaml && !*markdown {
		// The table and JSON name files as -positions says; the lists
		// are the repository's files, as its own tools write them.
		if err := src.relocate(rep, rep.Source); err != nil {
			return fail(stderr, "gates", err)
		}
	}
	switch {
	case src.json:
		err = writeJSON(stdout, rep)
	case src.yaml:
		err = writeText(stdout, func(w io.Writer) error { return rep.WriteFeatureList(w, *annotate) })
	case *markdown:
		err = writeText(stdout, rep.WriteMarkdownList)
	default:
		err = src.output(stdout).text(stdout, rep, func(w io.Writer) error { return render.Gates(w, rep, writeFindings) }, &rep.Source)
	}
	if err != nil {
		return fail(stderr, "gates", err)
	}
	code = problems(stderr, "gates", rep.Source)
	if unfetched(stderr, rep) && len(names) == 0 {
		code = exitFailure // the whole list lacks those modules' gates
	}
	return conflictsExit(stderr, "gates", rep.Conflicts, code)
}

// conflictsExit says, a line each, which registrations of a gate
// component-base refuses (naming both entries), and gives the findings
// exit code when there are any and code is 0: every binary making both
// registrations panics at init. A code that is not 0 (the tree was not
// read in full) stands.
func conflictsExit(stderr io.Writer, cmd string, conflicts []answer.RegistrationConflict, code int) int {
	for _, c := range conflicts {
		fmt.Fprintf(stderr, "plegvet %s: %s\n", cmd, errorLine(fmt.Sprintf("%s and %s register feature gate %s with specs component-base does not take for the same; every binary making both registrations panics at init",
			render.Place(&c.First), render.Place(&c.Again), c.Gate)))
	}
	if len(conflicts) > 0 && code == exitOK {
		return exitFindings
	}
	return code
}

// unfetched names the staging modules of a release that were not
// fetched, and reports whether there were any. The gates asked for by
// name are answered without them (each was found); a whole list is not
// whole.
func unfetched(stderr io.Writer, rep *answer.GatesReport) bool {
	for _, u := range rep.Unfetched {
		fmt.Fprintf(stderr, "plegvet gates: %s\n", errorLine(u))
	}
	return len(rep.Unfetched) > 0
}

// reportList prints the differences between the tree's gates and its
// list, one diagnostic a line (or as JSON), and says how to rewrite the
// list. Exit 3 on differences; a tree not read in full is exit 1 whatever
// the comparison says.
func reportList(stdout, stderr io.Writer, rep *answer.GatesReport, file string, ds []answer.Diagnostic, rewrite string, asJSON bool) int {
	result := struct {
		SchemaVersion int                 `json:"schemaVersion"`
		Source        answer.Source       `json:"source"`
		List          string              `json:"list"`
		Diagnostics   []answer.Diagnostic `json:"diagnostics"`
	}{answer.SchemaVersion, rep.Source, file, append([]answer.Diagnostic{}, ds...)}
	if err := (output{json: asJSON}).print(stdout, result, func(w io.Writer) error { writeFindings(w, ds...); return nil }, nil); err != nil {
		return fail(stderr, "gates", err)
	}
	code := problems(stderr, "gates", rep.Source)
	if unfetched(stderr, rep) {
		code = exitFailure
	}
	if code == exitOK && len(ds) > 0 {
		verb, it := "differs", "it"
		if strings.Contains(file, " and ") {
			verb, it = "differ", "them"
		}
		fmt.Fprintf(stderr, "plegvet gates: %s %s from the code in %s; rewrite %s with %s\n", file, verb, plural(len(ds), "place"), it, rewrite)
		code = exitFindings
	}
	return conflictsExit(stderr, "gates", rep.Conflicts, code)
}

// shellQuote quotes a path for a shell command line when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./@:+,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// problems reports the files that did not load in full, after the answer;
// they make the exit code non-zero.
func problems(stderr io.Writer, cmd string, src answer.Source) int {
	for _, p := range src.Load.Problems {
		fmt.Fprintf(stderr, "plegvet %s: %s (the rest was analysed)\n", cmd, errorLine(p))
	}
	for _, u := range src.Load.Unfollowed {
		fmt.Fprintf(stderr, "plegvet %s: %s (not followed; the rest was analysed)\n", cmd, errorLine(u))
	}
	if len(src.Load.Problems)+len(src.Load.Unfollowed) > 0 {
		return exitFailure
	}
	return exitOK
}
