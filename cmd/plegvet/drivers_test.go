package main

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fixtureGroups are the analyzers' fixtures under testdata/src (GOPATH
// layout, written for analysistest), each copied into a module under
// fixtures/ by fixtureModule.
var fixtureGroups = []string{"gatefixes", "gaterules", "gateshapes", "kubeletforks", "newtree", "notes", "oldtree", "registrations"}

// fixtureModule lays out every analyzer fixture as one module shaped like
// a checkout: module k8s.io/kubernetes (the look-alike pkg/features,
// pkg/kubelet and pkg/kubelet/pleg), the look-alike staging modules
// replaced in go.mod, and each fixture group under fixtures/GROUP, its
// imports of other fixtures rewritten to their new paths.
func fixtureModule(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "src"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rewrite := func(data []byte) []byte {
		for _, g := range fixtureGroups {
			data = bytes.ReplaceAll(data, []byte(`"`+g+`/`), []byte(`"k8s.io/kubernetes/fixtures/`+g+`/`))
		}
		return data
	}
	copyGo := func(from, to string) {
		err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			rel, _ := filepath.Rel(from, path)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out := filepath.Join(to, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, rewrite(data), 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	staging := []string{"apimachinery", "apiserver", "component-base"}
	var req, repl strings.Builder
	for _, m := range staging {
		req.WriteString("\tk8s.io/" + m + " v0.0.0\n")
		repl.WriteString("\tk8s.io/" + m + " => ./staging/src/k8s.io/" + m + "\n")
		copyGo(filepath.Join(src, "k8s.io", m), filepath.Join(dir, "staging", "src", "k8s.io", m))
		write(filepath.Join("staging", "src", "k8s.io", m, "go.mod"), "module k8s.io/"+m+"\n\ngo 1.26\n")
	}
	write("go.mod", "module k8s.io/kubernetes\n\ngo 1.26\n\nrequire (\n"+req.String()+")\n\nreplace (\n"+repl.String()+")\n")
	copyGo(filepath.Join(src, "k8s.io", "kubernetes", "pkg"), filepath.Join(dir, "pkg"))
	for _, g := range fixtureGroups {
		copyGo(filepath.Join(src, g), filepath.Join(dir, "fixtures", g))
	}
	return dir
}

// copyOf copies a directory (for -fix, which writes).
func copyOf(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	copyTree(t, from, to)
	return to
}

// treeFiles reads every file of a tree, by path relative to it.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// outcome is one run of the binary: its output with the run's directory
// written $DIR, its exit status, and the files it left.
type outcome struct {
	stdout, stderr string
	code           int
	sarif          string
	files          map[string]string
}

// runPlegvet runs the plegvet the test binary installed (see TestMain) in
// dir, with PLEGVET_FULL_DRIVER=driver ("" for the lean path).
func runPlegvet(t *testing.T, dir, driver string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command("plegvet", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "PWD="+dir, fullDriverEnv+"="+driver)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("plegvet %s: %v", strings.Join(args, " "), err)
	}
	norm := func(s string) string { return strings.ReplaceAll(s, dir, "$DIR") }
	o := outcome{stdout: norm(stdout.String()), stderr: norm(stderr.String()), code: code}
	if data, err := os.ReadFile(filepath.Join(dir, "out.sarif")); err == nil {
		o.sarif = string(data)
		os.Remove(filepath.Join(dir, "out.sarif"))
	}
	return o
}

// applyDiff applies a unified diff, as plegvet's -diff (go-internal/diff:
// "diff a/FILE b/FILE", "--- a/FILE", "+++ b/FILE") or multichecker's
// (x/tools: "--- $DIR/FILE (old)", "+++ $DIR/FILE (new)") prints it, to
// files (by path relative to the run's directory), and returns the files
// after it, with the names of those it changed. Every context and removed
// line must match the file.
func applyDiff(t *testing.T, files map[string]string, text string) (after map[string]string, changed []string) {
	t.Helper()
	after = maps.Clone(files)
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	fileName := func(header string) string {
		n := strings.TrimSuffix(strings.TrimSuffix(header[4:], "\n"), " (old)")
		if rel, ok := strings.CutPrefix(n, "$DIR/"); ok {
			return rel
		}
		return strings.TrimPrefix(n, "a/")
	}
	hunkStart := regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@`)
	for i := 0; i < len(lines); {
		switch {
		case strings.HasPrefix(lines[i], "diff "):
			i++
			continue
		case !strings.HasPrefix(lines[i], "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ "):
			t.Fatalf("diff line %d: want a file header, got %q", i+1, lines[i])
		}
		name := fileName(lines[i])
		content, ok := files[name]
		if !ok {
			t.Fatalf("the diff names %s, not in the tree", name)
		}
		old := strings.SplitAfter(content, "\n")
		if old[len(old)-1] == "" {
			old = old[:len(old)-1]
		}
		var out strings.Builder
		at := 0 // old[:at] is done
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "@@ "); {
			m := hunkStart.FindStringSubmatch(lines[i])
			if m == nil {
				t.Fatalf("diff line %d: bad hunk header %q", i+1, lines[i])
			}
			i++
			var body []string
			oldCount := 0
			for ; i < len(lines) && lines[i] != "" && strings.ContainsRune(" -+\\", rune(lines[i][0])) && !strings.HasPrefix(lines[i], "--- ") && !strings.HasPrefix(lines[i], "diff "); i++ {
				if lines[i][0] == '\\' {
					t.Fatalf("%s: a file without a final newline: not handled here", name)
				}
				body = append(body, lines[i])
				if lines[i][0] != '+' {
					oldCount++
				}
			}
			from, _ := strconv.Atoi(m[1])
			if oldCount > 0 {
				from-- // the first old line of the hunk; else the line it follows
			}
			if from < at || from > len(old) {
				t.Fatalf("%s: hunk %q out of order or range", name, m[0])
			}
			out.WriteString(strings.Join(old[at:from], ""))
			for _, l := range body {
				if l[0] != '+' {
					if from >= len(old) || old[from] != l[1:] {
						t.Fatalf("%s: the diff's line %q is not the file's line %d", name, l, from+1)
					}
					from++
				}
				if l[0] != '-' {
					out.WriteString(l[1:])
				}
			}
			at = from
		}
		out.WriteString(strings.Join(old[at:], ""))
		after[name] = out.String()
		changed = append(changed, name)
	}
	return after, changed
}

// TestDriversAgree runs every mode on the analyzers' fixtures through the
// lean driver, the full driver (PLEGVET_FULL_DRIVER=1) and x/tools' own
// multichecker (PLEGVET_FULL_DRIVER=multichecker, with -test=false, as
// plegvet ran before). The lean and full drivers must agree byte for byte
// in every mode (findings, JSON, SARIF, -diff, the files -fix writes);
// plegvet and multichecker too, but for -diff, whose text differs (see
// driver.go): there both diffs are applied to the fixtures, and must give
// the same files, the ones -fix writes. Where plegvet deliberately
// differs from multichecker (findings exit 3 with -json and -diff; -fix
// prints what it could not fix) the test says so.
func TestDriversAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command and the full driver many times")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := fixtureModule(t)

	// The lean loading answers here (no fallback).
	if o := runPlegvet(t, dir, "", "-debug=v", "./..."); !strings.Contains(o.stderr, "plegvet: lean driver:") {
		t.Fatalf("the fixture module did not run on the lean path:\n%s", o.stderr)
	}

	patterns := [][]string{{"./..."}, {"./pkg/..."}}
	for _, g := range fixtureGroups {
		patterns = append(patterns, []string{"./fixtures/" + g + "/..."})
	}
	modes := [][]string{
		nil,
		{"-c=1"},
		{"-json"},
		{"-sarif", "out.sarif"},
		{"-fix", "-diff"},
		{"-pleg.note", "-json"},
		{"-pleg.note", "-c=0"},
		{"-featuregate.alpha-default-exempt=EagerAlpha,AlphaOn", "-pleg=false", "-json"},
		{"-featuregate", "-fix", "-diff"},
	}
	findings, diffsApplied := 0, 0
	for i, pat := range patterns {
		for j, mode := range modes {
			if i > 0 && j > 0 && !slices.Contains(mode, "-json") {
				continue // every mode on ./...; plain and -json on each part
			}
			args := append(append([]string(nil), mode...), pat...)
			name := strings.Join(args, " ")
			t.Run(name, func(t *testing.T) {
				lean := runPlegvet(t, dir, "", args...)
				full := runPlegvet(t, dir, "1", args...)
				if lean.stdout != full.stdout || lean.stderr != full.stderr || lean.code != full.code || lean.sarif != full.sarif {
					t.Errorf("lean and full drivers differ:\nlean (exit %d):\n%s%s%s\nfull (exit %d):\n%s%s%s", lean.code, lean.stdout, lean.stderr, lean.sarif, full.code, full.stdout, full.stderr, full.sarif)
				}
				if lean.code == exitFailure {
					t.Errorf("exit 1 on the fixtures:\n%s", lean.stderr)
				}
				if lean.code == exitFindings {
					findings++
				}
				if strings.Contains(name, "-sarif") {
					return // multichecker has no -sarif
				}
				mc := runPlegvet(t, dir, "multichecker", append([]string{"-test=false"}, args...)...)
				want := lean
				switch {
				case strings.Contains(name, "-fix"):
					// -diff: findings still stand; multichecker prints
					// the diff only and exits 0. The diffs' texts differ;
					// what they change must not.
					want.stderr = ""
					want.code = 0
					before := treeFiles(t, dir)
					leanAfter, leanChanged := applyDiff(t, before, lean.stdout)
					mcAfter, mcChanged := applyDiff(t, before, mc.stdout)
					if !slices.Equal(leanChanged, mcChanged) {
						t.Errorf("-diff: plegvet changes %q, multichecker %q", leanChanged, mcChanged)
					}
					for _, f := range mcChanged {
						if leanAfter[f] != mcAfter[f] {
							t.Errorf("%s: plegvet's and multichecker's -diff make different files:\n%s\n---\n%s", f, leanAfter[f], mcAfter[f])
						}
					}
					if len(leanChanged) > 0 {
						diffsApplied++
					}
					want.stdout = mc.stdout
				case strings.Contains(name, "-json"):
					want.code = 0 // multichecker: -json exits 0 with findings
				}
				if mc.stdout != want.stdout || mc.stderr != want.stderr || mc.code != want.code {
					t.Errorf("plegvet and multichecker differ:\nplegvet (exit %d, want %d from multichecker):\n%s%s\nmultichecker (exit %d):\n%s%s", lean.code, want.code, lean.stdout, lean.stderr, mc.code, mc.stdout, mc.stderr)
				}
			})
		}
	}
	if findings == 0 {
		t.Error("no run had findings: the comparison compared nothing")
	}
	if diffsApplied == 0 {
		t.Error("no -diff changed a file: the comparison of diffs compared nothing")
	}

	// -fix writes the same files, through each driver.
	for _, pat := range [][]string{{"./..."}, {"./fixtures/gatefixes/..."}} {
		t.Run("-fix "+pat[0], func(t *testing.T) {
			var trees []map[string]string
			var outs []outcome
			for _, driver := range []string{"", "1", "multichecker"} {
				d := copyOf(t, dir)
				args := append([]string{"-fix"}, pat...)
				if driver == "multichecker" {
					args = append([]string{"-test=false"}, args...)
				}
				o := runPlegvet(t, d, driver, args...)
				o.files = treeFiles(t, d)
				outs = append(outs, o)
				trees = append(trees, o.files)
			}
			before := treeFiles(t, dir)
			for i, name := range []string{"full", "multichecker"} {
				for f, content := range trees[0] {
					if trees[i+1][f] != content {
						t.Errorf("%s: lean -fix and %s -fix wrote different content:\n%s\n---\n%s", f, name, content, trees[i+1][f])
					}
				}
			}
			if outs[0].stderr != outs[1].stderr || outs[0].code != outs[1].code {
				t.Errorf("-fix: lean (exit %d):\n%s\nfull (exit %d):\n%s", outs[0].code, outs[0].stderr, outs[1].code, outs[1].stderr)
			}
			// -diff shows what -fix writes.
			d := runPlegvet(t, dir, "", append([]string{"-diff"}, pat...)...)
			after, _ := applyDiff(t, treeFiles(t, dir), d.stdout)
			for f, content := range trees[0] {
				if after[f] != content {
					t.Errorf("%s: -diff shows another change than -fix writes:\n%s\n---\n%s", f, after[f], content)
				}
			}
			changed := 0
			for f := range before {
				if before[f] != trees[0][f] {
					changed++
				}
			}
			if pat[0] == "./..." && changed == 0 {
				t.Error("-fix ./... changed no file: the comparison compared nothing")
			}
		})
	}
}

// TestFixtureOnLeanPath guards the comparison above: the fixture module
// must not silently fall back to the full driver for any pattern.
func TestFixtureOnLeanPath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := fixtureModule(t)
	for _, g := range append([]string{"pkg"}, fixtureGroups...) {
		pat := "./" + g + "/..."
		if g != "pkg" {
			pat = "./fixtures/" + g + "/..."
		}
		o := runPlegvet(t, dir, "", "-debug=v", pat)
		if !regexp.MustCompile(`plegvet: lean driver: [1-9]`).MatchString(o.stderr) {
			t.Errorf("%s: not analysed on the lean path:\n%s", pat, o.stderr)
		}
	}
}
