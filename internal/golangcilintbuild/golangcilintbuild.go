// Package golangcilintbuild builds, for the tests that run it, the
// golangci-lint of tools/golangci-lint (golangci-lint v2 with plegvet's
// module plugin compiled in) once for a given content of its inputs.
//
// gclplugin's tests and docs/ci's each need that binary, and `go test
// ./...` runs them as concurrent processes: each building its own, they
// compiled golangci-lint and its linters twice at once (about 14 minutes
// each on two cores with a cold build cache). Here the binary goes into a
// cache directory that outlives the test run, under a key hashed from its
// inputs (see Key), and a file lock makes a second process wait for the
// first one's build and take its result. A later run with the same inputs
// builds nothing.
//
// The cache is $PLEGVET_GOLANGCI_LINT_CACHE, else plegvet-golangci-lint
// under the user's cache directory. Entries not used for an hour are
// removed when a new one is built.
package golangcilintbuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Env is the environment variable naming the cache directory.
const Env = "PLEGVET_GOLANGCI_LINT_CACHE"

// module is the path of plegvet's module, whose go.mod marks the
// repository root.
const module = "github.com/plegvet/plegvet"

// toolDir is the golangci-lint module, relative to the repository root.
const toolDir = "tools/golangci-lint"

// binName is the binary's name inside its cache entry.
const binName = "golangci-lint"

// keyVersion is part of every key: changing how this package builds, or
// what it hashes, changes it.
const keyVersion = "golangcilintbuild 1"

// unused is how long an entry may go unused before a new build removes it.
const unused = time.Hour

// goEnv is the environment of the go commands this package runs: the
// settings the tests always built golangci-lint with.
func goEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
}

// Dir returns the cache directory: $PLEGVET_GOLANGCI_LINT_CACHE, else
// plegvet-golangci-lint under the user's cache directory, else under the
// temporary directory.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	if base, err := os.UserCacheDir(); err == nil {
		return filepath.Join(base, "plegvet-golangci-lint")
	}
	return filepath.Join(os.TempDir(), "plegvet-golangci-lint-"+strconv.Itoa(os.Getuid()))
}

// RepoRoot returns the plegvet repository holding the working directory:
// the nearest directory upwards whose go.mod declares plegvet's module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module "+module+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the plegvet repository")
		}
		dir = parent
	}
}

// Build returns the path of a golangci-lint built from root's
// tools/golangci-lint, from the cache when an entry has the key of root's
// inputs, else built into it. Concurrent callers with one key, in this
// process or in others, build once: the others wait for that build and
// take its result. logf, if not nil, says which happened.
func Build(ctx context.Context, root string, logf func(format string, args ...any)) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	key, err := Key(ctx, root)
	if err != nil {
		return "", err
	}
	c := cache{dir: Dir(), logf: logf, build: func(ctx context.Context, bin string) error {
		return goBuild(ctx, filepath.Join(root, filepath.FromSlash(toolDir)), bin)
	}}
	return c.get(ctx, key)
}

// ForTest is Build for a test: the repository is the one holding the
// test's package, the build stops 30 seconds before the test's deadline,
// and an error fails the test.
func ForTest(t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
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
	bin, err := Build(ctx, root, t.Logf)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("building golangci-lint from %s did not finish before the test's deadline (%v so far); a cold build takes minutes: rerun with -timeout 30m", filepath.Join(root, toolDir), time.Since(start).Round(time.Second))
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// goBuild builds the golangci-lint module in dir into bin.
func goBuild(ctx context.Context, dir, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %w\n%s", dir, err, out)
	}
	return nil
}

// Key hashes what the binary is built from: the go command's settings
// that change its output (toolchain, target, cgo), and the files of
// root that go into it, which Inputs lists. The modules golangci-lint
// needs are pinned by tools/golangci-lint's go.sum, one of those files.
func Key(ctx context.Context, root string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOROOT", "GOOS", "GOARCH",
		"GOAMD64", "GOARM64", "GO386", "GOARM", "CGO_ENABLED", "GOEXPERIMENT", "CC",
		"CGO_CFLAGS", "CGO_LDFLAGS", "GOFLAGS")
	cmd.Dir = filepath.Join(root, filepath.FromSlash(toolDir))
	cmd.Env = goEnv()
	goenv, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return "", fmt.Errorf("go env in %s: %w\n%s", cmd.Dir, err, ee.Stderr)
	} else if err != nil {
		return "", fmt.Errorf("go env in %s: %w", cmd.Dir, err)
	}
	return keyOf(goenv, root)
}

// keyOf hashes the go command's settings goenv with the inputs of root.
func keyOf(goenv []byte, root string) (string, error) {
	files, err := Inputs(root)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", keyVersion, goenv)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "%q %x\n", f, sum)
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// Inputs returns the files of root that a build of tools/golangci-lint
// may read, slash-separated and sorted: in every directory of plegvet's
// module and of tools/golangci-lint that holds a non-test Go file, the
// files but test files and names starting with "." or "_" (go.mod, go.sum
// and the sources among them), with what its //go:embed lines name.
// Directories the go command skips are skipped: testdata, names starting
// with "." or "_", and other modules nested in the repository.
//
// It takes more than a build reads (every such file, whatever its build
// constraints): a file too many costs a rebuild, a file missed a stale
// binary.
func Inputs(root string) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != "." {
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if rel != toolDir {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
		}
		return addPackageDir(set, root, rel)
	})
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(set))
	for f := range set {
		files = append(files, f)
	}
	slices.Sort(files)
	return files, nil
}

