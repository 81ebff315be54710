package golangcilintbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helper process: TestOneBuildAcrossProcesses runs this test binary
// again as several processes, each getting one key from one cache.
const (
	helperEnv  = "GOLANGCILINTBUILD_HELPER" // the cache directory
	helperKey  = "0123456789abcdef0123456789abcdef"
	helperWant = "GOLANGCILINTBUILD_HELPER_PROCS" // how many processes
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		os.Exit(helper(dir))
	}
	os.Exit(m.Run())
}

// helper gets helperKey from the cache in dir with a build that appends
// its pid to dir/../builds and, before writing the binary, waits until
// every other process has said in dir/../waiters that it waits for the
// lock: the build then finishes only if the others do wait for it. It
// prints the binary's path and content.
func helper(dir string) int {
	procs, err := strconv.Atoi(os.Getenv(helperWant))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	meta := filepath.Dir(dir)
	appendLine := func(name string) {
		f, err := os.OpenFile(filepath.Join(meta, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	c := cache{
		dir: dir,
		logf: func(format string, args ...any) {
			if strings.Contains(format, "waiting") {
				appendLine("waiters")
			}
		},
		build: func(ctx context.Context, bin string) error {
			appendLine("builds")
			deadline := time.Now().Add(time.Minute)
			for lines(filepath.Join(meta, "waiters")) < procs-1 {
				if n := lines(filepath.Join(meta, "builds")); n > 1 {
					return fmt.Errorf("process %d: %d builds at once", os.Getpid(), n)
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("process %d: %d of the %d other processes waited for its build", os.Getpid(), lines(filepath.Join(meta, "waiters")), procs-1)
				}
				time.Sleep(20 * time.Millisecond)
			}
			return os.WriteFile(bin, []byte("built by "+strconv.Itoa(os.Getpid())), 0o755)
		},
	}
	bin, err := c.get(context.Background(), helperKey)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%s\n%s\n", bin, data)
	return 0
}

func lines(name string) int {
	data, _ := os.ReadFile(name)
	return bytes.Count(data, []byte("\n"))
}

// Processes started at once for one key build once: the others wait on
// the lock (the build does not finish until they all do) and take the
// first one's binary.
func TestOneBuildAcrossProcesses(t *testing.T) {
	const procs = 3
	meta := t.TempDir()
	dir := filepath.Join(meta, "cache")
	type result struct {
		out string
		err error
	}
	results := make([]result, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperWant+"="+strconv.Itoa(procs))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				err = fmt.Errorf("%w: %s", err, stderr.Bytes())
			}
			results[i] = result{string(out), err}
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("process %d: %v", i, r.err)
		}
		if r.out != results[0].out {
			t.Errorf("process %d got\n%s\nprocess 0 got\n%s", i, r.out, results[0].out)
		}
	}
	want := filepath.Join(dir, helperKey, binName) + "\nbuilt by "
	if !strings.HasPrefix(results[0].out, want) {
		t.Errorf("got\n%s\nwant it to start with\n%s", results[0].out, want)
	}
	if n := lines(filepath.Join(meta, "builds")); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
	if n := lines(filepath.Join(meta, "waiters")); n != procs-1 {
		t.Errorf("%d processes waited, want %d", n, procs-1)
	}
}

