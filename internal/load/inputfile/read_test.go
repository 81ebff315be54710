package inputfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// returnsSoon runs f and fails the test if it has not returned after a few
// seconds: opening a FIFO or reading a device would block it for ever.
func returnsSoon(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return within 5s", what)
	}
}

// specials makes, in dir, the files no reader may open or read in full:
// name -> the words its error must hold.
func specials(t *testing.T, dir string) map[string]string {
	t.Helper()
	want := map[string]string{}
	mk := func(name, errWords string, make func(path string) error) {
		if err := make(filepath.Join(dir, name)); err != nil {
			t.Fatalf("making %s: %v", name, err)
		}
		want[name] = errWords
	}
	link := func(target string) func(string) error {
		return func(p string) error { return os.Symlink(target, p) }
	}
	mk("fifo", "is a named pipe (FIFO), want a regular file", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	mk("fifolink", "is a symbolic link to fifo, a named pipe (FIFO); want a regular file", link("fifo"))
	mk("zero", "is a symbolic link to /dev/zero, a character device; want a regular file", link("/dev/zero"))
	mk("null", "is a symbolic link to /dev/null, a character device; want a regular file", link("/dev/null"))
	mk("dir", "is a directory, want a file", func(p string) error { return os.Mkdir(p, 0o755) })
	mk("dangling", "is a symbolic link to nowhere, which does not exist", link("nowhere"))
	mk("sparse", "is 1073741824 bytes, over the 16 MiB limit for one file", func(p string) error {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
		return os.Truncate(p, 1<<30) // 1 GiB, no block written
	})
	mk("oneover", "is 16777217 bytes, over the 16 MiB limit", func(p string) error {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
		return os.Truncate(p, MaxSize+1)
	})
	mk("socket", "is a socket, want a regular file", func(p string) error {
		l, err := net.Listen("unix", p)
		if err == nil {
			t.Cleanup(func() { l.Close() })
		}
		return err
	})
	// Root reads through chmod 000; /proc/self/mem is a regular file
	// whose first page cannot be read by anyone.
	if _, err := os.Stat("/proc/self/mem"); err == nil {
		mk("unreadable", "cannot read: input/output error", link("/proc/self/mem"))
	}
	if os.Getuid() != 0 {
		mk("mode000", "permission denied", func(p string) error { return os.WriteFile(p, []byte("x"), 0) })
	}
	return want
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	want := specials(t, dir)
	for name, words := range want {
		var err error
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		returnsSoon(t, "Read("+name+")", func() { _, err = Read(filepath.Join(dir, name)) })
		took := time.Since(start)
		runtime.ReadMemStats(&ms1)
		if err == nil || !strings.Contains(err.Error(), words) || strings.ContainsAny(err.Error(), "\n\r") {
			t.Errorf("Read(%s) = %v, want one line holding %q", name, err, words)
		}
		if strings.Contains(err.Error(), dir) {
			t.Errorf("Read(%s) = %v: callers name the file, the error must not", name, err)
		}
		// Refused before reading: no time, no memory, whatever the size.
		if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > 1<<20 || took > time.Second {
			t.Errorf("Read(%s) took %v and %d bytes", name, took, alloc)
		}
	}

	for name, content := range map[string]string{"empty": "", "small": "package x\n", "nul": "a\x00b"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Read(p); err != nil || string(got) != content {
			t.Errorf("Read(%s) = %q, %v", name, got, err)
		}
	}
	// The limit itself is allowed.
	full := filepath.Join(dir, "full")
	if err := os.WriteFile(full, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(full, MaxSize); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(full); err != nil || len(got) != MaxSize {
		t.Errorf("Read(full) = %d bytes, %v", len(got), err)
	}
}

func TestQuoteName(t *testing.T) {
	for in, want := range map[string]string{
		"pkg/features/a.go":   "pkg/features/a.go",
		"pkg/a b/ü.go":        "pkg/a b/ü.go",
		"pkg/a\nb.go":         `"pkg/a\nb.go"`,
		"pkg/\x1b[31mred.go":  `"pkg/\x1b[31mred.go"`,
		"pkg/\xffinvalid.go":  `"pkg/\xffinvalid.go"`,
		"pkg/tab\there.go":    `"pkg/tab\there.go"`,
		"pkg/carriage\r.go":   `"pkg/carriage\r.go"`,
		"pkg/\u2028sep.go":    `"pkg/\u2028sep.go"`, // a line separator
		"pkg/\u0085nextln.go": `"pkg/\u0085nextln.go"`,
	} {
		if got := QuoteName(in); got != want {
			t.Errorf("QuoteName(%q) = %s, want %s", in, got, want)
		}
	}
	if got := OneLine("expected ';', found `a\nb`"); got != "expected ';', found `a\\nb`" {
		t.Errorf("OneLine = %s", got)
	}
	if got := OneLine("plain"); got != "plain" {
		t.Errorf("OneLine = %s", got)
	}
}

// Callers tell refusals apart with errors.Is, not by their words.
func TestReadSentinels(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); !errors.Is(err, ErrNotRegular) || strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Read(dir) = %v; want ErrNotRegular wrapped, its words not repeated", err)
	}
	big := filepath.Join(dir, "big")
	if f, err := os.Create(big); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(MaxSize + 1)
		f.Close()
	}
	if _, err := Read(big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read(big) = %v; want ErrTooLarge wrapped", err)
	}
}
