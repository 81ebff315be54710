package runtimestream

import (
	"context"

	"github.com/plegvet/plegvet/internal/release"
)

// Fetch downloads module@version with the user's go command, as plegvet
// fetches Kubernetes releases (internal/release: "go mod download -json"
// outside any module, under release.FetchTimeout, stopped with ctx; GOPROXY,
// GOFLAGS and GOMODCACHE apply), and returns the module's directory. A
// version the proxy does not serve is an error that wraps
// release.ErrProxyRefused.
func Fetch(ctx context.Context, module, version string) (string, error) {
	mods, err := release.Download(ctx, module+"@"+version)
	if err != nil {
		return "", err
	}
	return mods[0].Dir, nil
}
