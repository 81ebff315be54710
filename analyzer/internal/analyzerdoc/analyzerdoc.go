// Package analyzerdoc takes an analyzer's Doc from the "# Analyzer NAME"
// section of its package's doc.go, so the documentation lives in one
// place, as golang.org/x/tools/go/analysis/passes do.
package analyzerdoc

import (
	"fmt"
	"go/parser"
	"go/token"
	"strings"

	"github.com/plegvet/plegvet/internal/analysis/check"
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

// Checks reads the checks an analyzer's Doc lists (check.FromDoc).
func Checks(doc string) []check.Doc { return check.FromDoc(doc) }
