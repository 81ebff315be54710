package docgen

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/plegvet/plegvet/internal/analysis/suite"
)

// page is docs/checks.md, from this package's directory.
const page = "../../../docs/checks.md"

// TestChecksDoc holds docs/checks.md to what the suite says;
// UPDATE_GOLDEN=1 (go generate) rewrites it instead.
func TestChecksDoc(t *testing.T) {
	want := checksPage()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(page, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("%v (go generate ./internal/docgen writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/checks.md is not what internal/analysis/suite says; go generate ./internal/docgen rewrites it:\n%s",
			diff.Diff("docs/checks.md", got, "internal/analysis/suite", want))
	}
}

// checksPage renders every group of checks, in the suite's order, each
// check with its severity and SARIF rule, and each analyzer's settings
// under the names every route gives them.
func checksPage() []byte {
	var b bytes.Buffer
	b.WriteString(`# plegvet's checks

<!-- Generated from internal/analysis/suite by go generate ./internal/docgen; DO NOT EDIT. -->

Every check plegvet reports, by group. A finding's category is its
check's name; its SARIF rule, and the name printed after a finding, is
GROUP/CHECK. How to run them: [docs/commands/checks.md](commands/checks.md)
(standalone, go vet, go fix), [docs/commands/lsp.md](commands/lsp.md),
[docs/commands/golangci-lint.md](commands/golangci-lint.md) (golangci-lint,
Bazel nogo).
`)
	analyzers := suite.Analyzers()
	settings := suite.Settings()
	for _, g := range suite.Groups() {
		fmt.Fprintf(&b, "\n## %s\n\n", g.Name)
		i := slices.IndexFunc(analyzers, func(a suite.Analyzer) bool { return a.Name == g.Name })
		if i >= 0 {
			summary, _, _ := strings.Cut(analyzers[i].Default.Doc, "\n")
			fmt.Fprintf(&b, "The `%s` analyzer: %s. It runs under `go vet -vettool`, the standalone driver, `go fix -fixtool`, golangci-lint, nogo and `plegvet lsp`.\n\n", g.Name, summary)
		} else {
			b.WriteString("Run by the library, and so by the subcommands, not by an analyzer: these checks read files that are not Go, which no analysis pass can read.\n\n")
		}
		fmt.Fprintf(&b, "Reference: <%s>\n", g.URL)
		for _, c := range g.Checks {
			fmt.Fprintf(&b, "\n### %s\n\n%s\n\nSeverity: %s. SARIF rule: `%s/%s`.\n", c.Check, c.Text, c.Severity, g.Name, c.Check)
		}
		var own []suite.Setting
		for _, s := range settings {
			if s.Analyzer == g.Name {
				own = append(own, s)
			}
		}
		if len(own) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### Settings of %s\n\n", g.Name)
		b.WriteString("| flag (go vet, standalone, `plegvet lsp`) | nogo `analyzer_flags` | golangci-lint key | default | what it sets |\n")
		b.WriteString("|---|---|---|---|---|\n")
		for _, s := range own {
			fmt.Fprintf(&b, "| `-%s.%s` | `%s` | `%s.%s` | %s | %s |\n", s.Analyzer, s.Flag, s.Flag, s.Analyzer, s.Key, code(s.Default), cell(s.Doc))
		}
	}
	return b.Bytes()
}

// code is a value in a table cell; an empty one is said so.
func code(v string) string {
	if v == "" {
		return "(none)"
	}
	return "`" + cell(v) + "`"
}

// cell escapes the one character a Markdown table cell cannot hold.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
