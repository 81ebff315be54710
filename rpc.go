package plegvet

import (
	"context"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/load/runtimeread"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/runtimestream"
)

// ProtoPath is where a checkout keeps the CRI api.proto.
const ProtoPath = "staging/src/" + tree.CRIAPIModule + "/" + criproto.RelativeToRoot

// EventStream reads the tree's CRI api.proto (or opts.Proto), finds
// runtime.v1.RuntimeService.GetContainerEvents, and joins it with the
// evented PLEG's calls of it. With opts.Proto and neither Dir nor
// Kubernetes set, it reads the proto alone. A proto that is not a regular
// file, is malformed, or lacks package runtime.v1 or service
// RuntimeService is an error.
func EventStream(ctx context.Context, opts Options) (*answer.RPCReport, error) {
	return assemble.EventStream(ctx, opts.internal())
}

// KnownRuntimes are the runtimes RuntimeStreams fetches: their names as
// runtimes report them.
func KnownRuntimes() []string { return runtimeread.Known() }

// Errors of RuntimeStreams, for errors.Is.
var (
	// ErrNotARuntimeVersion: a version that names no release of a known
	// runtime, even without its distribution's suffix.
	ErrNotARuntimeVersion = runtimestream.ErrNotAVersion
	// ErrRuntimeMismatch: the version's "NAME://" names another runtime.
	ErrRuntimeMismatch = runtimeread.ErrRuntimeMismatch
	// ErrNoRuntime: neither the name nor the version names a runtime.
	ErrNoRuntime = runtimeread.ErrNoRuntime
)

// MaxRuntimeVersionLen bounds the version RuntimeStreams takes, and a
// runtime's name, in bytes: a longer one is refused, quoting its first 40
// bytes and its length.
const MaxRuntimeVersionLen = runtimestream.MaxVersionLen

// RuntimeStreams fetches the Go module of the runtime (containerd,
// cri-o) at the upstream release a version as runtimes report it names
// (1.6.20~ds1, v1.7.27, 2.1.4-1ubuntu1, containerd://1.7.27; name may be
// "" when the version says it), or at the Go pseudo-version it is, with
// the user's go command, and says whether its CRI server streams
// container events. A runtime plegvet does not know, or a version the
// module proxy says does not exist (404 Not Found, 410 Gone), is an
// answer whose StreamsEvents is null and whose Why says so, not an error.
//
// A fetch that fails otherwise is an error that wraps ErrProxyRefused, as
// a Kubernetes release's does: GOPROXY=off with the module not in the
// module cache, a proxy that cannot be reached, that refuses or fails;
// nothing is known of the version then. A malformed version of a known
// runtime is an error (ErrNotARuntimeVersion), and so is one longer than
// MaxRuntimeVersionLen, whatever the runtime, quoted only by its
// beginning; and so is a go command that cannot run, times out or is
// stopped. fetch says how the go command runs.
func RuntimeStreams(ctx context.Context, name, version string, fetch FetchOptions) (*answer.RuntimeReport, error) {
	return runtimeread.Streams(ctx, name, version, fetch.Timeout)
}

// RuntimeStreamsDir reads the runtime module rooted at dir (a checkout, a
// fork) instead of fetching one. name labels the answer; "" names the
// runtime by the module's path when plegvet knows it. Only a module with
// no CRI server of its own makes it run the go command (for the
// k8s.io/cri-api its go.mod requires), as fetch says.
func RuntimeStreamsDir(ctx context.Context, name, dir string, fetch FetchOptions) (*answer.RuntimeReport, error) {
	return runtimeread.StreamsDir(ctx, name, dir, fetch.Timeout)
}
