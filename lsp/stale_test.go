package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// An analysis that a change overtakes is not published, nor offers its
// fixes: diagnostics are labelled with the version analysed, and a code
// action asked between the change and its analysis offers nothing (the
// fix was for the text before).
func TestStaleResults(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/m\n\ngo 1.26\n")
	file := filepath.Join(root, "m", "m.go")
	if err := os.Mkdir(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	uri := fileURI(file)
	// The analyzer reports the file's first comment, with a fix that
	// rewrites it, and waits for the test before it reports.
	entered, release := make(chan string, 10), make(chan struct{})
	marker := &analysis.Analyzer{Name: "marker", Doc: "reports the first comment", Run: func(pass *analysis.Pass) (any, error) {
		for _, f := range pass.Files {
			c := f.Comments[0].List[0]
			entered <- c.Text
			<-release
			pass.Report(analysis.Diagnostic{Pos: c.Pos(), End: c.End(), Message: c.Text, SuggestedFixes: []analysis.SuggestedFix{{
				Message: "fix " + c.Text, TextEdits: []analysis.TextEdit{{Pos: c.Pos(), End: c.End(), NewText: []byte("// fixed")}},
			}}})
		}
		return nil, nil
	}}
	c := startWith(t, root, Options{Analyzers: []*analysis.Analyzer{marker}, FromSource: func(string) bool { return false }})
	t.Cleanup(func() { close(release) }) // before the server's cleanup
	text := func(comment string) string { return "package m\n\n" + comment + "\nvar X = 1\n" }
	comment := lspprotocol.Range{Start: lspprotocol.Position{Line: 2}, End: lspprotocol.Position{Line: 2, Character: 5}}
	actions := func() []lspprotocol.CodeAction {
		var out []lspprotocol.CodeAction
		c.call("textDocument/codeAction", lspprotocol.CodeActionParams{TextDocument: lspprotocol.TextDocumentIdentifier{URI: uri}, Range: comment}, &out)
		return out
	}

	c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: uri, LanguageID: "go", Version: 1, Text: text("// v1")}})
	if got := <-entered; got != "// v1" {
		t.Fatalf("first analysis of %q", got)
	}
	c.notify("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: uri, Version: 2}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: text("// v2 is longer")}}})
	actions() // the change is handled once this answers
	release <- struct{}{}
	if got := <-entered; got != "// v2 is longer" {
		t.Fatalf("second analysis of %q", got)
	}
	// v1's analysis has ended: what it published came before this answer.
	if fixes := actions(); len(fixes) != 0 {
		t.Errorf("code actions on version 2 while its analysis runs: %+v, want none (they fix version 1's text)", fixes)
	}
	for len(c.diags) > 0 {
		p := <-c.diags
		for _, d := range p.Diagnostics {
			if d.Message == "// v1" && (p.Version == nil || *p.Version != 1) {
				t.Errorf("version 1's diagnostic published as version %v", versionOf(p))
			}
		}
	}

	release <- struct{}{}
	diags := c.next(uri, func(ds []lspprotocol.Diagnostic) bool { return len(ds) > 0 })
	if diags[0].Message != "// v2 is longer" {
		t.Errorf("published %q, want version 2's", diags[0].Message)
	}
	if fixes := actions(); len(fixes) != 1 || fixes[0].Title != "fix // v2 is longer" {
		t.Errorf("code actions %+v, want version 2's fix", fixes)
	}
}

func versionOf(p lspprotocol.PublishDiagnosticsParams) string {
	if p.Version == nil {
		return "none"
	}
	return strconv.Itoa(*p.Version)
}