// countingCache is a cache whose builds write the binary and count.
func countingCache(t *testing.T, dir string, fail error) (*cache, *int, *[]string) {
	n := 0
	var logs []string
	c := &cache{
		dir:  dir,
		logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
		build: func(ctx context.Context, bin string) error {
			n++
			if fail != nil {
				os.WriteFile(bin, []byte("half"), 0o755)
				return fail
			}
			return os.WriteFile(bin, []byte("bin "+strconv.Itoa(n)), 0o755)
		},
	}
	return c, &n, &logs
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A key is built once, later gets take the entry, another key is built
// again; a failed build leaves nothing that a later get would take.
func TestCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	keyA, keyB := strings.Repeat("a", 32), strings.Repeat("b", 32)

	failing, fails, _ := countingCache(t, dir, errors.New("compile error"))
	if _, err := failing.get(t.Context(), keyA); err == nil || !strings.Contains(err.Error(), "compile error") {
		t.Fatalf("a failed build: err %v, want the build's", err)
	}
	if *fails != 1 {
		t.Fatalf("%d builds, want 1", *fails)
	}

	c, builds, logs := countingCache(t, dir, nil)
	a1, err := c.get(t.Context(), keyA)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, a1); got != "bin 1" {
		t.Errorf("after a failed build, got %q, want a new build's binary", got)
	}
	a2, err := c.get(t.Context(), keyA)
	if err != nil {
		t.Fatal(err)
	}
	if a2 != a1 || *builds != 1 {
		t.Errorf("second get of one key: %s after %s, %d builds; want the same binary, 1 build", a2, a1, *builds)
	}
	b, err := c.get(t.Context(), keyB)
	if err != nil {
		t.Fatal(err)
	}
	if b == a1 || read(t, b) != "bin 2" || *builds != 2 {
		t.Errorf("another key: %s (%s), %d builds; want a binary of its own, 2 builds", b, read(t, b), *builds)
	}
	if !slices.ContainsFunc(*logs, func(s string) bool { return strings.Contains(s, "built earlier") }) {
		t.Errorf("no log says the binary was built earlier: %q", *logs)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*.tmp-*"))
	if len(left) != 0 {
		t.Errorf("builds left %v", left)
	}
}

