// Package lsp is plegvet's language server: plegvet's findings in an
// editor, where gopls shows its own, as the files are edited. It speaks
// the Language Server Protocol over a stream (stdio for plegvet lsp):
// open, change, save and close of documents, watched-file changes,
// diagnostics with their check's name, severity, documentation link and
// related positions, and quick fixes from the checks' suggested fixes.
//
// Unsaved buffers are analysed as they are. Packages are loaded from the
// tree's source as plegvet's lean driver loads them (internal/engine:
// no go command), and what was parsed and checked is kept between
// changes: a change re-checks the changed package and, among the loaded
// ones, those that import it, so an edit to a gate's spec in pkg/features
// changes the findings shown for an open pkg/kubelet file, which reads
// it through facts, and nothing else is checked again.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/engine"
	"github.com/plegvet/plegvet/internal/lspprotocol"
)

// Options say what the server checks.
type Options struct {
	// Analyzers are run on the packages of the open documents.
	Analyzers []*analysis.Analyzer
	// Rule finds a check's group name, severity and documentation by its
	// category; ok false for a category it does not know.
	Rule func(category string) (id, severity, href string, ok bool)
	// FromSource picks the imports of the open packages that are
	// type-checked from the tree's source (so that their facts and
	// constants reach the open packages); the others are stubbed.
	FromSource func(importPath string) bool
}

// Serve answers one client on in and out until it exits or disconnects,
// or ctx ends. A client that disconnects without shutdown is no error.
func Serve(ctx context.Context, in io.Reader, out io.WriteCloser, opts Options) error {
	s := &server{analyser: &analyser{opts: opts, caches: map[string]*engine.Cache{}}, logged: map[string]bool{}, docs: map[string]*document{}, shown: map[string][]shown{}, dirty: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := jsonrpc2.NewBufferedStream(readWriteCloser{in, out}, jsonrpc2.VSCodeObjectCodec{})
	s.conn = jsonrpc2.NewConn(ctx, stream, jsonrpc2.HandlerWithError(s.handle))
	var worker sync.WaitGroup
	worker.Go(func() { s.work(ctx) })
	select {
	case <-s.conn.DisconnectNotify():
	case <-ctx.Done():
		s.conn.Close()
	}
	cancel()
	worker.Wait()
	return nil
}

// readWriteCloser joins a client's two pipes.
type readWriteCloser struct {
	io.Reader
	io.WriteCloser
}

type server struct {
	conn     *jsonrpc2.Conn
	analyser *analyser       // the worker's
	logged   map[string]bool // the worker's: what it told the log

	mu    sync.Mutex
	watch bool                 // the client watches files when asked
	docs  map[string]*document // open documents, by absolute path
	shown map[string][]shown   // what was last published, by path

	dirty chan struct{} // a change to analyse; holds one at most
}

// document is an open buffer.
type document struct {
	uri     string
	version int
	text    string
}

// shown is a published diagnostic and the fixes a code action offers.
type shown struct {
	diag  lspprotocol.Diagnostic
	fixes []lspprotocol.CodeAction
}

// changed asks the worker to analyse again, once for any number of
// changes that come while it works.
func (s *server) changed() {
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		// A bug in a request's handling is that request's error, not the
		// end of the editor's session.
		if r := recover(); r != nil {
			_ = conn.Notify(ctx, "window/logMessage", lspprotocol.LogMessageParams{Type: lspprotocol.MessageError, Message: fmt.Sprintf("plegvet lsp: %s: %v\n%s", req.Method, r, debug.Stack())})
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprint(r)}
		}
	}()
	switch req.Method {
	case "initialize":
		var p lspprotocol.InitializeParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		s.mu.Lock()
		s.watch = p.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
		s.mu.Unlock()
		return lspprotocol.InitializeResult{
			Capabilities: lspprotocol.ServerCapabilities{
				PositionEncoding:   "utf-16",
				TextDocumentSync:   lspprotocol.TextDocumentSyncOptions{OpenClose: true, Change: lspprotocol.SyncFull, Save: lspprotocol.SaveOptions{}},
				CodeActionProvider: lspprotocol.CodeActionOptions{CodeActionKinds: []string{lspprotocol.CodeActionQuickFix}},
			},
			ServerInfo: lspprotocol.ServerInfo{Name: "plegvet"},
		}, nil
	case "textDocument/didOpen":
		var p lspprotocol.DidOpenTextDocumentParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		if path, ok := filePath(p.TextDocument.URI); ok {
			s.mu.Lock()
			s.docs[path] = &document{uri: p.TextDocument.URI, version: p.TextDocument.Version, text: p.TextDocument.Text}
			s.mu.Unlock()
			s.changed()
		}
	case "textDocument/didChange":
		var p lspprotocol.DidChangeTextDocumentParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		if path, ok := filePath(p.TextDocument.URI); ok {
			s.mu.Lock()
			if d := s.docs[path]; d != nil {
				for _, c := range p.ContentChanges {
					d.text = apply(d.text, c)
				}
				d.version = p.TextDocument.Version
			}
			s.mu.Unlock()
			s.changed()
		}
	case "textDocument/didSave", "workspace/didChangeWatchedFiles":
		s.changed()
	case "textDocument/didClose":
		var p lspprotocol.DidCloseTextDocumentParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		if path, ok := filePath(p.TextDocument.URI); ok {
			s.mu.Lock()
			delete(s.docs, path)
			s.mu.Unlock()
			s.changed()
		}
	case "textDocument/codeAction":
		var p lspprotocol.CodeActionParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		return s.codeActions(p), nil
	case "exit":
		go conn.Close() // after this notification's handling returns
	case "initialized":
		s.mu.Lock()
		watch := s.watch
		s.mu.Unlock()
		if watch {
			// A request to the client waits for its answer, which this
			// handler's connection reads only once the handler returns.
			go s.registerWatchers(ctx, conn)
		}
	case "shutdown", "$/setTrace", "$/cancelRequest":
	default:
		if !req.Notif {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: req.Method + " is not supported"}
		}
	}
	return nil, nil
}

