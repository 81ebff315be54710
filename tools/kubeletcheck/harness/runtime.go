package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Runtime is a containerd the harness runs: Debian's 1.6 (config version
// 2) running containers with Debian's crun, or a 2.x built from its
// module (config version 3) running them with a runc built from its
// module (Debian's crun 1.8 refuses the OCI spec version containerd 2.1
// writes: "unknown version specified").
type Runtime struct {
	Name    string // "debian" or "built"
	Bin     string
	OCI     string // the OCI runtime binary: crun or runc
	ShimDir string // a directory with the containerd-shim-runc-v2 to use; "" for PATH's
	Dir     string
	Sock    string
	Crictl  string
	proc    *Process
}

// NewRuntime lays out a runtime's directories under dir (short: a socket
// path has a limit) and writes its configuration.
func NewRuntime(name, bin, oci, shimDir, crictl, dir string) (*Runtime, error) {
	r := &Runtime{Name: name, Bin: bin, OCI: oci, ShimDir: shimDir, Dir: dir, Sock: filepath.Join(dir, "c.sock"), Crictl: crictl}
	conf := r.config()
	return r, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(conf), 0o600)
}

// Endpoint is the CRI endpoint the kubelet is given.
func (r *Runtime) Endpoint() string { return "unix://" + r.Sock }

// config is the runtime's configuration: OCI as the default runtime,
// the pause image built here as the sandbox image, and the OOM score
// adjustment restricted to containerd's own (the machines here lack
// CAP_SYS_RESOURCE in the bounding set, so a container cannot lower it).
func (r *Runtime) config() string {
	root, state, cni := filepath.Join(r.Dir, "root"), filepath.Join(r.Dir, "state"), filepath.Join(r.Dir, "cni")
	if r.Name == "debian" {
		return fmt.Sprintf(`version = 2
root = %q
state = %q
[grpc]
  address = %q
[plugins."io.containerd.grpc.v1.cri"]
  restrict_oom_score_adj = true
  disable_apparmor = true
  sandbox_image = %q
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "oci"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.oci]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.oci.options]
        BinaryName = %q
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %q
    conf_dir = %q
`, root, state, r.Sock, PauseImage, r.OCI, cni, cni)
	}
	return fmt.Sprintf(`version = 3
root = %q
state = %q
[grpc]
  address = %q
[plugins.'io.containerd.cri.v1.images']
  snapshotter = 'overlayfs'
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = %q
[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
  disable_apparmor = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = 'oci'
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.oci]
      runtime_type = 'io.containerd.runc.v2'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.oci.options]
        BinaryName = %q
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [%q]
    conf_dir = %q
`, root, state, r.Sock, PauseImage, r.OCI, cni, cni)
}

