//go:build unix

package golangcilintbuild

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// poll is how often a waiting process tries the lock again.
const poll = 200 * time.Millisecond

// lock takes an exclusive flock on the file path, created if missing,
// waiting while another process (or another open of the file in this
// one) holds it, until ctx is done; waiting is called once when it has
// to wait. The kernel drops the lock of a process that dies, so a killed
// build does not leave the others waiting.
func lock(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(poll):
		}
	}
}
