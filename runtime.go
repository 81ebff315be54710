package plegvet

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/runtimestream"
)

// KnownRuntimes are the runtimes RuntimeStreams fetches: their names as
// runtimes report them.
func KnownRuntimes() []string {
	var out []string
	for _, r := range runtimestream.Runtimes() {
		out = append(out, r.Name)
	}
	return out
}

// Errors of RuntimeStreams, for errors.Is.
var (
	// ErrNotARuntimeVersion: a version that names no release of a known
	// runtime, even without its distribution's suffix.
	ErrNotARuntimeVersion = runtimestream.ErrNotAVersion
	// ErrRuntimeMismatch: the version's "NAME://" names another runtime.
	ErrRuntimeMismatch = errors.New("the version names another runtime")
	// ErrNoRuntime: neither the name nor the version names a runtime.
	ErrNoRuntime = errors.New("no runtime named")
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
	if err := checkName(name); err != nil {
		return nil, err
	}
	if err := runtimestream.CheckLength(version); err != nil {
		return nil, fmt.Errorf("version %w", err)
	}
	rep := newRuntimeReport(name, version)
	scheme, _, hasScheme := strings.Cut(strings.TrimSpace(version), "://")
	if hasScheme {
		switch {
		case strings.TrimSpace(name) == "":
			name = scheme
		case !sameRuntime(name, scheme):
			return nil, fmt.Errorf("runtime %q, version %q: %w (%q)", name, version, ErrRuntimeMismatch, scheme)
		}
	}
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("version %q: %w; give the runtime's name (%s) or a version such as containerd://1.7.27", version, ErrNoRuntime, strings.Join(KnownRuntimes(), ", "))
	}
	rep.Runtime = name
	rt, ok := runtimestream.Lookup(name)
	if !ok {
		rep.Why = fmt.Sprintf("plegvet does not know the runtime %q: it reads %s; whether it streams container events is unknown", name, strings.Join(KnownRuntimes(), " and "))
		return rep, nil
	}
	rep.Runtime = rt.Name
	mapped, err := runtimestream.MapVersion(version)
	if err != nil {
		return nil, fmt.Errorf("%s version %w", rt.Name, err)
	}
	rep.ModuleVersion = mapped.ModuleVersion
	rep.Module = rt.ModulePath(mapped.ModuleVersion)
	taken := versionWords(version, rep.Module, mapped)
	dir, err := runtimestream.Fetch(ctx, rep.Module, mapped.ModuleVersion, fetch.Timeout)
	if errors.Is(err, runtimestream.ErrNoSuchVersion) {
		rep.Why = taken + ": " + err.Error() + "; whether it streams container events is unknown"
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := runtimestream.ReadModule(ctx, dir, rep.Module)
	if err != nil {
		return nil, err
	}
	if err := res.CheckAPI(ctx, fetch.Timeout); err != nil {
		return nil, err
	}
	fill(rep, res, rep.Module+"@"+mapped.ModuleVersion, taken)
	return rep, nil
}

// RuntimeStreamsDir reads the runtime module rooted at dir (a checkout, a
// fork) instead of fetching one. name labels the answer; "" names the
// runtime by the module's path when plegvet knows it. Only a module with
// no CRI server of its own makes it run the go command (for the
// k8s.io/cri-api its go.mod requires), as fetch says.
func RuntimeStreamsDir(ctx context.Context, name, dir string, fetch FetchOptions) (*RuntimeReport, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	res, err := runtimestream.Read(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := res.CheckAPI(ctx, fetch.Timeout); err != nil {
		return nil, err
	}
	rep := newRuntimeReport(name, "")
	rep.Module = res.Module
	if name == "" {
		for _, rt := range runtimestream.Runtimes() {
			if res.Module == rt.Module || strings.HasPrefix(res.Module, rt.Module+"/v") {
				rep.Runtime = rt.Name
			}
		}
	} else if rt, ok := runtimestream.Lookup(name); ok {
		rep.Runtime = rt.Name
	}
	fill(rep, res, filepath.ToSlash(filepath.Clean(dir)), "")
	return rep, nil
}

func newRuntimeReport(name, version string) *RuntimeReport {
	return &RuntimeReport{
		SchemaVersion: SchemaVersion,
		Source:        Source{Load: Load{Mode: "none", Modelled: []string{}, Problems: []string{}, Unfollowed: []string{}}},
		Runtime:       name,
		Version:       version,
		Servers:       []RuntimeServer{},
	}
}

// checkName refuses a runtime's name longer than MaxRuntimeVersionLen,
// quoting only its beginning.
func checkName(name string) error {
	if len(name) > MaxRuntimeVersionLen {
		return fmt.Errorf("runtime name %s: longer than %d bytes", runtimestream.QuoteShort(name), MaxRuntimeVersionLen)
	}
	return nil
}

func sameRuntime(a, b string) bool {
	ra, okA := runtimestream.Lookup(a)
	rb, okB := runtimestream.Lookup(b)
	if okA && okB {
		return ra.Name == rb.Name
	}
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// versionWords says which module version a reported version was read as.
func versionWords(version, module string, m runtimestream.Reported) string {
	s := fmt.Sprintf("version %s is %s@%s", strings.TrimSpace(version), module, m.ModuleVersion)
	if words, ok := runtimestream.Pseudo(m.ModuleVersion); ok {
		s += " (" + words + ")"
	}
	if m.Dropped != "" {
		s += fmt.Sprintf(" (%q dropped: a distribution's or a build's suffix, not upstream's)", m.Dropped)
	}
	return s
}

// fill copies what was read into the report.
func fill(rep *RuntimeReport, res *runtimestream.Result, dir, taken string) {
	rep.CRIAPI = res.CRIAPI
	rep.Source = Source{Dir: dir, Load: Load{Mode: "source", Modelled: res.Modelled, Stubbed: len(res.Stubbed), Problems: res.Problems, Unfollowed: []string{}}}
	rep.Servers = append(rep.Servers, res.Servers...)
	rep.StreamsEvents = res.Streams
	if res.Streams != nil {
		p := res.VerdictPos()
		rep.Pos = &p
	}
	why := res.Why
	switch {
	case res.Streams == nil:
	case *res.Streams:
		why += ". An evented PLEG's GetContainerEvents stream gets the runtime's container events."
	default:
		why += ". An evented PLEG's GetContainerEvents stream fails on this runtime: the kubelet retries it, and once its retries are spent gives the stream up; what it relists at then is its release's design (plegvet node and plegvet report say, from the kubelet's source)."
	}
	if taken != "" {
		why = taken + ": " + why
	}
	rep.Why = why
}
