package runtimestream

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"
)

// Runtime is a container runtime whose Go module plegvet knows how to
// fetch and read.
type Runtime struct {
	// Name is the name the runtime reports as runtimeName (crictl
	// version) and before "://" in a node's containerRuntimeVersion.
	Name string
	// Aliases are other names a user may type for it.
	Aliases []string
	// Module is the module path of major versions 0 and 1; major N >= 2
	// lives at Module/vN, as for every Go module.
	Module string
}

// Runtimes returns the runtimes plegvet reads, a new slice on each call.
// Another runtime is not an error: CRI is open, and plegvet says it does
// not know it.
func Runtimes() []Runtime {
	return []Runtime{
		{Name: "containerd", Module: "github.com/containerd/containerd"},
		{Name: "cri-o", Aliases: []string{"crio"}, Module: "github.com/cri-o/cri-o"},
	}
}

// Lookup finds a runtime by its name or an alias, ignoring case and
// surrounding space.
func Lookup(name string) (Runtime, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, r := range Runtimes() {
		if n == r.Name {
			return r, true
		}
		for _, a := range r.Aliases {
			if n == a {
				return r, true
			}
		}
	}
	return Runtime{}, false
}

// ModulePath is the module that holds the runtime's source at a module
// version (canonical semver, as MapVersion returns it).
func (r Runtime) ModulePath(moduleVersion string) string {
	switch m := semver.Major(moduleVersion); m {
	case "", "v0", "v1":
		return r.Module
	default:
		return r.Module + "/" + m
	}
}

// ErrNotAVersion: a version string that names no release of a runtime,
// even after its distribution's suffix is dropped.
var ErrNotAVersion = errors.New("not a runtime version")

// Reported is a version as a runtime or a node reports it, read.
type Reported struct {
	// Runtime is the name before "://" ("containerd" in a node's
	// containerRuntimeVersion containerd://1.7.27); "" when there is none.
	Runtime string
	// ModuleVersion is the upstream release, as the module proxy names
	// it: v1.6.20 for 1.6.20~ds1.
	ModuleVersion string
	// Dropped is what was taken off as the distribution's: "~ds1",
	// "-1ubuntu1", "2:" (an epoch); "" when nothing was.
	Dropped string
}

// MapVersion reads a runtime version as runtimes and nodes report it
// (v1.7.27, 1.6.20~ds1, 2.1.4-1ubuntu1, containerd://1.7.27) and returns
// the upstream module version it was built from. What a distribution adds
// is dropped: an epoch ("1:"), everything from '~' or '+', and a '-'
// suffix that is not an upstream pre-release (alpha, beta, rc: 2.0.0-rc.1
// keeps it). What is left must be a full semantic version, as
// golang.org/x/mod/semver reads it: 1.7 names no release.
func MapVersion(s string) (Reported, error) {
	var r Reported
	rest := strings.TrimSpace(s)
	if name, after, ok := strings.Cut(rest, "://"); ok {
		if name == "" {
			return Reported{}, fmt.Errorf("%q: %w: no runtime name before \"://\"", s, ErrNotAVersion)
		}
		r.Runtime, rest = name, after
	}
	// What is dropped, in the order the text has it: an epoch, a '-'
	// suffix, then what follows '~' or '+'.
	var epoch, dash, tail string
	if e, after, ok := strings.Cut(rest, ":"); ok && e != "" && strings.Trim(e, "0123456789") == "" {
		epoch, rest = e+":", after
	}
	rest = strings.TrimPrefix(rest, "v")
	if i := strings.IndexAny(rest, "~+"); i >= 0 {
		rest, tail = rest[:i], rest[i:]
	}
	if core, pre, ok := strings.Cut(rest, "-"); ok && !upstreamPre(pre) {
		rest, dash = core, "-"+pre
	}
	v := "v" + rest
	if rest == "" || !semver.IsValid(v) || semver.Canonical(v) != v {
		return Reported{}, fmt.Errorf("%q: %w; want MAJOR.MINOR.PATCH, such as 1.7.27 or v2.1.4, maybe with a distribution's suffix (1.6.20~ds1, 2.1.4-1ubuntu1)", s, ErrNotAVersion)
	}
	r.ModuleVersion = v
	r.Dropped = epoch + dash + tail
	return r, nil
}

// upstreamPre reports whether a '-' suffix is an upstream pre-release,
// as containerd and CRI-O tag them (2.0.0-rc.1, 1.7.0-beta.3), rather
// than a distribution's revision (1ubuntu1, 1.el9, k3s1).
func upstreamPre(pre string) bool {
	for _, word := range []string{"alpha", "beta", "rc"} {
		if after, ok := strings.CutPrefix(pre, word); ok && (after == "" || after[0] == '.' || after[0] >= '0' && after[0] <= '9') {
			return true
		}
	}
	return false
}
