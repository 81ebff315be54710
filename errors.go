package plegvet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/internal/release"
)

// Errors a library caller can test with errors.Is; the command line adds
// the flag that mends each.
var (
	// ErrKubeletVersionUnknown: the metrics do not say the kubelet's
	// version (no kubernetes_build_info, or a git_version that is not a
	// release, as an unstamped build's v0.0.0-master), NodeOptions.KubeletVersion
	// is not set, and no source (-k8s or -C) says which release to read.
	// With a source, the report says the build's version is unknown and
	// goes on.
	ErrKubeletVersionUnknown = errors.New("the kubelet's version is unknown")
	// ErrNoCRIAPI: the tree holds no k8s.io/cri-api, and Options.Proto
	// names no api.proto.
	ErrNoCRIAPI = errors.New("no k8s.io/cri-api in the tree")
)

// The release errors, for errors.Is: a version that is not a Kubernetes
// release (nor a minor), a version the module proxy does not serve, and
// among those a release after the newest it serves (v1.99.0), whose error
// names that newest.
var (
	ErrNotARelease   = release.ErrNotARelease
	ErrProxyRefused  = release.ErrProxyRefused
	ErrNoSuchRelease = release.ErrNoSuchRelease
)

// OptionError is an option whose value is not what was expected. Option is
// the field's name in Options or NodeOptions (Kubernetes, KubeletVersion).
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Option + " " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// UnknownGateError is a gate name that no release read declares, with
// the declared names it is likely a misspelling of.
type UnknownGateError struct {
	Name string // as asked
	// Where is the tree read ("k8s.io/kubernetes@v1.36.1: the tree"), or
	// Releases the releases a history read.
	Where    string
	Releases []string
	// DidYouMean are the declared names closest to Name: one differing
	// only in case, else those a few edits away (closest first).
	DidYouMean []string
}

func (e *UnknownGateError) Error() string {
	msg := fmt.Sprintf("%s declares no feature gate %q", e.Where, e.Name)
	if n := len(e.Releases); n > 1 {
		msg = fmt.Sprintf("none of the %d releases read (%s to %s) declares a feature gate %q", n, e.Releases[0], e.Releases[n-1], e.Name)
	} else if n == 1 {
		msg = fmt.Sprintf("%s declares no feature gate %q", e.Releases[0], e.Name)
	}
	switch len(e.DidYouMean) {
	case 0:
		return msg
	case 1:
		return fmt.Sprintf("%s; did you mean %s?", msg, e.DidYouMean[0])
	default:
		return fmt.Sprintf("%s; did you mean one of %s?", msg, strings.Join(e.DidYouMean, ", "))
	}
}
