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

	"github.com/plegvet/plegvet/internal/frontend/driver"
)

// fixtureGroups are the analyzers' fixtures under testdata/src (GOPATH
// layout, written for analysistest), each copied into a module under
// fixtures/ by fixtureModule.
var fixtureGroups = []string{"gatefixes", "gaterules", "gateshapes", "kubeletforks", "newtree", "notes", "oldtree", "registrations"}

// illTypedFixtures use a name their imports do not declare, on purpose
// (a fork's undeclared gate, a map key naming nothing): go vet refuses
// such a package, and the lean loader hands it to the go/packages one.
// fixtureModule leaves them out; TestDriversAgree adds them last.
var illTypedFixtures = []string{"gateshapes/undefinedkey", "kubeletforks/undeclaredgate"}

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
			for _, bad := range illTypedFixtures {
				if strings.HasPrefix(filepath.ToSlash(path), filepath.ToSlash(filepath.Join(src, bad))+"/") {
					return nil
				}
			}
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
// dir, with PLEGVET_FULL_DRIVER=full ("1" forces the go/packages
// loader).
func runPlegvet(t *testing.T, dir, full string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command("plegvet", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "PWD="+dir, driver.FullDriverEnv+"="+full)
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

// applyDiff applies a unified diff, as go fix -diff (x/tools: "---
// $DIR/FILE (old)", "+++ $DIR/FILE (new)") prints it, to
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
		return strings.TrimPrefix(strings.TrimSuffix(header[4:], " (old)\n"), "$DIR/")
	}
	hunkStart := regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@`)
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "--- ") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "+++ ") {
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
			for ; i < len(lines) && lines[i] != "" && strings.ContainsRune(" -+\\", rune(lines[i][0])) && !strings.HasPrefix(lines[i], "--- "); i++ {
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
// lean loader and the go/packages one (PLEGVET_FULL_DRIVER=1): the same
// checker and printers must print the same, byte for byte (findings,
// JSON, SARIF, -diff and what it leaves). Then -fix: the files go fix
// writes are the ones -diff shows.
func TestDriversAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command and the go/packages loader many times")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := fixtureModule(t)

	// The lean loading answers here (no fallback).
	if o := runPlegvet(t, dir, "", "-debug=v", "./..."); !strings.Contains(o.stderr, "plegvet: lean loader:") {
		t.Fatalf("the fixture module did not run on the lean loader:\n%s", o.stderr)
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
		{"-diff"},
		{"-pleg.note", "-json"},
		{"-pleg.note", "-c=0"},
		{"-featuregate.alpha-default-exempt=EagerAlpha,AlphaOn", "-pleg=false", "-json"},
		{"-featuregate", "-diff"},
	}
	findings := 0
	for i, pat := range patterns {
		for j, mode := range modes {
			if i > 0 && j > 0 && !slices.Contains(mode, "-json") {
				continue // every mode on ./...; plain and -json on each part
			}
			args := append(append([]string(nil), mode...), pat...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				lean := runPlegvet(t, dir, "", args...)
				full := runPlegvet(t, dir, "1", args...)
				if slices.Contains(mode, "-diff") {
					// go fix prints each package's diff as its vet
					// action ends, in no fixed order: compare the files
					// the diffs make.
					lean.stdout, full.stdout = appliedDiff(t, dir, lean.stdout), appliedDiff(t, dir, full.stdout)
				}
				if lean.stdout != full.stdout || lean.stderr != full.stderr || lean.code != full.code || lean.sarif != full.sarif {
					t.Errorf("the lean and go/packages loaders differ:\nlean (exit %d):\n%s%s%s\ngo/packages (exit %d):\n%s%s%s", lean.code, lean.stdout, lean.stderr, lean.sarif, full.code, full.stdout, full.stderr, full.sarif)
				}
				if lean.code == exitFailure {
					t.Errorf("exit 1 on the fixtures:\n%s", lean.stderr)
				}
				if lean.code == exitFindings {
					findings++
				}
			})
		}
	}
	if findings == 0 {
		t.Error("no run had findings: the comparison compared nothing")
	}

	// An ill-typed package: both loaders name its error, exit 1.
	for _, bad := range illTypedFixtures {
		from := filepath.Join("..", "..", "testdata", "src", bad)
		err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(from, path)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, g := range fixtureGroups {
				data = bytes.ReplaceAll(data, []byte(`"`+g+`/`), []byte(`"k8s.io/kubernetes/fixtures/`+g+`/`))
			}
			out := filepath.Join(dir, "fixtures", bad, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			return os.WriteFile(out, data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
		lean := runPlegvet(t, dir, "", "./fixtures/"+bad+"/...")
		full := runPlegvet(t, dir, "1", "./fixtures/"+bad+"/...")
		if lean.stdout != full.stdout || lean.stderr != full.stderr || lean.code != full.code || lean.code != exitFailure {
			t.Errorf("%s: lean (exit %d)\n%s%s\ngo/packages (exit %d)\n%s%s\nwant both alike, exit 1", bad, lean.code, lean.stdout, lean.stderr, full.code, full.stdout, full.stderr)
		}
		if err := os.RemoveAll(filepath.Join(dir, "fixtures", bad)); err != nil {
			t.Fatal(err)
		}
	}

	// -fix writes what -diff shows.
	for _, pat := range []string{"./...", "./fixtures/gatefixes/..."} {
		t.Run("-fix "+pat, func(t *testing.T) {
			d := copyOf(t, dir)
			before := treeFiles(t, d)
			diff := runPlegvet(t, d, "", "-diff", pat)
			want, changed := applyDiff(t, before, diff.stdout)
			if pat == "./..." && len(changed) == 0 {
				t.Error("-diff ./... changes no file: the comparison compared nothing")
			}
			fix := runPlegvet(t, d, "", "-fix", pat)
			if fix.code == exitFailure {
				t.Fatalf("-fix failed:\n%s", fix.stderr)
			}
			for f, content := range treeFiles(t, d) {
				if want[f] != content {
					t.Errorf("%s: -fix wrote another change than -diff shows:\n%s\n---\n%s", f, content, want[f])
				}
			}
		})
	}
}

// appliedDiff is the files a diff changes, as they are after it, sorted
// by name: what a diff means, whatever the order of its files.
func appliedDiff(t *testing.T, dir, diff string) string {
	after, changed := applyDiff(t, treeFiles(t, dir), diff)
	slices.Sort(changed)
	var b strings.Builder
	for _, f := range changed {
		b.WriteString("-- " + f + " --\n" + after[f])
	}
	return b.String()
}

// TestFixtureOnLeanPath guards the comparison above: the fixture module
// must not silently fall back to the go/packages loader for any pattern.
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
		if !regexp.MustCompile(`plegvet: lean loader: [1-9]`).MatchString(o.stderr) {
			t.Errorf("%s: not analysed on the lean path:\n%s", pat, o.stderr)
		}
	}
}