// Start starts containerd and waits until crictl version answers. Its
// OOM score is raised to 1000 at once (raising needs no privilege): a
// shim runs at containerd's score + 1, capped at 1000, and a container
// restricted to containerd's score must not lie below its shim's.
func (r *Runtime) Start(ctx context.Context) error {
	cmd := exec.Command(r.Bin, "--config", filepath.Join(r.Dir, "config.toml"))
	cmd.Env = os.Environ()
	if r.ShimDir != "" {
		cmd.Env = append(cmd.Env, "PATH="+r.ShimDir+":"+os.Getenv("PATH"))
	}
	p, err := Start("containerd", cmd, filepath.Join(r.Dir, "containerd.log"))
	if err != nil {
		return err
	}
	r.proc = p
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/oom_score_adj", p.Pid()), []byte("1000"), 0); err != nil {
		return fmt.Errorf("raising containerd's OOM score: %w", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := r.Version(ctx); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("containerd %s did not answer crictl version within 60s: %v\n%s", r.Bin, err, p.Tail(20))
		}
		if done, werr := p.Exited(); done {
			return fmt.Errorf("containerd %s exited: %v\n%s", r.Bin, werr, p.Tail(20))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// StopDaemon stops containerd alone (SIGTERM to its group): its shims,
// each a session of its own, and their containers keep running, as on a
// node whose runtime dies; Start takes them up again.
func (r *Runtime) StopDaemon() error {
	if r.proc == nil {
		return nil
	}
	err := r.proc.Stop()
	r.proc = nil
	return err
}

// Pid is containerd's PID (0 when it is not running).
func (r *Runtime) Pid() int {
	if r.proc == nil {
		return 0
	}
	return r.proc.Pid()
}

// Freeze stops containerd's daemon process alone with SIGSTOP, as a node
// whose runtime hangs: its socket keeps accepting connections (the
// kernel's backlog) and no call is answered; its shims, each a process of
// its own, and their containers run on.
func (r *Runtime) Freeze() error {
	if r.proc == nil {
		return fmt.Errorf("containerd is not running")
	}
	return syscall.Kill(r.proc.Pid(), syscall.SIGSTOP)
}

// Thaw resumes a frozen containerd with SIGCONT.
func (r *Runtime) Thaw() error {
	if r.proc == nil {
		return fmt.Errorf("containerd is not running")
	}
	return syscall.Kill(r.proc.Pid(), syscall.SIGCONT)
}

// Stop stops containerd, then its shims and their containers: they are
// this runtime's, and would outlive it.
func (r *Runtime) Stop() error {
	err := r.StopDaemon()
	if err2 := killShims(r.Sock); err == nil {
		err = err2
	}
	return err
}

// killShims kills the shims serving the containerd at sock (their
// command line names it after -address) and every process below them.
func killShims(sock string) error {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	parent := map[int]int{}
	var shims []int
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after
		// its closing parenthesis.
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 1 {
				parent[pid], _ = strconv.Atoi(f[1])
			}
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmdline), "\x00-address\x00"+sock+"\x00") {
			shims = append(shims, pid)
		}
	}
	kill := map[int]bool{}
	for _, s := range shims {
		kill[s] = true
	}
	for changed := true; changed; {
		changed = false
		for pid, pp := range parent {
			if kill[pp] && !kill[pid] {
				kill[pid], changed = true, true
			}
		}
	}
	for pid := range kill {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return nil
}

// Version runs crictl version against the runtime and returns what it
// printed, as a node engineer captures it.
func (r *Runtime) Version(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Crictl, append(r.crictlArgs(), "version")...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("crictl version: %w", err)
	}
	return out, nil
}

// ImportImage imports an image archive into the namespace the CRI uses.
func (r *Runtime) ImportImage(ctx context.Context, archive string) error {
	ctr := "ctr"
	if p, err := exec.LookPath("ctr"); err == nil {
		ctr = p
	}
	out, err := exec.CommandContext(ctx, ctr, "--address", r.Sock, "--namespace", "k8s.io", "image", "import", archive).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctr image import: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// CrictlRun runs crictl with args against the runtime and returns its
// standard output; its standard error is in the error.
func (r *Runtime) CrictlRun(ctx context.Context, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.Crictl, append(r.crictlArgs(), args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("crictl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// crictlArgs point crictl at the runtime and at a configuration of its
// own (without one it warns on every call that /etc/crictl.yaml is missing).
func (r *Runtime) crictlArgs() []string {
	conf := filepath.Join(r.Dir, "crictl.yaml")
	if _, err := os.Stat(conf); err != nil {
		os.WriteFile(conf, []byte("runtime-endpoint: "+r.Endpoint()+"\nimage-endpoint: "+r.Endpoint()+"\ntimeout: 10\n"), 0o644)
	}
	return []string{"--config", conf, "--runtime-endpoint", r.Endpoint()}
}

// WriteNetworkConfig gives the runtime a CNI network, so that it reports
// NetworkReady and a registered node can turn Ready (the kubelet folds
// "container runtime network not ready" into the Ready condition). Its
// plugin never runs: the harness's pods use the host network.
func (r *Runtime) WriteNetworkConfig() error {
	dir := filepath.Join(r.Dir, "cni")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	conf := `{"cniVersion": "1.0.0", "name": "plegvet", "plugins": [{"type": "bridge", "bridge": "plegvet-br0", "ipam": {"type": "host-local", "subnet": "10.251.0.0/24"}}]}` + "\n"
	return os.WriteFile(filepath.Join(dir, "10-plegvet.conflist"), []byte(conf), 0o644)
}
