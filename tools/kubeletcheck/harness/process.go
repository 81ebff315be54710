package harness

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// stopGrace is how long a process has after SIGTERM before SIGKILL.
const stopGrace = 15 * time.Second

// Process is a started command in a process group of its own, its
// output appended to a log file.
type Process struct {
	Name   string
	Log    string
	cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// Start starts cmd with stdout and stderr appended to log.
func Start(name string, cmd *exec.Cmd, log string) (*Process, error) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, Log: log, cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.exited)
	}()
	return p, nil
}

// Pid is the process's PID, which is also its process group's.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited says whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.exited:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends the process group SIGTERM, then SIGKILL after stopGrace, and
// waits, each wait bounded. Only the process's own group is signalled:
// containerd's shims, which keep containers alive across a containerd
// restart, run in groups of their own.
func (p *Process) Stop() error {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-p.exited:
		case <-time.After(stopGrace):
			return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.Name, pgid)
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // whatever it left in its group
	return nil
}

// Tail returns the last n lines of the process's log.
func (p *Process) Tail(n int) string {
	f, err := os.Open(p.Log)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 1<<20 {
		f.Seek(-1<<20, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return LastLines(b, n)
}
