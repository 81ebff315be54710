package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/internal/testkit/debiantool"
)

// plegvetBinary builds plegvet for an editor to start.
func plegvetBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "plegvet")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/plegvet").CombinedOutput(); err != nil {
		t.Fatalf("building plegvet: %v\n%s", err, out)
	}
	return bin
}

// A real editor, neovim run headless, drives plegvet lsp through a
// session on the look-alike: diagnostics with the check's name, a quick
// fix applied to the buffer and the diagnostics gone, an unsaved edit that
// does not parse reported as an error, the server stopped cleanly. The
// file on disk is never written.
func TestNeovim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plegvet and runs neovim")
	}
	nvim := debiantool.Find(t, "nvim", nil, "neovim")
	run := driveEditor(t, nvim, "drive.lua", func(driver string) []string {
		return []string{"--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile " + driver}
	})
	data, runErr, stderr := run.data, run.err, run.output
	type diag struct {
		Lnum, Col, Severity int
		Code, Source        string
		Message             string
	}
	var got struct {
		Steps    []string
		Error    string
		Opened   []diag
		Fixed    []string
		Broken   []diag
		Modified bool
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if runErr != nil || got.Error != "" {
		t.Fatalf("nvim: %v; the session stopped after %v: %s\n%s", runErr, got.Steps, got.Error, stderr)
	}
	if d := got.Opened[0]; d.Code != "featuregate/alpha-default-on" || d.Source != "plegvet" || d.Lnum != 10 {
		t.Errorf("opened: %+v, want featuregate/alpha-default-on from plegvet on line 11", d)
	}
	if !strings.Contains(strings.Join(got.Fixed, "\n"), "Default: false, PreRelease: featuregate.Alpha") {
		t.Errorf("the quick fix gave:\n%s", strings.Join(got.Fixed, "\n"))
	}
	if !got.Modified || len(got.Broken) == 0 {
		t.Errorf("broken: %+v, modified %t: want an error for the unsaved edit", got.Broken, got.Modified)
	}
	run.unwritten(t)
}

// editorRun is what an editor's drive of a session on the look-alike
// left: its result file's content, its exit and output, and the file it
// edited with that file's content before.
type editorRun struct {
	data, output []byte
	err          error
	file         string
	orig         []byte
}

// driveEditor builds plegvet and runs an editor on the look-alike with
// testdata/DRIVER (args gives the editor's command line for the driver's
// absolute path): the driver reads LSP_CMD, LSP_ROOT, LSP_FILE and
// writes its result as JSON to LSP_OUT.
func driveEditor(t *testing.T, editor, driver string, args func(driver string) []string) editorRun {
	t.Helper()
	bin := plegvetBinary(t)
	root := writeTree(t)
	run := editorRun{file: filepath.Join(root, "pkg", "features", "features.go")}
	var err error
	if run.orig, err = os.ReadFile(run.file); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join("testdata", driver))
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, editor, args(abs)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LSP_CMD="+bin, "LSP_ROOT="+root, "LSP_FILE="+run.file, "LSP_OUT="+result)
	cmd.WaitDelay = 5 * time.Second
	run.output, run.err = cmd.CombinedOutput()
	if run.data, err = os.ReadFile(result); err != nil {
		t.Fatalf("%s wrote no result (%v): %v\n%s", filepath.Base(editor), run.err, err, run.output)
	}
	return run
}

// unwritten checks the edited file on disk is as it was: the server reads
// the editor's buffer and never writes a file.
func (r editorRun) unwritten(t *testing.T) {
	t.Helper()
	if now, _ := os.ReadFile(r.file); string(now) != string(r.orig) {
		t.Error("the file on disk changed: the server must read the buffer, not write the file")
	}
}
