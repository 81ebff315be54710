// Package rpcstream joins the CRI api.proto's GetContainerEvents with the
// evented PLEG's calls of it, and checks that they agree: where what no
// analysis pass can read (a .proto) meets what the pleg analyzer found.
// The library runs it (plegvet.EventStream, Inspect); its findings are
// the group "rpc" of the suite.
//
//   - rpc-missing: the evented PLEG consumes GetContainerEvents, but the
//     CRI api.proto declares no such rpc.
//   - rpc-not-streaming: the evented PLEG consumes GetContainerEvents as a
//     stream, but the rpc (or the Go method it calls) is unary.
package rpcstream

import (
	_ "embed" // the package comment above, for Checks

	"github.com/plegvet/plegvet/internal/analysis/check"
)

//go:embed doc.go
var docGo string

// The checks, as the bullets above name them.
const (
	Missing      check.Check = "rpc-missing"
	NotStreaming check.Check = "rpc-not-streaming"
)

// Checks are the package's checks and their documentation, from the
// bullets above.
func Checks() []check.Doc { return check.FromPackageDoc(docGo) }
