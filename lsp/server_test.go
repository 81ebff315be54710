package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/tools/txtar"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// writeTree writes testdata/tree.txtar into a new directory.
func writeTree(t *testing.T) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "tree.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir
}

// client is a test's end of the protocol: it sends as an editor does and
// keeps what the server publishes.
type client struct {
	t      *testing.T
	conn   *jsonrpc2.Conn
	stream *rawStream // conn's, which notifyText writes to as well
	diags  chan lspprotocol.PublishDiagnosticsParams
	logs   chan string
	regs   chan lspprotocol.RegistrationParams
	done   chan struct{}
	err    error // Serve's, once done is closed
}

func rule(category string) (string, string, string, bool) {
	g, doc, ok := suite.Rule(category)
	if !ok {
		return "", "", "", false
	}
	return g.Name + "/" + category, string(doc.Severity), g.URL, true
}

func start(t *testing.T, root string) *client {
	t.Helper()
	return startWith(t, root, Options{Analyzers: suite.Defaults(), Rule: rule, FromSource: suite.FromSource})
}

func startWith(t *testing.T, root string, opts Options) *client {
	t.Helper()
	c := connect(t, opts)
	var res lspprotocol.InitializeResult
	init := lspprotocol.InitializeParams{RootURI: fileURI(root)}
	init.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration = true
	c.call("initialize", init, &res)
	if res.Capabilities.TextDocumentSync.Change != lspprotocol.SyncFull || res.Capabilities.PositionEncoding != "utf-16" {
		t.Fatalf("capabilities %+v", res.Capabilities)
	}
	c.notify("initialized", struct{}{})
	return c
}

// connect starts a server and a client on its pipes, not initialized.
func connect(t *testing.T, opts Options) *client {
	t.Helper()
	// OS pipes, as an editor's: buffered, so that each side's reader may
	// write a response while the other writes a request (io.Pipe, with no
	// buffer, deadlocks there).
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, diags: make(chan lspprotocol.PublishDiagnosticsParams, 100), logs: make(chan string, 100), regs: make(chan lspprotocol.RegistrationParams, 10), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = Serve(context.Background(), serverIn, serverOut, opts)
		serverOut.Close()
	}()
	c.stream = &rawStream{ObjectStream: jsonrpc2.NewBufferedStream(readWriteCloser{clientIn, clientOut}, jsonrpc2.VSCodeObjectCodec{}), w: clientOut}
	c.conn = jsonrpc2.NewConn(context.Background(), c.stream, jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		switch req.Method {
		case "textDocument/publishDiagnostics":
			var p lspprotocol.PublishDiagnosticsParams
			if err := json.Unmarshal(*req.Params, &p); err != nil {
				t.Errorf("publishDiagnostics: %v", err)
			}
			if p.Diagnostics == nil {
				t.Errorf("publishDiagnostics for %s: diagnostics null, want []", p.URI)
			}
			c.diags <- p
		case "window/logMessage":
			var p lspprotocol.LogMessageParams
			_ = json.Unmarshal(*req.Params, &p)
			c.logs <- p.Message
		case "client/registerCapability":
			var p lspprotocol.RegistrationParams
			_ = json.Unmarshal(*req.Params, &p)
			c.regs <- p
		}
		return nil, nil
	}))
	t.Cleanup(func() { c.conn.Close(); clientOut.Close(); <-c.done; serverIn.Close(); clientIn.Close() })
	return c
}

