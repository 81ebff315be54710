//go:build unix

package release

import (
	"errors"
	"syscall"
)

// survivors says what is left of the process group the go command with
// this pid led ("" when nothing): runGo makes each go command a group
// leader, so signal 0 to the group finds it and every child it started.
func survivors(pid int) string {
	err := syscall.Kill(-pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return ""
	}
	if err == nil {
		return "its process group still has live processes"
	}
	return "cannot check its process group: " + err.Error()
}
