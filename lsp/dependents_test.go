package lsp

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// stagingStandIns are the GOPATH-style stand-ins of the analyzers' tests
// (../testdata/src/k8s.io) that the look-alike checkout imports.
var stagingStandIns = []string{"apimachinery", "apiserver", "component-base"}

// lookAlikeModule composes a module the go command loads from the
// repository's fixtures: the look-alike checkout
// (../testdata/src/k8s.io/kubernetes) with the stand-ins as its staging
// modules, each replaced by its directory.
func lookAlikeModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join("..", "testdata", "src", "k8s.io")
	copyTree(t, filepath.Join(src, "kubernetes"), root)
	gomod := "module k8s.io/kubernetes\n\ngo 1.26\n\nrequire (\n"
	for _, m := range stagingStandIns {
		gomod += "\tk8s.io/" + m + " v0.0.0\n"
	}
	gomod += ")\n\nreplace (\n"
	for _, m := range stagingStandIns {
		dir := filepath.Join(root, "staging", "src", "k8s.io", m)
		copyTree(t, filepath.Join(src, m), dir)
		writeFile(t, filepath.Join(dir, "go.mod"), "module k8s.io/"+m+"\n\ngo 1.26\n")
		gomod += "\tk8s.io/" + m + " => ./staging/src/k8s.io/" + m + "\n"
	}
	writeFile(t, filepath.Join(root, "go.mod"), gomod+")\n")
	return root
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// noteSession serves the look-alike module with the pleg analyzer's
// gate-note on (it names the gate's stage and default, read through
// facts), and returns its pkg/features and pkg/kubelet files.
func noteSession(t *testing.T) (c *client, features, kubelet string) {
	t.Helper()
	root := lookAlikeModule(t)
	cfg := suite.DefaultConfig()
	cfg.Pleg.Note = true
	c = startWith(t, root, Options{Analyzers: suite.New(cfg), Rule: rule, FromSource: suite.FromSource})
	return c, filepath.Join(root, "pkg", "features", "kube_features.go"), filepath.Join(root, "pkg", "kubelet", "kubelet.go")
}

// note matches diagnostics holding a gate-note that says want.
func note(want string) func([]lspprotocol.Diagnostic) bool {
	return func(ds []lspprotocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Code == "pleg/gate-note" && strings.Contains(d.Message, want) {
				return true
			}
		}
		return false
	}
}

// An edit to a gate's spec in pkg/features, unsaved, changes what is
// shown for the open pkg/kubelet file, which reads the spec through facts
// (the pleg analyzer's gate-note, turned on here, names the gate's stage
// and default).
func TestDependentsFollowAnEdit(t *testing.T) {
	c, features, kubelet := noteSession(t)
	open := func(path string) string {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(path), LanguageID: "go", Version: 1, Text: string(text)}})
		return string(text)
	}
	featuresText := open(features)
	open(kubelet)
	c.next(fileURI(kubelet), note("EventedPLEG (Alpha, default false)"))

	// The spec, as the buffer now says, not as the file on disk does.
	const before = `{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha}`
	if !strings.Contains(featuresText, before) {
		t.Fatalf("the look-alike's pkg/features has no %s", before)
	}
	edited := strings.Replace(featuresText, before, `{Version: version.MustParse("1.26"), Default: true, PreRelease: featuregate.Beta}`, 1)
	c.notify("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: fileURI(features), Version: 2}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: edited}}})
	c.next(fileURI(kubelet), note("EventedPLEG (Beta, default true)"))
}

// A change on disk to a file that is not open, told by the client's file
// watcher (which the server registers), changes the open files' findings.
func TestWatchedFileChange(t *testing.T) {
	c, features, kubelet := noteSession(t)
	select {
	case r := <-c.regs:
		if len(r.Registrations) != 1 || r.Registrations[0].Method != "workspace/didChangeWatchedFiles" {
			t.Errorf("registrations %+v, want one of workspace/didChangeWatchedFiles", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("the server registered no file watcher")
	}
	text, err := os.ReadFile(kubelet)
	if err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(kubelet), LanguageID: "go", Version: 1, Text: string(text)}})
	c.next(fileURI(kubelet), note("EventedPLEG (Alpha, default false)"))
	spec, err := os.ReadFile(features)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, features, strings.Replace(string(spec), "Default: false, PreRelease: featuregate.Alpha}", "Default: true, PreRelease: featuregate.Beta}", 1))
	c.notify("workspace/didChangeWatchedFiles", lspprotocol.DidChangeWatchedFilesParams{Changes: []lspprotocol.FileEvent{{URI: fileURI(features), Type: 2}}})
	c.next(fileURI(kubelet), note("EventedPLEG (Beta, default true)"))
}
