package runtimestream

import (
	"context"
	"time"

	"github.com/plegvet/plegvet/internal/release"
)

// Fetch downloads module@version with the user's go command, as plegvet
// fetches Kubernetes releases (internal/release: "go mod download -json"
// outside any module, stopped with ctx; GOPROXY, GOFLAGS and GOMODCACHE
// apply), and returns the module's directory. timeout bounds the run of
// the go command: zero means 5 minutes (plegvet.DefaultFetchTimeout) and 30 s per further module, less
// than zero no limit but ctx. A version the proxy does not serve is an
// error that wraps release.ErrProxyRefused.
func Fetch(ctx context.Context, module, version string, timeout time.Duration) (string, error) {
	mods, err := release.Fetcher{Timeout: timeout}.Download(ctx, module+"@"+version)
	if err != nil {
		return "", err
	}
	return mods[0].Dir, nil
}
