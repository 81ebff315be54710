package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/plegvet/plegvet/internal/render"
)

// Every command's text fits the terminal: rendered at 80 and at 100
// columns (COLUMNS), each output is its golden file
// (testdata/fit/NAME.COLS.txt; UPDATE_GOLDEN=1 rewrites them, review the
// diff), and no line is wider than the width but a lone word (a position,
// a URL) too wide for the width even hung 4 columns in.
func TestFitsTheWidth(t *testing.T) {
	tree, err := filepath.Abs(filepath.Join("..", "..", "testdata", "src", "k8s.io", "kubernetes"))
	if err != nil {
		t.Fatal(err)
	}
	capture, err := filepath.Abs(filepath.Join("..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "pleg-unhealthy"))
	if err != nil {
		t.Fatal(err)
	}
	runtimes := lookAlikeRuntimes(t)
	cases := []struct {
		name, dir string
		args      []string
	}{
		{"help", "", []string{"help"}},
		{"help-report", "", []string{"help", "report"}},
		{"report", tree, []string{"report"}},
		{"periods", tree, []string{"periods"}},
		{"rpc", tree, []string{"rpc"}},
		{"gates", tree, []string{"gates"}},
		{"node", capture, []string{"node", "-configz", "configz.json", "-metrics", "066.txt"}},
		{"runtime", runtimes, []string{"runtime", "-C", "crio"}},
	}
	for _, width := range []int{80, 100} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%d", c.name, width), func(t *testing.T) {
				t.Setenv("COLUMNS", fmt.Sprint(width))
				if c.dir != "" {
					t.Chdir(c.dir)
				}
				var stdout, stderr bytes.Buffer
				dispatch(c.args, &stdout, &stderr)
				if stdout.Len() == 0 {
					t.Fatalf("plegvet %s printed nothing; stderr %s", strings.Join(c.args, " "), stderr.String())
				}
				for i, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
					if !fits(line, width) {
						t.Errorf("line %d is %d columns wide, over %d:\n%s", i+1, render.Columns(line), width, line)
					}
				}
				checkGoldenFile(t, filepath.Join(fitDir, fmt.Sprintf("%s.%d.txt", c.name, width)), stdout.Bytes())
			})
		}
	}
}

// fits reports whether a line fits width columns, or is one word too
// wide to fit even 4 columns in, alone on its line at most 4 columns in.
func fits(line string, width int) bool {
	if render.Columns(line) <= width {
		return true
	}
	word := strings.TrimLeft(line, " \t")
	return !strings.ContainsAny(word, " \t") && render.Columns(line)-render.Columns(word) <= 4 && render.Columns(word)+4 > width
}

// lookAlikeRuntimes writes runtime.txtar's look-alike runtime modules to
// a directory, and returns it.
func lookAlikeRuntimes(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "runtime.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "crio/") {
			continue
		}
		name := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fitDir is testdata/fit, absolute: the tests change directory.
var fitDir = func() string {
	d, err := filepath.Abs(filepath.Join("testdata", "fit"))
	if err != nil {
		panic(err)
	}
	return d
}()
