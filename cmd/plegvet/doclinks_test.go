package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink is a Markdown link's target: [text](TARGET).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of README.md and docs/ names a file or folder of
// the repository: a page moved (as README's parts moved to docs/) leaves
// no link behind it.
func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	files := []string{"README.md"}
	for _, pat := range []string{"docs/*.md", "docs/*/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			files = append(files, rel)
		}
	}
	links := 0
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			}
			if inCode {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target, _, _ := strings.Cut(m[1], "#")
				if target == "" || strings.Contains(target, ":") {
					continue // an anchor of the page, or a URL
				}
				links++
				if _, err := os.Stat(filepath.Join(root, filepath.Dir(file), filepath.FromSlash(target))); err != nil {
					t.Errorf("%s:%d: link to %s: %v", filepath.ToSlash(file), i+1, target, err)
				}
			}
		}
	}
	if links < 50 {
		t.Fatalf("%d relative links in README.md and docs/; the parser lost them", links)
	}
}
