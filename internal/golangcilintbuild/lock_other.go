//go:build !unix

package golangcilintbuild

import "context"

// lock does not lock where there is no flock: concurrent builds of one
// key each build, and the last rename wins, which is still one binary
// per key.
func lock(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	return func() {}, ctx.Err()
}

// tryLock never takes a lock it cannot hold.
func tryLock(path string) (unlock func(), ok bool) { return nil, false }