// ended waits for the server to end, and returns Serve's error.
func (c *client) ended() error {
	c.t.Helper()
	select {
	case <-c.done:
		return c.err
	case <-time.After(time.Minute):
		c.t.Fatal("the server did not end")
		return nil
	}
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// textMarker stands in a notification's params for the text notifyText
// puts there.
const textMarker = "\x00text\x00"

// notifyText sends a notification as notify does, with text in place of
// the one textMarker in params. The message is framed here, in one
// buffer, as jsonrpc2's codec frames it: jsonrpc2 would marshal the
// params, then compact and copy them again into the message, which for a
// text of 16 MiB or more is seconds of the test's CPU spent on the
// client's side. The server reads the same bytes either way.
func (c *client) notifyText(method string, params any, text string) {
	c.t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	marker, _ := json.Marshal(textMarker)
	before, after, ok := bytes.Cut(p, marker)
	if !ok || bytes.Contains(after, marker) {
		c.t.Fatalf("%s: want the params to hold the text marker once: %s", method, p)
	}
	quoted, err := json.Marshal(text)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	head, _ := json.Marshal(method)
	var body bytes.Buffer
	body.Grow(len(p) + len(quoted) + 64)
	body.WriteString(`{"jsonrpc":"2.0","method":`)
	body.Write(head)
	body.WriteString(`,"params":`)
	body.Write(before)
	body.Write(quoted)
	body.Write(after)
	body.WriteString("}")
	if err := c.stream.writeRaw(body.Bytes()); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// rawStream is the client's ObjectStream, which also writes a message
// framed by the caller; one lock orders both kinds of write.
type rawStream struct {
	jsonrpc2.ObjectStream
	mu sync.Mutex
	w  io.Writer // under the ObjectStream, which flushes after each object
}

func (s *rawStream) WriteObject(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ObjectStream.WriteObject(obj)
}

// writeRaw writes body as one message, with the Content-Length header
// jsonrpc2.VSCodeObjectCodec writes.
func (s *rawStream) writeRaw(body []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err := s.w.Write(body)
	return err
}

// next waits for the diagnostics published for uri that satisfy ok.
func (c *client) next(uri string, ok func([]lspprotocol.Diagnostic) bool) []lspprotocol.Diagnostic {
	c.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri && ok(p.Diagnostics) {
				return p.Diagnostics
			}
		case m := <-c.logs:
			c.t.Logf("server log: %s", m)
		case <-deadline:
			c.t.Fatalf("no diagnostics as wanted for %s", uri)
		}
	}
}

