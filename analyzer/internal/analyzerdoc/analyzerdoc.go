// Package analyzerdoc takes an analyzer's Doc from the "# Analyzer NAME"
// section of its package's doc.go, so the documentation lives in one
// place, as golang.org/x/tools/go/analysis/passes do.
package analyzerdoc

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"

	"github.com/plegvet/plegvet/internal/check"
)

// Extract returns the section "# Analyzer name" of the package comment in
// the Go source content, up to the next section heading. Its first line
// must be "name: summary". It panics when the section is missing: the
// documentation is part of the program.
func Extract(content, name string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", content, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		panic(fmt.Sprintf("analyzerdoc: doc.go of %s has no package comment", name))
	}
	text := f.Doc.Text()
	heading := "# Analyzer " + name + "\n"
	i := strings.Index(text, heading)
	if i < 0 {
		panic(fmt.Sprintf("analyzerdoc: doc.go has no section %q", strings.TrimSpace(heading)))
	}
	section := strings.TrimSpace(text[i+len(heading):])
	if j := strings.Index(section, "\n# "); j >= 0 {
		section = strings.TrimSpace(section[:j])
	}
	if !strings.HasPrefix(section, name+": ") {
		panic(fmt.Sprintf("analyzerdoc: section of %s must start %q", name, name+": "))
	}
	return strings.TrimPrefix(section, name+": ")
}

// Checks reads the checks an analyzer's Doc lists as "- name: text" or
// "- name, name: text" bullets (continuation lines indented), in order,
// each a warning (the suite gives a check another severity).
func Checks(doc string) []check.Doc {
	var out []check.Doc
	open := 0 // how many checks the current bullet names
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(trimmed, "- "); ok {
			names, text, found := strings.Cut(rest, ": ")
			if found && isNameList(names) {
				open = 0
				for _, n := range strings.Split(names, ", ") {
					out = append(out, check.Doc{Check: check.Check(n), Text: text, Severity: check.Warning})
					open++
				}
				continue
			}
		}
		if open > 0 && trimmed != "" && strings.HasPrefix(line, "  ") && !strings.HasPrefix(trimmed, "-") {
			for i := len(out) - open; i < len(out); i++ {
				out[i].Text += " " + trimmed
			}
			continue
		}
		open = 0
	}
	return out
}

// isNameList reports whether s is "name" or "name, name", kebab-case.
func isNameList(s string) bool {
	for _, n := range strings.Split(s, ", ") {
		if n == "" || strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || n[0] == '-' {
			return false
		}
	}
	return true
}
