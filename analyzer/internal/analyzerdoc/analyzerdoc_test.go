package analyzerdoc

import (
	"strings"
	"testing"
)

const doc = `// Package x does things.
//
// # Analyzer x
//
// x: find things
//
// The x analyzer finds things. Its checks:
//
//   - first-check: one line.
//   - second-check, third-check: two checks,
//     one text.
//   - Not a check: capitals.
//   - long-check: a text that goes on
//     over two lines.
//
// After the list.
//
//   - -flag=1 is not a check either.
package x
`

func TestExtract(t *testing.T) {
	got := Extract(doc, "x")
	if !strings.HasPrefix(got, "find things\n\nThe x analyzer") || strings.Contains(got, "# Analyzer") {
		t.Errorf("Extract = %q", got)
	}
}

func TestChecks(t *testing.T) {
	var got []string
	for _, c := range Checks(Extract(doc, "x")) {
		got = append(got, string(c.Check)+"="+c.Text)
	}
	want := "first-check=one line.|second-check=two checks, one text.|third-check=two checks, one text.|long-check=a text that goes on over two lines."
	if strings.Join(got, "|") != want {
		t.Errorf("Checks = %q\nwant %q", strings.Join(got, "|"), want)
	}
}

func TestExtractPanicsWithoutSection(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a missing section")
		}
	}()
	Extract(doc, "y")
}
