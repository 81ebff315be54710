package lsp

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// logged waits for a line of the client's log holding want.
func (c *client) logged(want string) string {
	c.t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case m := <-c.logs:
			if strings.Contains(m, want) {
				return m
			}
		case <-deadline:
			c.t.Fatalf("no log line with %q", want)
			return ""
		}
	}
}

// A buffer larger than a file on disk may be is refused as the file
// would be: one line naming it and the limit, an error on the document,
// and its text not kept; a change to a smaller whole text is analysed.
// A message over MaxMessage is not read: the document it opens is
// refused by name all the same, and the server serves on.
func TestBufferCap(t *testing.T) {
	// No collection but mustKeepNoText's: a cycle that starts while a
	// 16 MiB copy runs spins until the copy ends (the copy cannot be
	// preempted), which was a second of this test's CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	dir := t.TempDir()
	big, huge := filepath.Join(dir, "big.go"), filepath.Join(dir, "huge.go")
	c := start(t, dir)

	text := "package x\n//" + strings.Repeat("a", inputfile.MaxSize) + "\n"
	c.notifyText("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(big), LanguageID: "go", Version: 1, Text: textMarker}}, text)
	want := big + ": the buffer is " + strconv.Itoa(len(text)) + " bytes, over the 16 MiB limit for one file (as for a file on disk); it is not analysed"
	if line := c.logged(big + ": the buffer is"); line != "plegvet lsp: "+want {
		t.Errorf("log %q, want %q", line, "plegvet lsp: "+want)
	}
	diags := c.next(fileURI(big), func(ds []lspprotocol.Diagnostic) bool { return len(ds) > 0 })
	if len(diags) != 1 || diags[0].Message != want || diags[0].Severity != lspprotocol.SeverityError {
		t.Errorf("diagnostics %+v, want one error: %s", diags, want)
	}
	size := len(text)
	text = ""
	c.mustKeepNoText(size)

	c.notify("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: fileURI(big), Version: 2}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: "package x\n\nfunc {\n"}}})
	c.next(fileURI(big), func(ds []lspprotocol.Diagnostic) bool {
		return len(ds) == 1 && strings.HasPrefix(ds[0].Message, "syntax error")
	})
	// A change that makes it too large is refused the same way.
	text = "package x\n//" + strings.Repeat("b", inputfile.MaxSize) + "\n"
	c.notifyText("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: fileURI(big), Version: 3}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: textMarker}}}, text)
	c.logged(big + ": the buffer is")
	c.next(fileURI(big), func(ds []lspprotocol.Diagnostic) bool {
		return len(ds) == 1 && strings.Contains(ds[0].Message, "over the 16 MiB limit for one file")
	})
	text = ""
	c.mustKeepNoText(size)

	text = "package x\n//" + strings.Repeat("a", MaxMessage) + "\n"
	c.notifyText("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(huge), LanguageID: "go", Version: 1, Text: textMarker}}, text)
	line := c.logged(huge + ": the ")
	if !strings.Contains(line, "the textDocument/didOpen message is ") || !strings.Contains(line, "over the 32 MiB limit for one message (a buffer's limit is 16 MiB, as for a file on disk); it is not analysed") {
		t.Errorf("log %q: want the message's size and both limits", line)
	}
	c.next(fileURI(huge), func(ds []lspprotocol.Diagnostic) bool {
		return len(ds) == 1 && ds[0].Message == strings.TrimPrefix(line, "plegvet lsp: ")
	})
	size = len(text)
	text = ""
	c.mustKeepNoText(size)
}

// mustKeepNoText fails if the process holds as much memory as the text
// (the test's client shares it: the test drops its own copy first).
func (c *client) mustKeepNoText(size int) {
	c.t.Helper()
	var m runtime.MemStats
	runtime.GC() // twice: the JSON encoder's pool keeps its buffer one cycle
	runtime.GC()
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > uint64(size) {
		c.t.Errorf("%d bytes in use after the %d-byte buffer was refused: it is kept", m.HeapAlloc, size)
	}
}
