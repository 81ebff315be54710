package check

import (
	"go/parser"
	"go/token"
	"strings"
)

// FromDoc reads the checks a doc comment lists as "- name: text" or
// "- name, name: text" bullets (continuation lines indented), in order,
// each a warning (the suite gives a check another severity): an
// analyzer's Doc, or a check package's comment (FromPackageDoc).
func FromDoc(doc string) []Doc {
	var out []Doc
	open := 0 // how many checks the current bullet names
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(trimmed, "- "); ok {
			names, text, found := strings.Cut(rest, ": ")
			if found && isNameList(names) {
				open = 0
				for _, n := range strings.Split(names, ", ") {
					out = append(out, Doc{Check: Check(n), Text: text, Severity: Warning})
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

// FromPackageDoc is FromDoc of the package comment of a doc.go's source
// (a check package embeds its own). It panics when there is none: the
// documentation is part of the program.
func FromPackageDoc(docGo string) []Doc {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", docGo, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil || f.Doc == nil {
		panic("check: doc.go has no package comment")
	}
	return FromDoc(f.Doc.Text())
}
