package main

import (
	"bytes"
	"go/token"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/frontend/driver"
)

func TestEscapeControls(t *testing.T) {
	tests := []struct{ in, keep, flat string }{
		{"plain", "plain", "plain"},
		{"v1.36.1\x1b[2J", `v1.36.1\x1b[2J`, `v1.36.1\x1b[2J`},
		{"a\nb\tc", "a\nb\tc", `a\nb\tc`},
		{"bell\a", `bell\a`, `bell\a`},
		{"c1 \u009b31m", `c1 \u009b31m`, `c1 \u009b31m`},
		{"bad \xff utf8", `bad \xff utf8`, `bad \xff utf8`},
		{"ünïcode ok", "ünïcode ok", "ünïcode ok"},
	}
	for _, tt := range tests {
		if got := escapeControls(tt.in, true); got != tt.keep {
			t.Errorf("escapeControls(%q, true) = %q; want %q", tt.in, got, tt.keep)
		}
		if got := escapeControls(tt.in, false); got != tt.flat {
			t.Errorf("escapeControls(%q, false) = %q; want %q", tt.in, got, tt.flat)
		}
	}
}

func TestErrorLineCut(t *testing.T) {
	long := "configz.json: number " + strings.Repeat("9", 1_000_000)
	got := errorLine(long)
	if len(got) > maxLine+40 || !strings.HasSuffix(got, "more bytes cut)") || strings.Contains(got, "\n") {
		t.Errorf("errorLine cut to %d bytes: %.80q...", len(got), got)
	}
}

// A rune split across writes passes whole; a control split from its text
// is still escaped.
func TestEscapingWriterSplitRunes(t *testing.T) {
	var out bytes.Buffer
	w := &escapingWriter{w: &out}
	in := []byte("ä\u009bx\x1by")
	for i := range in {
		w.Write(in[i : i+1])
	}
	w.Flush()
	if got, want := out.String(), `ä\u009bx\x1by`; got != want {
		t.Errorf("wrote %q; want %q", got, want)
	}
}

// A table's empty last cell leaves no spaces at the end of a line, even
// when the spaces and the newline come in different writes.
func TestEscapingWriterTrimsLineEnds(t *testing.T) {
	var out bytes.Buffer
	w := &escapingWriter{w: &out}
	for _, s := range []string{"a  b   ", "  ", "\nc \n", "  d"} {
		w.Write([]byte(s))
	}
	w.Flush()
	if got, want := out.String(), "a  b\nc\n  d"; got != want {
		t.Errorf("wrote %q; want %q", got, want)
	}
}

// The driver's text output goes through the checker's printer: a message,
// a related message or a file name carrying control characters or line
// breaks still prints as one escaped line each, a finding ended with its
// check's name (the analyzer's, for a category the suite does not list).
func TestPrintTextEscapes(t *testing.T) {
	rule := suite.Rules()[0]
	fset := token.NewFileSet()
	f := fset.AddFile("evil\x1b[2J.go", -1, 100)
	f.SetLines([]int{0, 50})
	act := &checker.Action{
		Analyzer: &analysis.Analyzer{Name: "a"},
		Package:  &packages.Package{ID: "p", Fset: fset},
		IsRoot:   true,
		Diagnostics: []analysis.Diagnostic{{
			Pos:     f.Pos(3),
			Message: "gate \x1b]0;owned\a\nsecond line",
			Related: []analysis.RelatedInformation{{Pos: f.Pos(60), Message: "see\r\nhere"}},
		}, {
			Pos:      f.Pos(70),
			Message:  "listed",
			Category: string(rule.Check),
		}},
	}
	var out bytes.Buffer
	if err := driver.PrintText(&out, &checker.Graph{Roots: []*checker.Action{act}}, -1, driverText()); err != nil {
		t.Fatal(err)
	}
	want := `evil\x1b[2J.go:1:4: gate \x1b]0;owned\a\nsecond line [a]` + "\n" +
		`evil\x1b[2J.go:2:11: ` + "\t" + `see\r\nhere` + "\n" +
		`evil\x1b[2J.go:2:21: listed [` + rule.ID + `]` + "\n"
	if out.String() != want {
		t.Errorf("printed\n%q\nwant\n%q", out.String(), want)
	}
}
