//go:build unix

package answercache

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow: an entry that turned into a link after Lstat is not
// followed; O_NONBLOCK: nor does one that turned into a FIFO block.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// ownedPrivately reports whether a file is the user's and writable by no
// one else.
func ownedPrivately(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Geteuid() && st.Mode().Perm()&0o022 == 0
}

// makePrivate takes write permission from others on a directory of the
// user's own (made by an older plegvet under a permissive umask).
func makePrivate(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) == os.Geteuid() && st.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
