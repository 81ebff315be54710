package runtimestream

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/mod/module"
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
		if n == r.Name || slices.Contains(r.Aliases, n) {
			return r, true
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

// MaxVersionLen bounds a version string, in bytes. Runtimes report a few
// dozen bytes (1.6.20~ds1-1+deb12u3, a Go pseudo-version with a
// distribution's suffix); a longer string is no version, and is refused
// before anything quotes it whole.
const MaxVersionLen = 128

// QuoteShort quotes s for a message (as %q does): whole when it is at
// most MaxVersionLen bytes; otherwise its first 40 bytes (cut where a
// character begins), "…" and its length, so that an oversized input is
// quoted in bounded space.
func QuoteShort(s string) string {
	if len(s) <= MaxVersionLen {
		return strconv.Quote(s)
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// CheckLength refuses a version longer than MaxVersionLen: an error that
// wraps ErrNotAVersion and quotes only its beginning (QuoteShort).
func CheckLength(s string) error {
	if len(s) > MaxVersionLen {
		return fmt.Errorf("%s: %w: longer than %d bytes", QuoteShort(s), ErrNotAVersion, MaxVersionLen)
	}
	return nil
}

// MapVersion reads a runtime version as runtimes and nodes report it
// (v1.7.27, 1.6.20~ds1, 2.1.4-1ubuntu1, containerd://1.7.27) and returns
// the upstream module version it was built from. What a distribution adds
// is dropped: an epoch ("1:"), everything from '~' or '+', and a '-'
// suffix that is not an upstream pre-release (alpha, beta, rc: 2.0.0-rc.1
// keeps it). What is left must be a full semantic version, as
// golang.org/x/mod/semver reads it: 1.7 names no release.
//
// A Go pseudo-version (v2.0.0-20240101000000-abcdef123456, a runtime
// built from a commit, as the go command names it) is kept whole: it is
// the commit's own module version, which the module proxy serves, and
// the source to read. Its base release (module.PseudoVersionBase) is an
// older commit, and the release its numbers name (v2.0.0 here) a later
// one; neither is what was built. A pseudo-version the go command would
// refuse (v1.7.0-0.20230101000000-abcdef123456, whose base would be
// v1.7.-1) is not a version. A string longer than MaxVersionLen is not
// either (CheckLength).
func MapVersion(s string) (Reported, error) {
	if err := CheckLength(s); err != nil {
		return Reported{}, err
	}
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
	if module.IsPseudoVersion("v" + rest) {
		if err := checkPseudo("v" + rest); err != nil {
			return Reported{}, fmt.Errorf("%q: %w: %w", s, ErrNotAVersion, err)
		}
	} else if core, pre, ok := strings.Cut(rest, "-"); ok && !upstreamPre(pre) {
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

// checkPseudo checks a pseudo-version as the go command would before
// asking a proxy: a base release it can name, a timestamp that is a time.
func checkPseudo(v string) error {
	if _, err := module.PseudoVersionBase(v); err != nil {
		return err
	}
	_, err := module.PseudoVersionTime(v)
	return err
}

// Pseudo describes a pseudo-version for a reader: the commit, its time
// and the release it follows ("a pseudo-version: commit abcdef123456 of
// 2024-01-01 00:00:00 UTC, with no v2 tag before it"). ok is false for a
// version that is not one.
func Pseudo(v string) (words string, ok bool) {
	if !module.IsPseudoVersion(v) || checkPseudo(v) != nil {
		return "", false
	}
	rev, _ := module.PseudoVersionRev(v)
	at, _ := module.PseudoVersionTime(v)
	base, _ := module.PseudoVersionBase(v)
	after := "after " + base
	if base == "" {
		after = "with no " + semver.Major(v) + " tag before it"
	}
	return fmt.Sprintf("a pseudo-version: commit %s of %s, %s", rev, at.UTC().Format("2006-01-02 15:04:05 UTC"), after), true
}
