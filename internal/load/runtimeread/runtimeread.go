// Package runtimeread answers whether a container runtime's CRI server
// streams container events, from the runtime's own Go module: the
// answer of plegvet runtime and of the node verdict's runtime.
package runtimeread

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/runtimestream"
)

// Known are the runtimes Streams fetches: their names as runtimes report
// them.
func Known() []string {
	var out []string
	for _, r := range runtimestream.Runtimes() {
		out = append(out, r.Name)
	}
	return out
}

// Errors of Streams, for errors.Is (plegvet re-exports them).
var (
	// ErrRuntimeMismatch: the version's "NAME://" names another runtime.
	ErrRuntimeMismatch = errors.New("the version names another runtime")
	// ErrNoRuntime: neither the name nor the version names a runtime.
	ErrNoRuntime = errors.New("no runtime named")
)

// Streams fetches the runtime's Go module at the release (or Go
// pseudo-version) a version as runtimes report it names, and says whether
// its CRI server streams container events (plegvet.RuntimeStreams).
// timeout bounds each run of the go command.
func Streams(ctx context.Context, name, version string, timeout time.Duration) (*answer.RuntimeReport, error) {
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
		return nil, fmt.Errorf("version %q: %w; give the runtime's name (%s) or a version such as containerd://1.7.27", version, ErrNoRuntime, strings.Join(Known(), ", "))
	}
	rep.Runtime = name
	rt, ok := runtimestream.Lookup(name)
	if !ok {
		rep.Why = fmt.Sprintf("plegvet does not know the runtime %q: it reads %s; whether it streams container events is unknown", name, strings.Join(Known(), " and "))
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
	dir, err := Fetch(ctx, rep.Module, mapped.ModuleVersion, timeout)
	if errors.Is(err, ErrNoSuchVersion) {
		rep.Why = taken + ": " + err.Error() + "; whether it streams container events is unknown"
		return rep, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := ReadModule(ctx, dir, rep.Module)
	if err != nil {
		return nil, err
	}
	if err := CheckAPI(ctx, res, timeout); err != nil {
		return nil, err
	}
	fill(rep, res, rep.Module+"@"+mapped.ModuleVersion, taken)
	return rep, nil
}

// StreamsDir reads the runtime module rooted at dir instead of fetching
// one (plegvet.RuntimeStreamsDir).
func StreamsDir(ctx context.Context, name, dir string, timeout time.Duration) (*answer.RuntimeReport, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	res, err := Read(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := CheckAPI(ctx, res, timeout); err != nil {
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

func newRuntimeReport(name, version string) *answer.RuntimeReport {
	return &answer.RuntimeReport{
		SchemaVersion: answer.SchemaVersion,
		Source:        answer.Source{Load: answer.Load{Mode: "none", Modelled: []string{}, Problems: []string{}, Unfollowed: []string{}}},
		Runtime:       name,
		Version:       version,
		Servers:       []answer.RuntimeServer{},
	}
}

// checkName refuses a runtime's name longer than runtimestream.MaxVersionLen,
// quoting only its beginning.
func checkName(name string) error {
	if len(name) > runtimestream.MaxVersionLen {
		return fmt.Errorf("runtime name %s: longer than %d bytes", runtimestream.QuoteShort(name), runtimestream.MaxVersionLen)
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
func fill(rep *answer.RuntimeReport, res *runtimestream.Result, dir, taken string) {
	rep.CRIAPI = res.CRIAPI
	rep.Source = answer.Source{Dir: dir, Load: answer.Load{Mode: "source", Modelled: res.Modelled, Stubbed: len(res.Stubbed), Problems: res.Problems, Unfollowed: []string{}}}
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
