//go:build !unix

package golangcilintbuild

import "context"

// lock does not lock where there is no flock: concurrent processes may
// each build, and the go command's replacement of the binary is all that
// orders them.
func lock(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	return func() {}, ctx.Err()
}
