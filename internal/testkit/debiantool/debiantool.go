// Package debiantool gives tests a program from Debian's packages
// (neovim, prometheus's promtool), installing them when missing.
package debiantool

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Find finds a program, installing Debian's packages for it when it is
// missing or not usable (usable, when not nil, says) and the test runs as
// root on a machine with apt-get (as CI does); otherwise it skips, saying
// why, except under CI=true, where a test that needs the program fails.
func Find(t testing.TB, program string, usable func(path string) bool, packages ...string) string {
	t.Helper()
	ready := func() (string, bool) {
		path, err := exec.LookPath(program)
		return path, err == nil && (usable == nil || usable(path))
	}
	if path, ok := ready(); ok {
		return path
	}
	skip := t.Skipf
	if os.Getenv("CI") == "true" {
		skip = t.Fatalf
	}
	if os.Geteuid() != 0 {
		skip("no usable %s on PATH, and not root to install Debian's %s", program, strings.Join(packages, " "))
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		skip("no usable %s on PATH, and no apt-get to install it", program)
	}
	// Another apt-get (a machine's own updates) may hold dpkg's lock for a
	// while: wait for it rather than fail.
	lock := []string{"-o", "DPkg::Lock::Timeout=300"}
	for _, args := range [][]string{append(lock, "update"), append(append(lock, "install", "-y", "--no-install-recommends"), packages...)} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	path, ok := ready()
	if !ok {
		t.Fatalf("Debian's %s installed no usable %s", strings.Join(packages, " "), program)
	}
	return path
}
