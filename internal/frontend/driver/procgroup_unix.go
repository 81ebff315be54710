//go:build unix

package driver

import (
	"os/exec"
	"syscall"
	"time"
)

// interruptGroup runs cmd, once started, as the leader of a process group
// of its own, and makes the end of its context interrupt the whole group
// (the go command and the tools it runs), then kill it after grace: a
// signal sent to plegvet alone reaches every child. Call done once cmd
// has been waited for: a group gone is not killed (its id may be another's
// by then).
func interruptGroup(cmd *exec.Cmd, grace time.Duration) (done func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var kill *time.Timer
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		kill = time.AfterFunc(grace, func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
		return syscall.Kill(-pgid, syscall.SIGINT)
	}
	cmd.WaitDelay = grace + time.Second
	return func() {
		if kill != nil {
			kill.Stop()
		}
	}
}
