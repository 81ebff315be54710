package lsp

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// rpcCode is the code of a request's error, 0 for none.
func rpcCode(t *testing.T, err error) int64 {
	t.Helper()
	var e *jsonrpc2.Error
	if err == nil || !asRPCError(err, &e) {
		t.Fatalf("error %v, want a JSON-RPC error", err)
	}
	return e.Code
}

// LSP 3.17's lifecycle: a request before initialize gets
// ServerNotInitialized and a notification is dropped; a second initialize
// and a request after shutdown get InvalidRequest; exit after shutdown
// ends the session without error.
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	early, later := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	writeFile(t, early, "package x\n")
	writeFile(t, later, "package x\n")
	c := connect(t, Options{})
	ctx := context.Background()
	c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(early), Version: 1, Text: "package x\n"}})
	if code := rpcCode(t, c.conn.Call(ctx, "textDocument/codeAction", lspprotocol.CodeActionParams{}, nil)); code != lspprotocol.CodeServerNotInitialized {
		t.Errorf("a request before initialize: code %d, want %d (ServerNotInitialized)", code, lspprotocol.CodeServerNotInitialized)
	}
	var res lspprotocol.InitializeResult
	c.call("initialize", lspprotocol.InitializeParams{RootURI: fileURI(dir)}, &res)
	if code := rpcCode(t, c.conn.Call(ctx, "initialize", lspprotocol.InitializeParams{RootURI: fileURI(dir)}, nil)); code != jsonrpc2.CodeInvalidRequest {
		t.Errorf("a second initialize: code %d, want %d (InvalidRequest)", code, jsonrpc2.CodeInvalidRequest)
	}
	c.notify("initialized", struct{}{})
	// Publication names every open document: the one opened before
	// initialize is not among them (a.go sorts before b.go).
	c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(later), Version: 1, Text: "package x\n"}})
	c.next(fileURI(later), func(ds []lspprotocol.Diagnostic) bool {
		return true
	})
	for len(c.diags) > 0 {
		if p := <-c.diags; p.URI == fileURI(early) {
			t.Errorf("diagnostics for %s, opened before initialize: the notification was kept", early)
		}
	}
	c.call("shutdown", nil, nil)
	if code := rpcCode(t, c.conn.Call(ctx, "textDocument/codeAction", lspprotocol.CodeActionParams{}, nil)); code != jsonrpc2.CodeInvalidRequest {
		t.Errorf("a request after shutdown: code %d, want %d (InvalidRequest)", code, jsonrpc2.CodeInvalidRequest)
	}
	c.notify("exit", nil)
	if err := c.ended(); err != nil {
		t.Errorf("exit after shutdown: %v, want no error (exit code 0)", err)
	}
}

// exit without shutdown, initialized or not, is an error: LSP 3.17 asks
// for exit code 1.
func TestExitWithoutShutdown(t *testing.T) {
	for _, initialize := range []bool{true, false} {
		c := connect(t, Options{})
		if initialize {
			c.call("initialize", lspprotocol.InitializeParams{}, nil)
		}
		c.notify("exit", nil)
		if err := c.ended(); !errors.Is(err, errExitWithoutShutdown) {
			t.Errorf("exit without shutdown (initialized %v): %v, want %v", initialize, err, errExitWithoutShutdown)
		}
	}
}

// frame is one message in the base protocol.
func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body
}

// Each fault in the framing ends the session with one line that names the
// message and the fault (plegvet lsp prints it and exits 1).
func TestFramingFaults(t *testing.T) {
	init := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	for _, tc := range []struct{ name, in, want string }{
		{"length not a number", "Content-Length: abc\r\n\r\n{}", `message 1: Content-Length "abc" is not a number of bytes`},
		{"LF-only headers", init + "Content-Length: 2\n\n{}", `message 2: header line "Content-Length: 2\n" ends with LF alone; want CRLF`},
		{"no length", "Content-Type: text/plain\r\n\r\n{}", "message 1: the headers have no Content-Length"},
		{"stream ends in the headers", "Content-Length: 2\r\n", "message 1: the stream ends inside the headers"},
		{"body shorter than its length", "Content-Length: 100\r\n\r\n" + `{"jsonrpc":"2.0"}`, "message 1: the stream ends after 17 of the body's 100 bytes (its Content-Length)"},
		{"length shorter than the object", "Content-Length: 10\r\n\r\n" + `{"jsonrpc":"2.0","method":"initialized"}`, "message 1: Content-Length 10 ends inside the JSON object: the length is shorter than the message"},
		{"length longer than the object", "Content-Length: 40\r\n\r\n" + `{"jsonrpc":"2.0","method":"x"}` + frame(`{"jsonrpc":"2.0","method":"exit"}`), "message 1: the JSON object ends at byte 30 of Content-Length 40: the length is longer than the message"},
		{"not an object", frame("42"), `message 1: the body is not a JSON object (it starts with "42")`},
		{"batch", init + frame(`[{"jsonrpc":"2.0","method":"initialized","params":{}}]`), "message 2: the body is a JSON array (a batch); LSP sends one JSON object a message, and batches are not supported"},
		{"not JSON-RPC", frame(`{"hello":1}`), "message 1: the JSON object is not a JSON-RPC message"},
		{"a 10 GB length", "Content-Length: 10000000000\r\n\r\n{", "message 1: the stream ends after 1 of the body's 10000000000 bytes (its Content-Length)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Serve(context.Background(), strings.NewReader(tc.in), nopCloser{io.Discard}, Options{})
			var fe *lspprotocol.FrameError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Serve: %v, want one line with %q", err, tc.want)
			}
		})
	}
	// A stream that ends between messages is a client gone: no fault.
	if err := Serve(context.Background(), strings.NewReader(init), nopCloser{io.Discard}, Options{}); err != nil {
		t.Errorf("a stream ending after a whole message: %v, want no error", err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