// An editor's session on the look-alike: open a features file, see the
// Alpha gate's finding with its check, severity, link and range; take its
// quick fix; see it gone; type something that does not parse and see
// that, the server still serving; close; shut down and exit.
func TestSession(t *testing.T) {
	root := writeTree(t)
	file := filepath.Join(root, "pkg", "features", "features.go")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	uri := fileURI(file)
	c := start(t, root)
	c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: uri, LanguageID: "go", Version: 1, Text: string(text)}})
	diags := c.next(uri, func(ds []lspprotocol.Diagnostic) bool { return len(ds) > 0 })
	d := diags[0]
	if d.Code != "featuregate/alpha-default-on" || d.Source != "plegvet" || d.Severity != lspprotocol.SeverityWarning || d.CodeDescription == nil || !strings.HasPrefix(d.CodeDescription.Href, "https://") {
		t.Errorf("diagnostic %+v: want featuregate/alpha-default-on, a warning from plegvet with its documentation", d)
	}
	lines := strings.Split(string(text), "\n")
	if want := (lspprotocol.Position{Line: 10, Character: 2}); d.Range.Start != want || !strings.Contains(lines[d.Range.Start.Line], "Default: true") {
		t.Errorf("range starts at %+v, want %+v", d.Range.Start, want)
	}

	var actions []lspprotocol.CodeAction
	c.call("textDocument/codeAction", lspprotocol.CodeActionParams{TextDocument: lspprotocol.TextDocumentIdentifier{URI: uri}, Range: d.Range, Context: lspprotocol.CodeActionContext{Diagnostics: diags}}, &actions)
	if len(actions) == 0 || actions[0].Kind != lspprotocol.CodeActionQuickFix || actions[0].Edit == nil || len(actions[0].Edit.Changes[uri]) == 0 {
		t.Fatalf("code actions %+v: want a quick fix editing %s", actions, uri)
	}
	fixed := string(text)
	for _, e := range actions[0].Edit.Changes[uri] {
		fixed = apply(fixed, lspprotocol.TextDocumentContentChangeEvent{Range: &e.Range, Text: e.NewText})
	}
	if !strings.Contains(fixed, "Default: false, PreRelease: featuregate.Alpha") {
		t.Fatalf("the fix gives:\n%s", fixed)
	}
	c.notify("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: uri, Version: 5}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: fixed}}})
	c.next(uri, func(ds []lspprotocol.Diagnostic) bool { return len(ds) == 0 })

	broken := strings.Replace(fixed, "const Eager", "const Eager =", 1)
	c.notify("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: uri, Version: 6}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: broken}}})
	bad := c.next(uri, func(ds []lspprotocol.Diagnostic) bool { return len(ds) > 0 })
	if bad[0].Severity != lspprotocol.SeverityError {
		t.Errorf("a file that does not parse: %+v, want an error", bad[0])
	}
	// The file on disk is as it was: the server reads the buffer.
	if now, _ := os.ReadFile(file); string(now) != string(text) {
		t.Error("the server wrote the file")
	}

	c.notify("textDocument/didClose", lspprotocol.DidCloseTextDocumentParams{TextDocument: lspprotocol.TextDocumentIdentifier{URI: uri}})
	c.call("shutdown", nil, nil)
	c.notify("exit", nil)
	if err := c.ended(); err != nil {
		t.Errorf("exit after shutdown: %v, want no error (exit code 0)", err)
	}
}

// A client that goes away without shutting down ends the session without
// an error; an unknown request gets MethodNotFound and the server serves on.
func TestDisconnect(t *testing.T) {
	c := start(t, t.TempDir())
	err := c.conn.Call(context.Background(), "textDocument/hover", struct{}{}, nil)
	var rpcErr *jsonrpc2.Error
	if !asRPCError(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Errorf("hover: %v, want MethodNotFound", err)
	}
	c.conn.Close()
	if err := c.ended(); err != nil {
		t.Errorf("a client gone without shutdown: %v, want no error", err)
	}
}

func asRPCError(err error, target **jsonrpc2.Error) bool {
	e, ok := err.(*jsonrpc2.Error)
	if ok {
		*target = e
	}
	return ok
}

// A directory that is no Kubernetes tree, nor any module: its file is
// analysed as the go command takes it (a package of its own), nothing is
// found, and the server serves on; a file that does not parse there is
// reported as an error.
func TestNotATree(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "x.go")
	writeFile(t, file, "package x\n")
	c := start(t, root)
	c.notify("textDocument/didOpen", lspprotocol.DidOpenTextDocumentParams{TextDocument: lspprotocol.TextDocumentItem{URI: fileURI(file), LanguageID: "go", Version: 1, Text: "package x\n"}})
	c.next(fileURI(file), func(ds []lspprotocol.Diagnostic) bool { return len(ds) == 0 })
	c.notify("textDocument/didChange", lspprotocol.DidChangeTextDocumentParams{TextDocument: lspprotocol.VersionedTextDocumentIdentifier{URI: fileURI(file), Version: 2}, ContentChanges: []lspprotocol.TextDocumentContentChangeEvent{{Text: "package x\n\nfunc {\n"}}})
	c.next(fileURI(file), func(ds []lspprotocol.Diagnostic) bool {
		return len(ds) > 0 && ds[0].Severity == lspprotocol.SeverityError
	})
	var actions []lspprotocol.CodeAction
	c.call("textDocument/codeAction", lspprotocol.CodeActionParams{TextDocument: lspprotocol.TextDocumentIdentifier{URI: fileURI(file)}}, &actions)
	if actions == nil || len(actions) != 0 {
		t.Errorf("code actions %v, want []", actions)
	}
}

// Positions: byte columns to UTF-16 and back, past characters of two
// units; edits applied at UTF-16 positions.
func TestUTF16(t *testing.T) {
	l := lineSource{open: map[string]string{"f.go": "a\n𝔾é = 1\n"}, read: map[string][]string{}}
	if got := l.position("f.go", 2, len("𝔾é")+1); got != (lspprotocol.Position{Line: 1, Character: 3}) {
		t.Errorf("position %+v, want line 1 character 3", got)
	}
	r := lspprotocol.Range{Start: lspprotocol.Position{Line: 1, Character: 3}, End: lspprotocol.Position{Line: 1, Character: 5}}
	if got := apply("a\n𝔾é = 1\n", lspprotocol.TextDocumentContentChangeEvent{Range: &r, Text: ":="}); got != "a\n𝔾é:= 1\n" {
		t.Errorf("apply: %q", got)
	}
}
