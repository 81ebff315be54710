//go:build !unix

package driver

import (
	"os"
	"os/exec"
	"time"
)

// interruptGroup makes the end of cmd's context interrupt it, and kill it
// after grace.
func interruptGroup(cmd *exec.Cmd, grace time.Duration) (done func()) {
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = grace
	return func() {}
}
