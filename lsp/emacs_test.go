package lsp

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/debiantool"
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
	emacs := debiantool.Find(t, "emacs", hasEglot, "emacs-nox", "elpa-eglot")
	run := driveEditor(t, emacs, "drive.el", func(driver string) []string { return []string{"--batch", "-Q", "-l", driver} })
	data, runErr, output := run.data, run.err, run.output
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
	if after := strings.Count(string(run.orig), "\n") + 1; !got.Modified || len(got.Broken) == 0 || got.Broken[0].Line <= after {
		t.Errorf("broken: %+v, modified %t: want an error after line %d for the unsaved edit", got.Broken, got.Modified, after)
	}
	if got.Exit == nil || *got.Exit != 0 {
		t.Errorf("the server's exit status after shutdown and exit: %v, want 0", got.Exit)
	}
	run.unwritten(t)
}

// hasEglot says whether an emacs loads eglot the way testdata/drive.el
// does (an Emacs without Debian's elpa-eglot does not).
func hasEglot(emacs string) bool {
	probe := `(progn (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa") (package-initialize) (require 'eglot))`
	return exec.Command(emacs, "--batch", "-Q", "--eval", probe).Run() == nil
}