// A new build removes the entries not used for an hour, keeps the others,
// and keeps a lock that a build holds.
func TestPrune(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, _, _ := countingCache(t, dir, nil)
	old, recent, held := strings.Repeat("1", 32), strings.Repeat("2", 32), strings.Repeat("3", 32)
	for _, k := range []string{old, recent} {
		if _, err := c.get(t.Context(), k); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := lock(t.Context(), filepath.Join(dir, held+".lock"), func() {})
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	longAgo := time.Now().Add(-2 * unused)
	for _, name := range []string{old, old + ".lock", held + ".lock"} {
		if err := os.Chtimes(filepath.Join(dir, name), longAgo, longAgo); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.get(t.Context(), strings.Repeat("4", 32)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{old: false, old + ".lock": false, recent: true, held + ".lock": true} {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != want {
			t.Errorf("%s kept %v, want %v", name, got, want)
		}
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

// writeTree writes files (slash paths) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Inputs takes what the build may read and nothing a build skips; the
// key changes with an input and with nothing else.
func TestInputsAndKey(t *testing.T) {
	root := t.TempDir()
	in := map[string]string{
		"go.mod":                      "module " + module + "\n\ngo 1.26\n",
		"go.sum":                      "",
		"a.go":                        "package a\n",
		"notes.txt":                   "beside a.go: embeddable",
		"sub/b.go":                    "package sub\n\nimport _ \"embed\"\n\n//go:embed stubs/*.txt \"quoted dir\"\nvar s string\n\n//go:embed `back quoted.txt`\nvar b string\n\n//go:embedded ign/ignored.txt\n",
		"sub/back quoted.txt":         "back",
		"sub/stubs/s.txt":             "stub",
		"sub/quoted dir/deep/d.txt":   "deep",
		"embedall/e.go":               "package embedall\n\n//go:embed all:tpl\nvar s string\n",
		"embedall/tpl/.hidden":        "hidden, but all:",
		"tools/golangci-lint/go.mod":  "module " + module + "/tools/golangci-lint\n\ngo 1.26\n",
		"tools/golangci-lint/go.sum":  "sum\n",
		"tools/golangci-lint/main.go": "package main\n",
	}
	out := map[string]string{
		"a_test.go":           "package a\n",
		"sub/stubs/other.md":  "not matched by stubs/*.txt",
		"testdata/x.go":       "package x\n",
		"sub/testdata/y.go":   "package y\n",
		".hidden/h.go":        "package h\n",
		"_under/u.go":         "package u\n",
		".golangci.yml":       "dot file",
		"docs/notes.md":       "no Go here",
		"docs/ci/c_test.go":   "package ci\n",
		"tools/other/go.mod":  "module other\n",
		"tools/other/o.go":    "package other\n",
		"nested/go.mod":       "module nested\n",
		"nested/n.go":         "package nested\n",
		"sub/ign/ignored.txt": "named by //go:embedded, no directive",
	}
	writeTree(t, root, in)
	writeTree(t, root, out)

	got, err := Inputs(root)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for f := range in {
		want = append(want, f)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Inputs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	key0, err := Key(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	// The go command's settings are the same for every key below.
	goenv := []byte("GOVERSION=go1.99\n")
	key1, err := keyOf(goenv, root)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := keyOf(goenv, root); err != nil || k != key1 || k == key0 {
		t.Fatalf("keys %s, %s of one tree with one go env, %s with another's (%v)", key1, k, key0, err)
	}
	for f, text := range out {
		writeTree(t, root, map[string]string{f: text + "\n// changed\n"})
		if k, err := keyOf(goenv, root); err != nil || k != key1 {
			t.Errorf("changing %s changed the key (%v)", f, err)
		}
	}
	seen := map[string]bool{key1: true}
	for _, f := range want {
		writeTree(t, root, map[string]string{f: in[f] + "\n// changed\n"})
		k, err := keyOf(goenv, root)
		if err != nil {
			t.Fatal(err)
		}
		if seen[k] {
			t.Errorf("changing %s left the key one it had", f)
		}
		seen[k] = true
	}
}

// Inputs holds every file that `go list -deps` says the build reads from
// this repository: the sources and embedded files of each package of
// plegvet's module and of tools/golangci-lint, and their go.mod.
func TestInputsCoverTheBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("loads golangci-lint's packages (its modules must be in the module cache); skipped with -short")
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := Inputs(root)
	if err != nil {
		t.Fatal(err)
	}
	has := map[string]bool{}
	for _, f := range inputs {
		has[f] = true
	}
	cmd := exec.CommandContext(t.Context(), "go", "list", "-deps", "-json=ImportPath,Dir,Module,GoFiles,CgoFiles,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles,SwigFiles,SwigCXXFiles,SysoFiles,EmbedFiles", ".")
	cmd.Dir = filepath.Join(root, filepath.FromSlash(toolDir))
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("go list: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) (string, bool) {
		r, err := filepath.Rel(root, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
	ours := 0
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Dir string
			Module          *struct{ Path, Dir, GoMod string }
			GoFiles, CgoFiles, CFiles, CXXFiles, MFiles, HFiles, FFiles, SFiles,
			SwigFiles, SwigCXXFiles, SysoFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Module == nil {
			continue // the standard library: GOVERSION and GOROOT are in the key
		}
		if _, inRepo := rel(p.Module.Dir); !inRepo {
			continue // from the module cache: pinned by go.sum
		}
		ours++
		var files []string
		for _, l := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles, p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.EmbedFiles} {
			for _, f := range l {
				files = append(files, filepath.Join(p.Dir, f))
			}
		}
		files = append(files, p.Module.GoMod, filepath.Join(p.Module.Dir, "go.sum"))
		for _, f := range files {
			r, ok := rel(f)
			if !ok {
				t.Errorf("%s: %s is outside the repository", p.ImportPath, f)
			} else if !has[r] {
				t.Errorf("%s: the build reads %s, which Inputs lacks", p.ImportPath, r)
			}
		}
	}
	// gclplugin, the suite, three analyzers and more, and main.
	if ours < 10 {
		t.Errorf("go list listed %d packages of this repository; want gclplugin and what it imports", ours)
	}
}
