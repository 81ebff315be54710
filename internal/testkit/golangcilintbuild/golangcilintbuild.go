// Package golangcilintbuild builds, for the tests that run it, the
// golangci-lint of tools/golangci-lint (golangci-lint v2 with plegvet's
// module plugin compiled in), once however many test processes ask.
//
// gclplugin's tests and docs/ci's each need that binary, and `go test
// ./...` runs them as concurrent processes: each building its own, they
// compiled golangci-lint and its linters twice at once (about 14 minutes
// each on two cores with a cold build cache). Here every process runs
// `go build -o` to one path, in a directory that outlives the test run,
// under a file lock. The go command skips the link when the file's build
// ID says it is up to date with its inputs, so a process that waited for
// another's build builds nothing, nor does a later run with the same
// inputs: the go command, not this package, decides what is stale. Each
// test runs a link to the binary taken under the lock (see builder.build),
// in cacheDir.
package golangcilintbuild

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Env is the environment variable naming the cache directory.
const Env = "PLEGVET_GOLANGCI_LINT_CACHE"

// binName is the binary's name in the cache directory and in a test's.
const binName = "golangci-lint"

// cacheDir returns $PLEGVET_GOLANGCI_LINT_CACHE, else
// plegvet-golangci-lint under the user's cache directory, else under the
// temporary directory.
func cacheDir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	if base, err := os.UserCacheDir(); err == nil {
		return filepath.Join(base, "plegvet-golangci-lint")
	}
	return filepath.Join(os.TempDir(), "plegvet-golangci-lint-"+strconv.Itoa(os.Getuid()))
}

// repoRoot returns the plegvet repository holding the working directory:
// the nearest directory upwards whose go.mod declares plegvet's module.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/plegvet/plegvet\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the plegvet repository")
		}
		dir = parent
	}
}

// ForTest builds golangci-lint from the repository holding the test's
// package and returns the path of the test's own link to it (or copy),
// in the test's temporary directory. The build stops 30 seconds before
// the test's deadline, and an error fails the test.
func ForTest(t *testing.T) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-30*time.Second))
		defer cancel()
	}
	start := time.Now()
	b := builder{
		dir:  filepath.Join(root, "tools", "golangci-lint"),
		bin:  filepath.Join(cacheDir(), binName),
		logf: t.Logf,
	}
	bin := filepath.Join(t.TempDir(), binName)
	_, err = b.build(ctx, bin)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("building golangci-lint from %s did not finish before the test's deadline (%v so far); a cold build takes minutes: rerun with -timeout 30m", b.dir, time.Since(start).Round(time.Second))
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// A builder builds the main package of a module into a binary that
// processes share.
type builder struct {
	dir  string // the package's directory, where go build runs
	bin  string // the shared binary; bin+".lock" is its lock
	logf func(format string, args ...any)
}

// build runs `go build -o b.bin` under b's lock, then, still holding it,
// links or copies b.bin to dst, and reports whether go build rewrote
// b.bin. The caller runs dst, not b.bin: go build replaces b.bin by a
// rename, or by removing it and writing a new file, and in the latter
// case a process starting b.bin during another's rebuild could find it
// missing or half written. A link made under the lock keeps the file
// that was built, as go build never writes into the old one.
func (b builder) build(ctx context.Context, dst string) (rebuilt bool, err error) {
	if err := os.MkdirAll(filepath.Dir(b.bin), 0o755); err != nil {
		return false, fmt.Errorf("golangci-lint cache: %w", err)
	}
	start := time.Now()
	unlock, err := lock(ctx, b.bin+".lock", func() {
		b.logf("golangci-lint: waiting for another process's build of %s", b.bin)
	})
	if err != nil {
		return false, fmt.Errorf("golangci-lint cache: lock %s: %w", b.bin, err)
	}
	defer unlock()
	waited := time.Since(start)
	start = time.Now()

	before := buildID(ctx, b.bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", b.bin, ".")
	cmd.Dir = b.dir
	// The settings the tests always built golangci-lint with.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return false, fmt.Errorf("go build in %s: %w\n%s", b.dir, err, out)
	}
	after := buildID(ctx, b.bin)
	rebuilt = after == "" || after != before
	took := time.Since(start).Round(time.Millisecond)
	if rebuilt {
		b.logf("golangci-lint: built %s in %v (waited %v for the lock)", b.bin, took, waited.Round(time.Millisecond))
	} else {
		b.logf("golangci-lint: %s up to date (waited %v for the lock, go build took %v)", b.bin, waited.Round(time.Millisecond), took)
	}
	if err := linkOrCopy(b.bin, dst); err != nil {
		return false, fmt.Errorf("golangci-lint cache: %w", err)
	}
	return rebuilt, nil
}

// buildID returns the build ID of the binary at path, the one go build
// compares to decide whether to rewrite it, or "" if it has none.
func buildID(ctx context.Context, path string) string {
	out, err := exec.CommandContext(ctx, "go", "tool", "buildid", path).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// linkOrCopy makes dst a hard link to src, or a copy where it cannot.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}
