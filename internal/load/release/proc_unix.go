//go:build unix

package release

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup puts the go command in a process group of its own, so that a
// stop reaches what it runs (git, hg, ...) and not only the go command.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate asks the go command's whole group to stop (SIGTERM): the go
// command has no handler for it and its children die with it.
func terminate(cmd *exec.Cmd) error {
	return signalGroup(cmd, syscall.SIGTERM)
}

// killGroup kills whatever is left of the group once the go command has
// been waited for: a child that ignored SIGTERM would outlive us.
func killGroup(cmd *exec.Cmd) {
	_ = signalGroup(cmd, syscall.SIGKILL)
}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return os.ErrProcessDone
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
