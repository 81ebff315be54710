package assemble

import (
	"errors"
	"fmt"
	"strings"
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

// ErrNoGoCommand is wrapped by the error of a release that plegvet would
// have to fetch when no go command is on PATH.
var ErrNoGoCommand = errors.New("no go command on PATH")

// Errors a library caller can test with errors.Is (the root re-exports
// them with their documentation).
var (
	ErrKubeletVersionUnknown = errors.New("the kubelet's version is unknown")
	ErrNoCRIAPI              = errors.New("no k8s.io/cri-api in the tree")
)
