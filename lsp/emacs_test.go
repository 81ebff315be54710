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
)

// A second real editor, Emacs with eglot (Debian's emacs-nox and
// elpa-eglot: Emacs 28, eglot 1.9) in batch mode, drives the same
// session as TestNeovim: plegvet's diagnostic through flymake, the quick
// fix applied and the diagnostic gone, an unsaved edit that does not
// parse reported as an error, and the server exiting with 0 on shutdown
// and exit. The file on disk is never written.
func TestEmacsEglot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plegvet and runs emacs")
	}
	emacs := debianTool(t, "emacs", hasEglot, "emacs-nox", "elpa-eglot")
	bin := plegvetBinary(t)
	root := writeTree(t)
	file := filepath.Join(root, "pkg", "features", "features.go")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	driver, err := filepath.Abs(filepath.Join("testdata", "drive.el"))
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q", "-l", driver)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LSP_CMD="+bin, "LSP_FILE="+file, "LSP_OUT="+result)
	cmd.WaitDelay = 5 * time.Second
	output, runErr := cmd.CombinedOutput()
	data, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("emacs wrote no result (%v): %v\n%s", runErr, err, output)
	}
	type diag struct {
		Line       int
		Type, Text string
	}
	var got struct {
		Steps    []string
		Error    string
		Opened   []diag
		Fixed    string
		Broken   []diag
		Modified bool
		Exit     *int
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if runErr != nil || got.Error != "" {
		t.Fatalf("emacs: %v; the session stopped after %v: %s\n%s", runErr, got.Steps, got.Error, output)
	}
	if len(got.Opened) != 1 || got.Opened[0].Line != 11 || got.Opened[0].Type != "eglot-warning" || !strings.Contains(got.Opened[0].Text, "[featuregate/alpha-default-on]") {
		t.Errorf("opened: %+v, want one warning featuregate/alpha-default-on on line 11", got.Opened)
	}
	if !strings.Contains(got.Fixed, "Default: false, PreRelease: featuregate.Alpha") {
		t.Errorf("the quick fix gave:\n%s", got.Fixed)
	}
	// The edit appends "const Broken =": the error is past the original text.
	if after := strings.Count(string(orig), "\n") + 1; !got.Modified || len(got.Broken) == 0 || got.Broken[0].Line <= after {
		t.Errorf("broken: %+v, modified %t: want an error after line %d for the unsaved edit", got.Broken, got.Modified, after)
	}
	if got.Exit == nil || *got.Exit != 0 {
		t.Errorf("the server's exit status after shutdown and exit: %v, want 0", got.Exit)
	}
	if now, _ := os.ReadFile(file); string(now) != string(orig) {
		t.Error("the file on disk changed: the server must read the buffer, not write the file")
	}
}

// hasEglot says whether an emacs loads eglot the way testdata/drive.el
// does (an Emacs without Debian's elpa-eglot does not).
func hasEglot(emacs string) bool {
	probe := `(progn (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa") (package-initialize) (require 'eglot))`
	return exec.Command(emacs, "--batch", "-Q", "--eval", probe).Run() == nil
}
