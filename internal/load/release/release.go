// Package release fetches released Kubernetes source (k8s.io/kubernetes and
// k8s.io/cri-api) with the user's own go command, so that plegvet can answer
// for a version without a checkout.
package release

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
)

// Errors a caller can test with errors.Is. Their messages name no flag or
// option: the caller says where the version came from.
var (
	// ErrNotARelease: a version that names no Kubernetes release.
	ErrNotARelease = errors.New("not a Kubernetes release version")
	// ErrRangeGoesDown: a range whose last minor is before its first.
	ErrRangeGoesDown = errors.New("the range goes down")
	// ErrRangeTooWide: a range of more minors than MaxRangeMinors; each
	// minor costs go commands, and Kubernetes has had some forty.
	ErrRangeTooWide = errors.New("the range spans too many minors")
	// ErrNoSuchRelease: a release after the newest the module proxy
	// serves (v1.99.0). It is also ErrProxyRefused.
	ErrNoSuchRelease = errors.New("no such Kubernetes release")
	// ErrProxyRefused: the go command, through the module proxy (GOPROXY),
	// did not serve a version asked for; the error's text is the go
	// command's own, which says why (an unknown revision, lookup disabled,
	// a proxy it could not reach).
	ErrProxyRefused = errors.New("the module proxy does not serve the version")
	// ErrGoTooOld: the go command refused a module it downloaded because
	// the module requires a newer Go than the go command is and
	// GOTOOLCHAIN kept it from switching ("requires go >= 1.27.0 (running
	// go 1.26.8; GOTOOLCHAIN=local)"). It is also ErrProxyRefused: the
	// version was not served to plegvet, in the go command's words.
	ErrGoTooOld = errors.New("the go command is older than the module requires")
	// ErrListAndRange: a version list that holds a range
	// (v1.25.0,v1.26.0..v1.30.0): a list or a range, not both.
	ErrListAndRange = errors.New("a comma list and a range mixed")
)

// noSuchRelease is a refusal the proxy made because the release does not
// exist yet: errors.Is finds both ErrNoSuchRelease and ErrProxyRefused.
type noSuchRelease string

func (e noSuchRelease) Error() string { return string(e) }
func (noSuchRelease) Is(target error) bool {
	return target == ErrNoSuchRelease || target == ErrProxyRefused
}

// refusal is the go command's message for a version it did not serve.
type refusal string

func (r refusal) Error() string      { return string(r) }
func (refusal) Is(target error) bool { return target == ErrProxyRefused }

// ParseVersion checks a Kubernetes release version such as v1.36.1 (a
// leading "v" may be omitted) and returns it in canonical form. A minor
// without a patch (v1.36) is not a release: Resolve picks its newest.
func ParseVersion(s string) (string, error) {
	v, err := parse(s)
	if err != nil || !v.IsRelease() {
		return "", notARelease(s) // parse's error too
	}
	return v.Semver(), nil
}

// parse reads a release (v1.36.1) or a minor of major 1 (v1.36).
func parse(s string) (kubeversion.Version, error) {
	v, ok := kubeversion.Parse(s)
	if !ok || !v.IsRelease() && !(v.IsMinor() && v.Major == 1) {
		return kubeversion.Version{}, notARelease(s)
	}
	return v, nil
}

func notARelease(s string) error {
	return fmt.Errorf("%q: %w; want v1.MINOR.PATCH, such as v1.36.1", s, ErrNotARelease)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// isStopped reports whether err says the context stopped the go command.
func isStopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
