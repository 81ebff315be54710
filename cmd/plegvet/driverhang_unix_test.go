//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO named *.go is refused before the go command opens it (its open
// blocks for ever), in the subcommands' words, with either loader: in a
// package the pattern names, or in one it imports.
func TestDriverRefusesSpecialGoFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":              "module example.com/m\n\ngo 1.22\n",
		"pkg/a/a.go":          "package a\n\nimport _ \"example.com/m/other/o\"\n",
		"pkg/b/b.go":          "package b\n",
		"pkg/_x/x.go":         "package x\n",
		"pkg/b/testdata/t.go": "package t\n",
		"other/o/o.go":        "package o\n",
	})
	for _, fifo := range []string{"pkg/a/zz_fifo.go", "pkg/_x/fifo.go", "pkg/b/testdata/fifo.go", "other/o/fifo.go"} {
		if err := syscall.Mkfifo(filepath.Join(dir, fifo), 0o644); err != nil {
			t.Skip("no FIFO here:", err)
		}
	}
	for _, full := range []string{"", "1"} {
		for _, pattern := range []string{"./pkg/...", "example.com/m/pkg/a", "./pkg/a"} {
			const limit = 60 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			cmd := exec.CommandContext(ctx, "plegvet", pattern)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "PWD="+dir, "PLEGVET_FULL_DRIVER="+full)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			timedOut := ctx.Err() != nil
			cancel()
			if timedOut {
				t.Fatalf("plegvet %s: still running after %s (blocked on the FIFO)", pattern, limit)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("plegvet %s: %v, want exit 1", pattern, err)
			}
			// Not those the go command never reads: _x and testdata hold
			// no package.
			want := "plegvet: other/o/fifo.go: is a named pipe (FIFO), want a regular file\n" +
				"plegvet: pkg/a/zz_fifo.go: is a named pipe (FIFO), want a regular file\n"
			if got := stderr.String(); got != want {
				t.Errorf("plegvet %s: stderr\n%s\nwant\n%s", pattern, got, want)
			}
		}
	}
}

// SIGTERM (and SIGINT) to plegvet while the go command it runs is
// running: the child is interrupted and reaped, plegvet says so and exits
// 143 (130); a child that ignores the interrupt is killed 5 s later. A go
// on PATH that never answers stands in for go list blocked on a FIFO.
func TestDriverSignalReachesChildren(t *testing.T) {
	// In parallel with TestScripts: two of the cases below wait out
	// childGrace, seconds in which the scripts run.
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"pkg/a/a.go": "package a\n",
		"bin/go":     "#!/bin/sh\nexec sleep 600\n",
		"deaf/go":    "#!/bin/sh\ntrap '' INT TERM\nexec sleep 600\n",
		"spawns/go":  "#!/bin/sh\nsleep 600 &\nwait\n",
	})
	for _, gocmd := range []string{"bin/go", "deaf/go", "spawns/go"} {
		if err := os.Chmod(filepath.Join(dir, gocmd), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plegvet, err := exec.LookPath("plegvet")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig    syscall.Signal
		code   int
		bin    string
		within time.Duration
		args   []string
	}{
		{syscall.SIGTERM, 143, "bin", 3 * time.Second, nil},
		{syscall.SIGINT, 130, "bin", 3 * time.Second, nil},
		{syscall.SIGTERM, 143, "deaf", childGrace + 2*time.Second, nil},
		// go fix -fixtool, and a tool it runs (which ignores SIGINT, as
		// a shell's background job does).
		{syscall.SIGTERM, 143, "spawns", childGrace + 2*time.Second, []string{"-fix"}},
	} {
		// In parallel: two of the cases wait out childGrace.
		t.Run(fmt.Sprintf("%v/%s", tc.sig, tc.bin), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(plegvet, append(tc.args, "./pkg/...")...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, tc.bin)+":/usr/bin:/bin", "PWD="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var kids []int
			for deadline := time.Now().Add(30 * time.Second); len(kids) == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("plegvet started no child in 30 s; stderr: %s", stderr.String())
				}
				kids = descendants(cmd.Process.Pid)
				if !slices.ContainsFunc(kids, func(pid int) bool { return processName(pid) == "sleep" }) {
					kids = nil // the stand-in go has not started its sleep yet
				}
			}
			// An ordinary kill: the signal reaches plegvet alone, not its
			// children (go list runs in a process group of its own).
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(tc.within):
				cmd.Process.Kill()
				<-done
				t.Errorf("%v, %s: plegvet still running %s after the signal", tc.sig, tc.bin, tc.within)
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
				t.Errorf("%v: %v, want exit %d", tc.sig, err, tc.code)
			}
			if got, want := stderr.String(), "plegvet: interrupted\n"; got != want {
				t.Errorf("%v: stderr %q, want %q", tc.sig, got, want)
			}
			for _, pid := range kids {
				// A grandchild (the tool's background job) is not plegvet's
				// to reap: the kill sent to its group ends it, but the kernel
				// may take a moment on a loaded machine.
				for end := time.Now().Add(2 * time.Second); alive(pid) && time.Now().Before(end); {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("%v, %s: child %d outlived plegvet", tc.sig, tc.bin, pid)
				}
			}
		})
	}
}

// descendants are the processes below pid, found through /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// processName is a process's command name, from /proc/PID/comm.
func processName(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(data))
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	rest := string(data[bytes.LastIndexByte(data, ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// alive is true for a process that exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
