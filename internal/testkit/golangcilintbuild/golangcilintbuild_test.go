package golangcilintbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helper process: TestOneBuildAcrossProcesses runs this test binary
// again as several processes, each building one module into one binary.
const helperEnv = "GOLANGCILINTBUILD_HELPER" // the directory of the test's files

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		os.Exit(helper(dir))
	}
	os.Exit(m.Run())
}

// helper builds dir/mod into dir/cache/tiny, appending its pid to
// dir/waiters when it waits for the lock, and prints whether go build
// rewrote the binary and what its own copy prints.
func helper(dir string) int {
	b := helperBuilder(dir, func(format string, args ...any) {
		if !strings.Contains(format, "waiting") {
			return
		}
		f, err := os.OpenFile(filepath.Join(dir, "waiters"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	})
	dst := filepath.Join(dir, fmt.Sprint("tiny-", os.Getpid()))
	rebuilt, err := b.build(context.Background(), dst)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out, err := exec.Command(dst).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("rebuilt %v, prints %s", rebuilt, out)
	return 0
}

func helperBuilder(dir string, logf func(string, ...any)) builder {
	return builder{dir: filepath.Join(dir, "mod"), bin: filepath.Join(dir, "cache", "tiny"), logf: logf}
}

// writeModule writes, in dir, a module whose main package prints says.
func writeModule(t *testing.T, dir, says string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":  "module tiny\n\ngo 1.26\n",
		"main.go": fmt.Sprintf("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(%q) }\n", says),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func lines(name string) int {
	data, _ := os.ReadFile(name)
	return bytes.Count(data, []byte("\n"))
}

// Processes that all wait for the lock at once build once: the first to
// take it builds, and the others' go build is a no-op. The test holds the
// lock until every process says it waits, so they do run concurrently.
func TestOneBuildAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command")
	}
	const procs = 3
	dir := t.TempDir()
	writeModule(t, filepath.Join(dir, "mod"), "v1")
	b := helperBuilder(dir, t.Logf)
	if err := os.MkdirAll(filepath.Dir(b.bin), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lock(t.Context(), b.bin+".lock", func() {})
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]string, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				err = fmt.Errorf("%w: %s", err, stderr.Bytes())
			}
			outs[i], errs[i] = string(out), err
		})
	}
	for deadline := time.Now().Add(time.Minute); lines(filepath.Join(dir, "waiters")) < procs; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			unlock()
			wg.Wait()
			t.Fatalf("%d of %d processes waited for the lock: %q %v", lines(filepath.Join(dir, "waiters")), procs, outs, errs)
		}
	}
	unlock()
	wg.Wait()
	built := 0
	for i := range procs {
		if errs[i] != nil {
			t.Fatalf("process %d: %v", i, errs[i])
		}
		switch outs[i] {
		case "rebuilt true, prints v1\n":
			built++
		case "rebuilt false, prints v1\n":
		default:
			t.Errorf("process %d printed %q", i, outs[i])
		}
	}
	if built != 1 {
		t.Errorf("%d processes built, want 1: %q", built, outs)
	}
}

func run(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return strings.TrimSpace(string(out))
}

// A build with the inputs of the last one is a no-op, a changed input
// rebuilds, and a copy taken earlier keeps the binary it had.
func TestRebuildOnChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command")
	}
	dir := t.TempDir()
	writeModule(t, filepath.Join(dir, "mod"), "v1")
	b := helperBuilder(dir, t.Logf)
	for i, step := range []struct {
		says        string // what main prints, "" for unchanged
		wantRebuilt bool
	}{
		{"v1", true},
		{"", false},
		{"v2", true},
		{"", false},
	} {
		if step.says != "" {
			writeModule(t, b.dir, step.says)
		}
		dst := filepath.Join(dir, fmt.Sprint("tiny-", i))
		rebuilt, err := b.build(t.Context(), dst)
		if err != nil {
			t.Fatal(err)
		}
		if rebuilt != step.wantRebuilt {
			t.Errorf("build %d: rebuilt %v, want %v", i, rebuilt, step.wantRebuilt)
		}
	}
	for i, want := range []string{"v1", "v1", "v2", "v2"} {
		if got := run(t, filepath.Join(dir, fmt.Sprint("tiny-", i))); got != want {
			t.Errorf("copy %d prints %q, want %q", i, got, want)
		}
	}
}

// A failed build fails, and the next one after the fix builds.
func TestBuildError(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command")
	}
	dir := t.TempDir()
	writeModule(t, filepath.Join(dir, "mod"), "v1")
	b := helperBuilder(dir, t.Logf)
	if err := os.WriteFile(filepath.Join(b.dir, "bad.go"), []byte("package main\n\nvar x int = \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.build(t.Context(), filepath.Join(dir, "bad")); err == nil || !strings.Contains(err.Error(), "bad.go") {
		t.Fatalf("a build of a broken package: err %v, want go build's naming bad.go", err)
	}
	if err := os.Remove(filepath.Join(b.dir, "bad.go")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "good")
	if _, err := b.build(t.Context(), dst); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dst); got != "v1" {
		t.Errorf("got %q, want v1", got)
	}
}

// Waiting for a lock stops when the context is done.
func TestLockWaitStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.lock")
	unlock, err := lock(t.Context(), path, func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	waited := false
	if _, err := lock(ctx, path, func() { waited = true }); !errors.Is(err, context.DeadlineExceeded) || !waited {
		t.Errorf("a second lock of a held file: err %v, waited %v; want it to wait until the deadline", err, waited)
	}
}
