package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A shim-like process (a session of its own, "-address SOCK" on its
// command line) and its child are killed; a process naming another
// socket is not.
func TestKillShims(t *testing.T) {
	dir := t.TempDir()
	sock, other := filepath.Join(dir, "c.sock"), filepath.Join(dir, "other.sock")
	start := func(address string) (*exec.Cmd, string) {
		pidFile := filepath.Join(dir, strconv.Itoa(len(address))+".child")
		// sh -c SCRIPT $0 $1 $2: "-address SOCK" lands on the command line.
		cmd := exec.Command("sh", "-c", `sleep 300 & echo $! > "$3"; wait`, "shim", "-address", address, pidFile)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, pidFile
	}
	shim, childFile := start(sock)
	bystander, _ := start(other)
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(childFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if child == 0 {
		t.Fatal("the shim's child did not start")
	}
	if err := killShims(sock); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- shim.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the shim still runs")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "stat"))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break // gone, or a zombie waiting for init
		}
		if time.Now().After(deadline) {
			t.Fatal("the shim's child still runs")
		}
	}
	if err := bystander.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("a process serving another socket was killed: %v", err)
	}
}

// The RBAC a cluster admin copies from kubectl-pleg's README is what the
// real-cluster tests grant: one ClusterRole and its binding.
func TestReadmeRBAC(t *testing.T) {
	role, binding, err := ReadmeRBAC(filepath.Join("..", "..", "kubectl-pleg", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if role["kind"] != "ClusterRole" || binding["kind"] != "ClusterRoleBinding" {
		t.Errorf("kinds %v and %v, want ClusterRole and ClusterRoleBinding", role["kind"], binding["kind"])
	}
	if _, _, err := ReadmeRBAC(filepath.Join("..", "harness", "runtime_test.go")); err == nil {
		t.Error("a file with no RBAC block: no error")
	}
}
