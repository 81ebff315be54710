package lsp

import (
	"errors"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
)

// lifecycle is where a session is in LSP 3.17's: initialize first, then
// any request until shutdown, then exit.
type lifecycle int

const (
	uninitialized lifecycle = iota
	running
	shutDown
)

// admit applies the lifecycle to a message other than exit: whether it
// is handled, and else the error that answers a request (a notification
// out of turn is dropped).
func (s *server) admit(req *jsonrpc2.Request) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.state == uninitialized && req.Method == "initialize":
		s.state = running
	case s.state == uninitialized && req.Notif:
		return false, nil
	case s.state == uninitialized:
		return false, &jsonrpc2.Error{Code: lspprotocol.CodeServerNotInitialized, Message: req.Method + " before initialize: the server is not initialized"}
	case req.Method == "initialize":
		return false, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "initialize again: the server was initialized already"}
	case s.state == shutDown && req.Notif:
		return false, nil
	case s.state == shutDown:
		return false, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: req.Method + " after shutdown: only exit is expected"}
	case req.Method == "shutdown":
		s.state = shutDown
	}
	return true, nil
}

// errExitWithoutShutdown ends a session whose client sent exit before
// shutdown: LSP 3.17 asks for exit code 1 then.
var errExitWithoutShutdown = errors.New("the client sent exit without shutdown first (LSP 3.17: exit code 1)")

// exit ends the session, in error without a shutdown first.
func (s *server) exit(conn *jsonrpc2.Conn) {
	s.mu.Lock()
	if s.state != shutDown {
		s.exitErr = errExitWithoutShutdown
	}
	s.mu.Unlock()
	go conn.Close() // after this notification's handling returns
}
