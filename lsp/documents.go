package lsp

import (
	"context"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// MaxMessage caps a message read whole: twice a file's cap, room for a
// buffer of a file's cap as JSON escapes it. A longer message is not
// read into memory (see lspprotocol.Codec).
const MaxMessage = 2 * inputfile.MaxSize

// document is an open buffer.
type document struct {
	uri     string
	version int    // the client's
	rev     uint64 // the server's count of changes: a client may reopen a document at its old version
	text    string
	refused string // why the buffer is not analysed (too large; its text is not kept)
}

// stamp is a document as an analysis saw it.
type stamp struct {
	rev     uint64
	version int
}

// snapshot is the open documents as an analysis saw them, by path.
type snapshot map[string]stamp

// snapshot returns the texts of the open documents to analyse, why the
// others are not analysed, and the documents as they are now.
func (s *server) snapshot() (open, refused map[string]string, seen snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	open, refused, seen = map[string]string{}, map[string]string{}, snapshot{}
	for path, d := range s.docs {
		seen[path] = stamp{rev: d.rev, version: d.version}
		if d.refused != "" {
			refused[path] = d.refused
			continue
		}
		open[path] = d.text
	}
	return open, refused, seen
}

// stale reports whether what an analysis found for a file is out of date:
// the file was opened, changed or closed since (s.mu held).
func (s *server) stale(path string, seen snapshot) bool {
	d := s.docs[path]
	st, was := seen[path]
	return (d != nil) != was || d != nil && d.rev != st.rev
}

// editsStale reports whether a fix edits a document changed since the
// analysis that found it (s.mu held).
func (s *server) editsStale(edit *lspprotocol.WorkspaceEdit, seen snapshot) bool {
	if edit == nil {
		return false
	}
	for uri := range edit.Changes {
		if path, ok := filePath(uri); ok && s.stale(path, seen) {
			return true
		}
	}
	return false
}

func (s *server) didOpen(ctx context.Context, conn *jsonrpc2.Conn, p lspprotocol.DidOpenTextDocumentParams) {
	path, ok := filePath(p.TextDocument.URI)
	if !ok {
		return
	}
	s.mu.Lock()
	d := &document{uri: p.TextDocument.URI, version: p.TextDocument.Version}
	s.docs[path] = d
	refused := s.setText(path, d, p.TextDocument.Text)
	s.mu.Unlock()
	s.refusedLog(ctx, conn, refused)
	s.changed()
}

func (s *server) didChange(ctx context.Context, conn *jsonrpc2.Conn, p lspprotocol.DidChangeTextDocumentParams) {
	path, ok := filePath(p.TextDocument.URI)
	if !ok {
		return
	}
	s.mu.Lock()
	d := s.docs[path]
	var refused string
	if d != nil {
		// A change of a range edits a text that a refused buffer did not
		// keep: it stays refused until a change gives the whole text.
		text, kept := d.text, d.refused == ""
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text, kept = c.Text, true
			} else if kept {
				text = apply(text, c)
			}
		}
		d.version = p.TextDocument.Version
		if kept {
			refused = s.setText(path, d, text)
		} else {
			s.revs++
			d.rev = s.revs
		}
	}
	s.mu.Unlock()
	s.refusedLog(ctx, conn, refused)
	s.changed()
}

// setText sets a document's text, or refuses a buffer larger than a file
// on disk may be, keeping none of it; it returns why (s.mu held).
func (s *server) setText(path string, d *document, text string) (refused string) {
	s.revs++
	d.rev = s.revs
	d.text, d.refused = text, ""
	if len(text) > inputfile.MaxSize {
		d.text = ""
		d.refused = fmt.Sprintf("%s: the buffer is %d bytes, over the %d MiB limit for one file (as for a file on disk); it is not analysed", inputfile.QuoteName(path), len(text), inputfile.MaxSize>>20)
	}
	return d.refused
}

// tooLarge refuses a message over MaxMessage, which was not read: a
// request gets an error, and a document it opens or changes is refused.
func (s *server) tooLarge(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, p lspprotocol.TooLargeParams) error {
	what := fmt.Sprintf("the %s message is %d bytes, over the %d MiB limit for one message", p.Method, p.Length, p.Limit>>20)
	if !req.Notif {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: what + "; it was not read"}
	}
	path, ok := filePath(p.URI)
	if !ok || p.Method != "textDocument/didOpen" && p.Method != "textDocument/didChange" {
		s.refusedLog(ctx, conn, what+"; it is ignored")
		return nil
	}
	why := fmt.Sprintf("%s: %s (a buffer's limit is %d MiB, as for a file on disk); it is not analysed", inputfile.QuoteName(path), what, inputfile.MaxSize>>20)
	s.mu.Lock()
	d := s.docs[path]
	if d == nil && p.Method == "textDocument/didOpen" {
		d = &document{uri: p.URI}
		s.docs[path] = d
	}
	if d != nil {
		s.revs++
		d.rev, d.text, d.refused = s.revs, "", why
		if p.Version != 0 {
			d.version = p.Version
		}
	}
	s.mu.Unlock()
	s.refusedLog(ctx, conn, why)
	s.changed()
	return nil
}

// refusedLog tells the client's log why a message or buffer was refused.
func (s *server) refusedLog(ctx context.Context, conn *jsonrpc2.Conn, why string) {
	if why != "" {
		_ = conn.Notify(ctx, "window/logMessage", lspprotocol.LogMessageParams{Type: lspprotocol.MessageError, Message: "plegvet lsp: " + why})
	}
}
