package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The README's example answer is the command's output: each line it shows
// (those with "..." aside, which stand for lines left out) is printed, in
// that order, by the command it names.
func TestReadmeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads a Kubernetes release")
	}
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "## An answer\n")
	_, block, ok2 := strings.Cut(rest, "```\n$ plegvet ")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md: no example under ## An answer")
	}
	lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
	var stdout, stderr bytes.Buffer
	if code := dispatch(strings.Fields(lines[0]), &stdout, &stderr); code != exitOK {
		t.Fatalf("plegvet %s: exit %d: %s", lines[0], code, stderr.String())
	}
	out := stdout.String()
	for _, l := range lines[1:] {
		switch {
		case strings.Contains(l, "..."):
		default:
			i := strings.Index(out, l+"\n")
			if i < 0 {
				t.Fatalf("the README shows %q, which the command does not print (next) here:\n%s", l, out)
			}
			out = out[i+len(l)+1:]
		}
	}
}
