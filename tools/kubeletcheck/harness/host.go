// Package harness runs real Kubernetes node components on this machine
// for plegvet's live checks: a kubelet built from a release's source, a
// container runtime (Debian's containerd, or one built from its module)
// with crun, a pause image built here, and the captures a node engineer
// takes (configz, metrics, crictl version). Every process it starts is
// its own process group, stopped by PID with SIGTERM, then SIGKILL.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ErrUnsupported says the machine cannot run the harness (not root, no
// cgroups): tests skip with it, except under CI, where they fail with it.
var ErrUnsupported = errors.New("this machine cannot run a kubelet")

// Packages are Debian's packages the harness runs: containerd 1.6 (its
// CRI answers GetContainerEvents with Unimplemented), crun (Debian's runc
// 1.1.5 cannot start a container on these kernels), libseccomp-dev and
// pkg-config to build runc for containerd 2.x, etcd for an API server,
// and Prometheus to scrape a kubelet and evaluate alerting rules.
var Packages = []string{"containerd", "crun", "etcd-server", "iptables", "conntrack", "libseccomp-dev", "pkg-config", "prometheus"}

// PrepareHost checks that the machine can run a kubelet, installs the
// Debian packages that are missing, and frees the cgroup v2 hierarchy of
// controllers, which crun refuses in a hybrid (v1 + v2) layout.
func PrepareHost(ctx context.Context, logf func(string, ...any)) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: not root (a kubelet and containerd run as root)", ErrUnsupported)
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory"); err != nil {
		if _, err2 := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err2 != nil {
			return fmt.Errorf("%w: no cgroup v1 memory hierarchy and no cgroup v2 root under /sys/fs/cgroup", ErrUnsupported)
		}
		return fmt.Errorf("%w: a cgroup v2-only host: the harness's kubelet configuration (cgroupfs, failCgroupV1: false) is written for the v1 hybrid layout", ErrUnsupported)
	}
	if err := install(ctx, logf); err != nil {
		return err
	}
	return freeUnifiedControllers(logf)
}

func install(ctx context.Context, logf func(string, ...any)) error {
	var missing []string
	for _, p := range Packages {
		if exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Status}", p).Run() != nil {
			missing = append(missing, p)
			continue
		}
		out, _ := exec.CommandContext(ctx, "dpkg-query", "-W", "-f=${Status}", p).Output()
		if !strings.Contains(string(out), "install ok installed") {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("%w: missing %s and no apt-get", ErrUnsupported, strings.Join(missing, ", "))
	}
	logf("installing %s with apt-get", strings.Join(missing, " "))
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	apt := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %w: %s", strings.Join(args, " "), err, LastLines(out, 5))
		}
		return nil
	}
	// A fresh machine may have no package lists.
	if err := apt("update"); err != nil {
		return err
	}
	return apt(append([]string{"install", "-y", "--no-install-recommends"}, missing...)...)
}

// freeUnifiedControllers moves each controller that sits in the cgroup v2
// hierarchy of a hybrid layout (hugetlb, on the machines seen here) to a
// v1 hierarchy of its own: crun refuses to run a container while cgroup
// v2 holds controllers ("cgroups in hybrid mode not supported, drop all
// controllers from cgroupv2").
func freeUnifiedControllers(logf func(string, ...any)) error {
	data, err := os.ReadFile("/sys/fs/cgroup/unified/cgroup.controllers")
	if err != nil {
		return nil // no unified hierarchy beside v1: nothing to free
	}
	for _, c := range strings.Fields(string(data)) {
		dir := "/sys/fs/cgroup/" + c
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("moving cgroup controller %s to v1: %w", c, err)
		}
		if out, err := exec.Command("mount", "-t", "cgroup", "-o", c, "cgroup", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("%w: cgroup v2 holds the %s controller, and mounting it as a v1 hierarchy failed: %s", ErrUnsupported, c, strings.TrimSpace(string(out)))
		}
		logf("moved cgroup controller %s from cgroup v2 to %s", c, dir)
	}
	return nil
}

// LastLines returns the last n lines of b.
func LastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
