//go:build !unix

package release

import (
	"os"
	"os/exec"
)

func ownGroup(cmd *exec.Cmd) {}

// terminate interrupts the go command, or kills it where interrupts
// cannot be sent (Windows).
func terminate(cmd *exec.Cmd) error {
	if err := cmd.Process.Signal(os.Interrupt); err == nil {
		return nil
	}
	return cmd.Process.Kill()
}

func killGroup(cmd *exec.Cmd) {}
