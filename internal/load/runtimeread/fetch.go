package runtimeread

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/plegvet/plegvet/internal/load/release"
)

// ErrNoSuchVersion: the module proxy (or, with GOPROXY=direct, the
// repository) answered that the module version does not exist, or that
// it does not serve it (a mirror's 403). An error that wraps it also
// wraps release.ErrProxyRefused.
var ErrNoSuchVersion = errors.New("the module proxy does not serve the module version")

// Fetch downloads module@version with the user's go command, as plegvet
// fetches Kubernetes releases (internal/load/release: "go mod download -json"
// outside any module, stopped with ctx; GOPROXY, GOFLAGS and GOMODCACHE
// apply), and returns the module's directory. timeout bounds the run of
// the go command: zero means 5 minutes (plegvet.DefaultFetchTimeout) and
// 30 s per further module, less than zero no limit but ctx.
//
// A version the go command did not fetch is an error that wraps
// release.ErrProxyRefused, with the go command's words. When those words
// say the version does not exist (NotExist), it also wraps
// ErrNoSuchVersion; a proxy that could not be asked is not that.
func Fetch(ctx context.Context, module, version string, timeout time.Duration) (string, error) {
	mods, err := release.Fetcher{Timeout: timeout}.Download(ctx, module+"@"+version)
	if errors.Is(err, release.ErrProxyRefused) && NotExist(err.Error()) {
		return "", noSuchVersion{err}
	}
	if err != nil {
		return "", err
	}
	return mods[0].Dir, nil
}

// proxyNotFound is the go command's report of a proxy's 404 or 410,
// whatever the reason phrase ("reading URL: 404 Not Found"), or of its
// 403: a proxy that answers, and will not serve this version (a mirror's
// "This module version is not available"), says as much of it as a 404
// does for plegvet's question.
var proxyNotFound = regexp.MustCompile(`reading \S+: (403|404|410)\b`)

// noSuchVersion is a refusal that says the version does not exist: it
// wraps the go command's error (release.ErrProxyRefused) and is
// ErrNoSuchVersion.
type noSuchVersion struct{ err error }

func (e noSuchVersion) Error() string      { return e.err.Error() }
func (e noSuchVersion) Unwrap() error      { return e.err }
func (noSuchVersion) Is(target error) bool { return target == ErrNoSuchVersion }

// NotExist reports whether the go command's message for a module it did
// not fetch says that the version does not exist, as the go command
// itself decides when it moves on to the next proxy of a GOPROXY list: a
// proxy's 404 Not Found or 410 Gone, a file:// proxy without the file, or
// (GOPROXY=direct) a repository without the revision. Anything else says
// nothing of the version: GOPROXY=off, a proxy it could not connect to, a
// proxy's 403 or 5xx, a timeout, and a checksum database that could not
// verify the module (whose "verifying" message may quote the database's
// own 404 or 410). When a GOPROXY list holds several entries, the go
// command reports the most telling failure, and "not found" only when
// every entry said so.
func NotExist(msg string) bool {
	if strings.Contains(msg, "verifying ") || strings.Contains(msg, "SECURITY ERROR") {
		return false
	}
	// "unknown revision": GOPROXY=direct, and quoted by proxies; an
	// invalid pseudo-version is one no commit has.
	if proxyNotFound.MatchString(msg) || strings.Contains(msg, "unknown revision") || strings.Contains(msg, "invalid pseudo-version: ") {
		return true
	}
	// A file:// proxy: the go command reads the file and reports the
	// operating system's error.
	return strings.Contains(msg, "reading file://") &&
		(strings.Contains(msg, "no such file or directory") || strings.Contains(msg, "cannot find the"))
}
