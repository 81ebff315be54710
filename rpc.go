package plegvet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/check/rpcstream"
	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/internal/gosig"
	"github.com/plegvet/plegvet/internal/runtimeread"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
	"github.com/plegvet/plegvet/plegperiods"
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
func EventStream(ctx context.Context, opts Options) (*RPCReport, error) {
	if opts.Proto != "" && opts.Dir == "" && opts.Kubernetes == "" {
		t := &tree.Tree{Dir: absPath(".")}
		src := Source{Load: Load{Mode: "proto only", Modelled: []string{}, Problems: []string{}}}
		rep, _, err := readStream(t, src, opts.Proto)
		return rep, err
	}
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	rep, pf, err := readStream(t, src, opts.Proto)
	if err != nil {
		return nil, err
	}
	if t.PackageDir(t.Module+"/"+PlegPackage) == "" {
		return rep, nil // no evented PLEG to link
	}
	a, err := analyse(ctx, t, src, isCRIAPIPackage, PlegPackage)
	if err != nil {
		return nil, err
	}
	rep.Source = a.src
	return rep, linkStream(a, rep, pf)
}

// protoUnread is an api.proto that is there but could not be read as the
// CRI API (a syntax error, a duplicate declaration, another package): a
// problem with the tree, not a part it lacks.
type protoUnread struct{ err error }

func (p *protoUnread) Error() string { return p.err.Error() }
func (p *protoUnread) Unwrap() error { return p.err }

// readStream reads the proto: the given file, or the tree's; it returns
// the file read too, for joining with the Go code.
func readStream(t *tree.Tree, src Source, protoFile string) (*RPCReport, *criproto.File, error) {
	if protoFile == "" {
		dir := t.ModuleDir(tree.CRIAPIModule)
		if dir == "" {
			return nil, nil, fmt.Errorf("%s: %w (looked in staging/src/ and vendor/)", src.Dir, ErrNoCRIAPI)
		}
		protoFile = filepath.Join(dir, filepath.FromSlash(criproto.RelativeToRoot))
	}
	// Name the proto as a user types it: relative to the checkout root,
	// or as given when it lies outside the tree.
	display := t.Rel(absPath(protoFile))
	if filepath.IsAbs(filepath.FromSlash(display)) {
		display = filepath.ToSlash(protoFile)
	}
	pf, err := criproto.ReadFileNamed(protoFile, display)
	if err != nil {
		if _, statErr := os.Lstat(protoFile); statErr == nil {
			return nil, nil, &protoUnread{err}
		}
		return nil, nil, err
	}
	// Not the API the kubelet calls: no rpc of it can be judged.
	if err := pf.CheckRuntimeService(); err != nil {
		return nil, nil, &protoUnread{err}
	}
	rep := &RPCReport{SchemaVersion: SchemaVersion, Source: src, Proto: display, Diagnostics: []Diagnostic{}}
	if ev, ok := pf.FindEvents(); ok {
		rep.RPC = &RPC{
			RPC: ev.RPC, RequestFields: protoFields(ev.Request), ResponseFields: protoFields(ev.Response),
			EventTypes: append([]EventType{}, ev.EventTypes...), GoCalls: []Pos{},
		}
	}
	return rep, pf, nil
}

// linkStream joins the evented PLEG's calls of the stream (the pleg
// analyzer's outcome on the pleg package) with the proto.
func linkStream(a *analysed, rep *RPCReport, pf *criproto.File) error {
	out, err := a.outcome(pleg.Analyzer, PlegPackage)
	if err != nil {
		return err
	}
	var calls []plegperiods.StreamCall
	for _, c := range out.Result.(*pleg.Result).Constructors {
		if c.Kind == plegperiods.Evented {
			calls = append(calls, c.StreamCalls...)
		}
	}
	for i := range calls {
		if w := gosig.WrittenMethod(a.res.Packages, calls[i].Method); w != "" {
			calls[i].Method = w
		}
	}
	rep.Diagnostics = rpcstream.Join(rep, pf, calls)
	return nil
}

// isCRIAPIPackage picks the CRI client API, loaded from source when the
// tree (or the fetched k8s.io/cri-api module) holds it, so the Go method's
// signature is known.
func isCRIAPIPackage(importPath string) bool { return suite.Stream().FromSource(importPath) }

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func protoFields(m *criproto.Message) []ProtoField {
	if m == nil {
		return []ProtoField{}
	}
	return append([]ProtoField{}, m.Fields...)
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
func RuntimeStreams(ctx context.Context, name, version string, fetch FetchOptions) (*RuntimeReport, error) {
	return runtimeread.Streams(ctx, name, version, fetch.Timeout)
}

// RuntimeStreamsDir reads the runtime module rooted at dir (a checkout, a
// fork) instead of fetching one. name labels the answer; "" names the
// runtime by the module's path when plegvet knows it. Only a module with
// no CRI server of its own makes it run the go command (for the
// k8s.io/cri-api its go.mod requires), as fetch says.
func RuntimeStreamsDir(ctx context.Context, name, dir string, fetch FetchOptions) (*RuntimeReport, error) {
	return runtimeread.StreamsDir(ctx, name, dir, fetch.Timeout)
}
