// Package lsp is plegvet's language server: plegvet's findings in an
// editor, where gopls shows its own, as the files are edited. It speaks
// the Language Server Protocol over a stream (stdio for plegvet lsp):
// open, change, save and close of documents, watched-file changes,
// diagnostics with their check's name, severity, documentation link and
// related positions, and quick fixes from the checks' suggested fixes.
//
// Unsaved buffers are analysed as they are. Packages are loaded from the
// tree's source as plegvet's lean driver loads them (internal/load/engine:
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
	"log"
	"maps"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
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
// or ctx ends. A client that disconnects without shutdown is no error; an
// exit without shutdown is (LSP 3.17: exit code 1), and so is a fault in
// the stream's framing (a *lspprotocol.FrameError), after which nothing
// more can be read.
func Serve(ctx context.Context, in io.Reader, out io.WriteCloser, opts Options) error {
	s := &server{analyser: &analyser{opts: opts, caches: map[string]*engine.Cache{}}, logged: map[string]bool{}, docs: map[string]*document{}, shown: map[string]published{}, dirty: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := &faultStream{ObjectStream: jsonrpc2.NewBufferedStream(readWriteCloser{in, out}, &lspprotocol.Codec{MaxLength: MaxMessage})}
	// The connection's own log would print a timestamped line for a fault
	// that Serve returns, and the rest goes to the client's log.
	s.conn = jsonrpc2.NewConn(ctx, stream, jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	var worker sync.WaitGroup
	worker.Go(func() { s.work(ctx) })
	select {
	case <-s.conn.DisconnectNotify():
	case <-ctx.Done():
		s.conn.Close()
	}
	cancel()
	worker.Wait()
	if err := stream.err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitErr
}

// faultStream keeps the fault that ended the reading of messages (the
// connection closes on it without saying what it was).
type faultStream struct {
	jsonrpc2.ObjectStream
	mu    sync.Mutex
	fault error
}

func (f *faultStream) ReadObject(v any) error {
	err := f.ObjectStream.ReadObject(v)
	if err != nil && err != io.EOF {
		f.mu.Lock()
		f.fault = err
		f.mu.Unlock()
	}
	return err
}

func (f *faultStream) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fault
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

	mu      sync.Mutex
	state   lifecycle
	exitErr error                // why the session ended wrongly
	watch   bool                 // the client watches files when asked
	docs    map[string]*document // open documents, by absolute path
	revs    uint64               // changes to documents so far
	shown   map[string]published // what was last published, by path

	dirty chan struct{} // a change to analyse; holds one at most
}

// shown is a published diagnostic and the fixes a code action offers.
type shown struct {
	diag  lspprotocol.Diagnostic
	fixes []lspprotocol.CodeAction
}

// published is what was published for a file, and the documents as the
// analysis that found it saw them.
type published struct {
	seen  snapshot
	items []shown
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
	if req.Method == "exit" {
		s.exit(conn)
		return nil, nil
	}
	if ok, err := s.admit(req); !ok {
		return nil, err
	}
	result, err = s.dispatch(ctx, conn, req)
	if err != nil && req.Notif {
		// No answer carries it: the client's log does.
		_ = conn.Notify(ctx, "window/logMessage", lspprotocol.LogMessageParams{Type: lspprotocol.MessageError, Message: "plegvet lsp: " + req.Method + ": " + err.Error()})
	}
	return result, err
}

func (s *server) dispatch(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
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
		s.didOpen(ctx, conn, p)
	case "textDocument/didChange":
		var p lspprotocol.DidChangeTextDocumentParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		s.didChange(ctx, conn, p)
	case lspprotocol.MethodTooLarge:
		var p lspprotocol.TooLargeParams
		if err := lspprotocol.Params(req.Params, &p); err != nil {
			return nil, invalid(err)
		}
		return nil, s.tooLarge(ctx, conn, req, p)
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
		open, refused, seen := s.snapshot()
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
		for path, why := range refused {
			// What the file on disk gave has no place in the buffer.
			found[path] = []shown{errorFinding(lspprotocol.Position{}, why)}
		}
		s.publish(ctx, found, seen)
	}
}

// publish sends each file's diagnostics: every file with findings, and
// every file that had some or is open, cleared with [] where none are left.
// A document is labelled with the version analysed; one changed, opened
// or closed since is left as it was: the analysis of its change follows.
func (s *server) publish(ctx context.Context, found map[string][]shown, seen snapshot) {
	s.mu.Lock()
	paths := slices.AppendSeq(slices.Collect(maps.Keys(found)), maps.Keys(s.shown))
	paths = slices.AppendSeq(paths, maps.Keys(s.docs))
	slices.Sort(paths)
	var sends []lspprotocol.PublishDiagnosticsParams
	for _, p := range slices.Compact(paths) {
		if s.stale(p, seen) {
			continue
		}
		diags := []lspprotocol.Diagnostic{} // never null: [] clears
		for _, sh := range found[p] {
			diags = append(diags, sh.diag)
		}
		params := lspprotocol.PublishDiagnosticsParams{URI: fileURI(p), Diagnostics: diags}
		if st, ok := seen[p]; ok {
			params.URI = s.docs[p].uri
			v := st.version
			params.Version = &v
		}
		sends = append(sends, params)
		if len(found[p]) == 0 && s.docs[p] == nil {
			delete(s.shown, p)
		} else {
			s.shown[p] = published{seen: seen, items: found[p]}
		}
	}
	s.mu.Unlock()
	for _, params := range sends {
		if err := s.conn.Notify(ctx, "textDocument/publishDiagnostics", params); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
			return
		}
	}
}

// codeActions are the quick fixes of the findings shown in the range,
// from an analysis of the documents as they are now.
func (s *server) codeActions(p lspprotocol.CodeActionParams) []lspprotocol.CodeAction {
	out := []lspprotocol.CodeAction{}
	path, ok := filePath(p.TextDocument.URI)
	if !ok {
		return out
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pub, ok := s.shown[path]
	if !ok || s.stale(path, pub.seen) {
		return out
	}
	for _, sh := range pub.items {
		if !overlaps(sh.diag.Range, p.Range) {
			continue
		}
		for _, fix := range sh.fixes {
			if !s.editsStale(fix.Edit, pub.seen) {
				out = append(out, fix)
			}
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