// registerWatchers asks the client to tell of changes to the files that
// decide findings in files that are not open: Go files and go.mod.
func (s *server) registerWatchers(ctx context.Context, conn *jsonrpc2.Conn) {
	params := lspprotocol.RegistrationParams{Registrations: []lspprotocol.Registration{{
		ID:     "plegvet-watch",
		Method: "workspace/didChangeWatchedFiles",
		RegisterOptions: lspprotocol.DidChangeWatchedFilesRegistrationOptions{Watchers: []lspprotocol.FileSystemWatcher{
			{GlobPattern: "**/*.go"}, {GlobPattern: "**/go.mod"},
		}},
	}}}
	if err := conn.Call(ctx, "client/registerCapability", params, nil); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		_ = conn.Notify(ctx, "window/logMessage", lspprotocol.LogMessageParams{Type: lspprotocol.MessageWarning, Message: "plegvet lsp: the client refused to watch files (" + err.Error() + "): a change on disk to a file that is not open is seen at the next edit"})
	}
}

func invalid(err error) error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
}

// log says something to the user through the client's log (from the
// worker, which starts once conn is set).
func (s *server) log(ctx context.Context, kind int, msg string) {
	_ = s.conn.Notify(ctx, "window/logMessage", lspprotocol.LogMessageParams{Type: kind, Message: msg})
}

// filePath is the absolute path a file: URI names.
func filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	p := u.Path
	if len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // /C:/src on Windows
	}
	return filepath.Clean(filepath.FromSlash(p)), true
}

// fileURI is the file: URI of an absolute path.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// work analyses after each change until ctx ends, and publishes.
func (s *server) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.dirty:
		}
		s.mu.Lock()
		open := map[string]string{}
		for path, d := range s.docs {
			open[path] = d.text
		}
		s.mu.Unlock()
		found, logs, err := s.analyser.analyse(ctx, open)
		if ctx.Err() != nil {
			return
		}
		for _, l := range logs {
			if !s.logged[l] { // once a session: every edit would say it again
				s.logged[l] = true
				s.log(ctx, lspprotocol.MessageWarning, l)
			}
		}
		if err != nil {
			// Diagnostics stay as they were; the log says why none came.
			s.log(ctx, lspprotocol.MessageError, "plegvet lsp: "+err.Error())
			continue
		}
		s.publish(ctx, found)
	}
}

// publish sends each file's diagnostics: every file with findings, and
// every file that had some or is open, cleared with [] where none are left.
func (s *server) publish(ctx context.Context, found map[string][]shown) {
	s.mu.Lock()
	paths := slices.AppendSeq(slices.Collect(maps.Keys(found)), maps.Keys(s.shown))
	paths = slices.AppendSeq(paths, maps.Keys(s.docs))
	slices.Sort(paths)
	var sends []lspprotocol.PublishDiagnosticsParams
	for _, p := range slices.Compact(paths) {
		diags := []lspprotocol.Diagnostic{} // never null: [] clears
		for _, sh := range found[p] {
			diags = append(diags, sh.diag)
		}
		params := lspprotocol.PublishDiagnosticsParams{URI: fileURI(p), Diagnostics: diags}
		if d := s.docs[p]; d != nil {
			params.URI = d.uri
			v := d.version
			params.Version = &v
		}
		sends = append(sends, params)
	}
	s.shown = found
	s.mu.Unlock()
	for _, params := range sends {
		if err := s.conn.Notify(ctx, "textDocument/publishDiagnostics", params); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
			return
		}
	}
}

// codeActions are the quick fixes of the findings shown in the range.
func (s *server) codeActions(p lspprotocol.CodeActionParams) []lspprotocol.CodeAction {
	out := []lspprotocol.CodeAction{}
	path, ok := filePath(p.TextDocument.URI)
	if !ok {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sh := range s.shown[path] {
		if overlaps(sh.diag.Range, p.Range) {
			out = append(out, sh.fixes...)
		}
	}
	return out
}

func overlaps(a, b lspprotocol.Range) bool {
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

func before(a, b lspprotocol.Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Character < b.Character
}