// addPackageDir adds the files of the directory rel (slash-separated,
// relative to root) to set when it holds a non-test Go file.
func addPackageDir(set map[string]bool, root, rel string) error {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var files, goFiles []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		files = append(files, name)
		if strings.HasSuffix(name, ".go") {
			goFiles = append(goFiles, name)
		}
	}
	if len(goFiles) == 0 {
		return nil
	}
	for _, f := range files {
		set[join(rel, f)] = true
	}
	for _, f := range goFiles {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		for _, pattern := range embedPatterns(src) {
			if err := addEmbedded(set, root, rel, pattern); err != nil {
				return err
			}
		}
	}
	return nil
}

// embedPatterns returns the patterns of a Go file's //go:embed lines,
// unquoted. It reads lines, not syntax: a line in a string or a comment
// block that looks like one only adds files.
func embedPatterns(src []byte) []string {
	var out []string
	for line := range strings.Lines(string(src)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "//go:embed")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		for _, f := range embedFields(rest) {
			out = append(out, strings.TrimPrefix(f, "all:"))
		}
	}
	return out
}

// embedFields splits a //go:embed line's patterns as the go command
// does: by spaces, a "double-quoted" or `back-quoted` one whole.
func embedFields(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out
		}
		end := strings.IndexAny(s, " \t")
		if q := s[0]; q == '"' || q == '`' {
			end = -1
			for i := 1; i < len(s); i++ {
				if q == '"' && s[i] == '\\' {
					i++
				} else if s[i] == q {
					end = i + 1
					break
				}
			}
		}
		if end < 0 {
			end = len(s)
		}
		f := s[:end]
		if u, err := strconv.Unquote(f); err == nil {
			f = u
		}
		out = append(out, f)
		s = s[end:]
	}
}

// addEmbedded adds the files a //go:embed pattern of the directory rel
// matches, whole trees for directories.
func addEmbedded(set map[string]bool, root, rel, pattern string) error {
	dir := filepath.Join(root, filepath.FromSlash(rel))
	matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
	if err != nil {
		return nil // a bad pattern fails the build, not the key
	}
	for _, m := range matches {
		err := filepath.WalkDir(m, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			r, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			set[filepath.ToSlash(r)] = true
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// A cache holds built binaries, one directory per key.
type cache struct {
	dir   string
	logf  func(format string, args ...any)
	build func(ctx context.Context, bin string) error // writes the binary to bin
}

// get returns the binary of key, built by c.build unless the cache has
// it; a build of key elsewhere is waited for.
func (c cache) get(ctx context.Context, key string) (string, error) {
	entry := filepath.Join(c.dir, key)
	bin := filepath.Join(entry, binName)
	if c.have(entry, bin) {
		c.logf("golangci-lint: %s, built earlier", bin)
		return bin, nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return "", fmt.Errorf("golangci-lint cache: %w", err)
	}
	start := time.Now()
	unlock, err := lock(ctx, filepath.Join(c.dir, key+".lock"), func() {
		c.logf("golangci-lint: waiting for another process's build of %s", entry)
	})
	if err != nil {
		return "", fmt.Errorf("golangci-lint cache: lock %s: %w", key, err)
	}
	defer unlock()
	if c.have(entry, bin) {
		c.logf("golangci-lint: %s, built by another process (waited %v)", bin, time.Since(start).Round(time.Millisecond))
		return bin, nil
	}
	tmp, err := os.MkdirTemp(c.dir, key+".tmp-")
	if err != nil {
		return "", fmt.Errorf("golangci-lint cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := c.build(ctx, filepath.Join(tmp, binName)); err != nil {
		return "", err
	}
	// Under the lock nobody else writes entry; a directory without the
	// binary is what an older version of this package might leave.
	if err := os.RemoveAll(entry); err != nil {
		return "", fmt.Errorf("golangci-lint cache: %w", err)
	}
	if err := os.Rename(tmp, entry); err != nil {
		return "", fmt.Errorf("golangci-lint cache: %w", err)
	}
	c.logf("golangci-lint: built %s in %v", bin, time.Since(start).Round(time.Second))
	c.prune(key)
	return bin, nil
}

// have reports whether entry holds its binary, and marks it used.
func (c cache) have(entry, bin string) bool {
	if fi, err := os.Stat(bin); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(entry, now, now)
	return true
}

// prune removes the entries other than key's not used for an hour, and
// what killed builds left behind. It keeps what it cannot remove.
func (c cache) prune(key string) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, key) {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < unused {
			continue
		}
		path := filepath.Join(c.dir, name)
		if k, ok := strings.CutSuffix(name, ".lock"); ok {
			// Only when no build holds it, and its entry is gone.
			if _, err := os.Stat(filepath.Join(c.dir, k)); err == nil {
				continue
			}
			if unlock, ok := tryLock(path); ok {
				os.Remove(path)
				unlock()
			}
			continue
		}
		if e.IsDir() {
			os.RemoveAll(path)
		}
	}
}
