// Package ci tests the CI recipe of docs/ci.md, the files a Kubernetes
// fork copies: verify-plegvet.sh (its hack/verify-plegvet.sh), the GitHub
// Actions workflow and the golangci-lint settings. The script runs here
// for real, on copies of the look-alike checkout in testdata/src, with a
// plegvet built from this repository; a fake go command stands in for
// `go install` so that nothing is downloaded.
//
// The tests that read YAML are in yaml_test.go.
package ci

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/mod/semver"
)

const (
	scriptFile   = "verify-plegvet.sh"
	workflowFile = "github-workflow.yml"
	golangciFile = "golangci.yml"
	docFile      = "../ci.md"
	lookalike    = "../../testdata/src/k8s.io"
)

// The exit codes of the standalone plegvet, which the script keeps.
const (
	exitClean    = 0
	exitLoad     = 1
	exitFindings = 3
)

var shared struct {
	dir  string // removed by TestMain
	once sync.Once
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// plegvetBin builds plegvet from this repository, once for the package's
// tests, into a directory of its own: the workflow's steps find it on PATH
// by name. go run -exec cp builds it as go run does, then copies the
// executable there: go run keeps the executables it links in the build
// cache (go build -o links anew every time, seconds of CPU), so with a
// warm cache nothing is linked.
func plegvetBin(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "plegvet-ci-test")
		if shared.err != nil {
			return
		}
		bin := filepath.Join(shared.dir, "bin", "plegvet")
		if shared.err = os.Mkdir(filepath.Dir(bin), 0o777); shared.err != nil {
			return
		}
		cmd := exec.Command("go", "run", "-exec", "cp", "github.com/plegvet/plegvet/cmd/plegvet", bin)
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			shared.err = fmt.Errorf("go run -exec cp ./cmd/plegvet %s: %v\n%s", bin, err, out)
			return
		}
		shared.bin = bin
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.bin
}

func needBash(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	return bash
}

// A tree is a copy of the look-alike checkout, laid out as a Kubernetes
// checkout is: module k8s.io/kubernetes with its staging modules under
// staging/src/k8s.io, replaced in go.mod.
type tree struct {
	root     string
	features string // pkg/features/kube_features.go
}

var stagingModules = []string{"apimachinery", "apiserver", "component-base"}

func newTree(t *testing.T) tree {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir()) // as the script's pwd -P sees it
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(tmp, "kubernetes")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(lookalike, "kubernetes"))); err != nil {
		t.Fatal(err)
	}
	var req, repl strings.Builder
	for _, m := range stagingModules {
		dir := filepath.Join(root, "staging", "src", "k8s.io", m)
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(lookalike, m))); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "go.mod"), fmt.Sprintf("module k8s.io/%s\n\ngo 1.26\n", m))
		fmt.Fprintf(&req, "\tk8s.io/%s v0.0.0\n", m)
		fmt.Fprintf(&repl, "\tk8s.io/%s => ./staging/src/k8s.io/%s\n", m, m)
	}
	writeFile(t, filepath.Join(root, "go.mod"),
		"module k8s.io/kubernetes\n\ngo 1.26\n\nrequire (\n"+req.String()+")\n\nreplace (\n"+repl.String()+")\n")
	return tree{root: root, features: filepath.Join(root, "pkg", "features", "kube_features.go")}
}

// evented is the EventedPLEG spec of the look-alike's pkg/features.
const evented = `{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},`

// alphaOn turns EventedPLEG on by default while it is Alpha, which the
// alpha-default-on check reports, and returns the finding's line.
func (tr tree) alphaOn(t *testing.T) int {
	t.Helper()
	src, err := os.ReadFile(tr.features)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(src, []byte(evented))
	if i < 0 || bytes.Count(src, []byte(evented)) != 1 {
		t.Fatalf("%s: want EventedPLEG's spec %s exactly once", tr.features, evented)
	}
	on := strings.Replace(evented, "Default: false", "Default: true", 1)
	writeFile(t, tr.features, string(src[:i])+on+string(src[i+len(evented):]))
	return bytes.Count(src[:i], []byte("\n")) + 1
}

// alphaFinding is how the standalone plegvet reports alphaOn's finding.
func alphaFinding(line int) string {
	return fmt.Sprintf("pkg/features/kube_features.go:%d:3: feature gate EventedPLEG is Alpha but on by default at 1.26; Alpha gates must default to false [featuregate/alpha-default-on]", line)
}

// withScript copies the script into the tree as hack/verify-plegvet.sh
// and returns its path.
func (tr tree) withScript(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(scriptFile)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(tr.root, "hack", "verify-plegvet.sh")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command with env added to a neutral environment (no network
// for the go command: the trees hold every module they need) and returns
// its exit code, stdout and stderr.
func run(t *testing.T, dir string, env []string, name string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off", "GOTOOLCHAIN=local", "TMPDIR="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	default:
		t.Fatalf("running %s: %v", name, err)
		return 0, "", ""
	}
}

func TestVerifyScriptSyntax(t *testing.T) {
	bash := needBash(t)
	if code, out, errOut := run(t, ".", nil, bash, "-n", scriptFile); code != 0 {
		t.Fatalf("bash -n %s: exit %d\n%s%s", scriptFile, code, out, errOut)
	}
	fi, err := os.Stat(scriptFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&0o111 != 0o111 {
		t.Errorf("%s is %v; want it executable, as hack/verify-*.sh are", scriptFile, fi.Mode())
	}
	src, err := os.ReadFile(scriptFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#!/usr/bin/env bash\n", "\nset -o errexit\nset -o nounset\nset -o pipefail\n"} {
		if !bytes.Contains(src, []byte(want)) {
			t.Errorf("%s lacks %q", scriptFile, want)
		}
	}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		if code, out, errOut := run(t, ".", nil, sc, "--shell=bash", scriptFile); code != 0 {
			t.Errorf("shellcheck %s: exit %d\n%s%s", scriptFile, code, out, errOut)
		}
	}
}

// TestVerifyScript runs the script as a fork would have it, as
// hack/verify-plegvet.sh of a tree, with PLEGVET_BIN set to a plegvet
// built from this repository.
func TestVerifyScript(t *testing.T) {
	t.Parallel()
	bash := needBash(t)
	bin := plegvetBin(t)
	env := []string{"PLEGVET_BIN=" + bin}

	t.Run("clean tree", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		code, out, errOut := run(t, tr.root, env, bash, tr.withScript(t))
		if code != exitClean {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitClean, out, errOut)
		}
		if !strings.Contains(out, "plegvet found nothing to report in ./pkg/...") {
			t.Errorf("stdout lacks the success line:\n%s", out)
		}
		if strings.Contains(errOut, "ERROR:") {
			t.Errorf("stderr has an ERROR line:\n%s", errOut)
		}
	})

	t.Run("Alpha gate on by default", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		line := tr.alphaOn(t)
		// Started from elsewhere: the script finds the tree from its own path.
		code, out, errOut := run(t, t.TempDir(), env, bash, tr.withScript(t))
		if code != exitFindings {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errOut)
		}
		for _, want := range []string{
			"running plegvet ./pkg/... in " + tr.root,
			alphaFinding(line),
			"plegvet reported the findings above",
			`Rerun this check with "./hack/verify-plegvet.sh"`,
			"go run github.com/plegvet/plegvet/cmd/plegvet@" + scriptVersion(t) + " -json ./pkg/...",
			"help featuregate",
			"-featuregate.alpha-default-exempt",
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
		if !hasLine(errOut, "ERROR: ", alphaFinding(line)) {
			t.Errorf("stderr has no line ERROR: [DIR/]%s:\n%s", alphaFinding(line), errOut)
		}
	})

	t.Run("flags and packages pass through", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		tr.alphaOn(t)
		script := tr.withScript(t)
		code, out, errOut := run(t, tr.root, env, bash, script, "-featuregate.alpha-default-exempt=EventedPLEG")
		if code != exitClean {
			t.Errorf("exempted: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitClean, out, errOut)
		}
		code, out, errOut = run(t, tr.root, env, bash, script, "./pkg/kubelet/...")
		if code != exitClean || !strings.Contains(out, "nothing to report in ./pkg/kubelet/...") {
			t.Errorf("./pkg/kubelet/... only: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitClean, out, errOut)
		}
		code, _, errOut = run(t, tr.root, env, bash, script, "-no-such-flag")
		if code == exitClean || !strings.Contains(errOut, "plegvet stopped with exit code") {
			t.Errorf("unknown flag: exit %d, stderr:\n%s", code, errOut)
		}
	})

	t.Run("SARIF", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		tr.alphaOn(t)
		caller := t.TempDir()
		// Relative to where the script started; the directory is made.
		code, out, errOut := run(t, caller, append(env, "PLEGVET_SARIF=out/plegvet.sarif"), bash, tr.withScript(t))
		if code != exitFindings {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errOut)
		}
		sarif, err := os.ReadFile(filepath.Join(caller, "out", "plegvet.sarif"))
		if err != nil {
			t.Fatalf("PLEGVET_SARIF=out/plegvet.sarif, started in %s: %v", caller, err)
		}
		for _, want := range []string{`"version": "2.1.0"`, `"ruleId": "featuregate/alpha-default-on"`, `"uri": "pkg/features/kube_features.go"`} {
			if !bytes.Contains(sarif, []byte(want)) {
				t.Errorf("SARIF lacks %s", want)
			}
		}
	})

	t.Run("packages that do not load", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		writeFile(t, filepath.Join(filepath.Dir(tr.features), "broken.go"), "package features\n\nfunc Broken( {\n")
		code, out, errOut := run(t, tr.root, env, bash, tr.withScript(t))
		if code != exitLoad {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitLoad, out, errOut)
		}
		for _, want := range []string{"ERROR: ", "broken.go:3:", "plegvet could not load or analyse the packages", `try "go build ./pkg/..."`} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
	})

	t.Run("PLEGVET_BIN not a program", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		code, _, errOut := run(t, tr.root, []string{"PLEGVET_BIN=" + tr.features}, bash, tr.withScript(t))
		if code != 1 || !strings.Contains(errOut, "PLEGVET_BIN="+tr.features+" is not an executable file") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})

	t.Run("no go command", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		// A PATH with what the script needs but go.
		dir := t.TempDir()
		for _, tool := range []string{"dirname", "sed", "mktemp", "rm"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skipf("%s is not on PATH", tool)
			}
			if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
				t.Fatal(err)
			}
		}
		code, _, errOut := run(t, tr.root, append(env, "PATH="+dir), bash, tr.withScript(t))
		if code != 1 || !strings.Contains(errOut, "go is not on PATH") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})
}

// fakeGo writes a go command that logs `go install` and answers it with a
// plegvet that runs the one built here; anything else goes to the real go
// command (plegvet runs go list). It returns the directory to put first
// on PATH and the log's path.
func fakeGo(t *testing.T, installExit int) (dir, log string) {
	t.Helper()
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := plegvetBin(t)
	dir = t.TempDir()
	log = filepath.Join(t.TempDir(), "install.log")
	script := fmt.Sprintf(`#!/usr/bin/env bash
if [[ "${1:-}" == install ]]; then
  {
    echo "args=$*"
    echo "pwd=${PWD}"
    for v in GOBIN GOWORK GOFLAGS GOTOOLCHAIN; do echo "${v}=${!v-<unset>}"; done
  } >%q
  [[ %d -eq 0 ]] || { echo "go: fake install failure" >&2; exit %d; }
  target="${GOBIN:-${FAKE_DEFAULT_GOBIN:-}}" # GOPATH/bin without GOBIN
  printf '#!/bin/sh\nexec %%s "$@"\n' %q >"${target}/plegvet"
  chmod +x "${target}/plegvet"
  exit 0
fi
exec %q "$@"
`, log, installExit, installExit, bin, real)
	if err := os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

func readLog(t *testing.T, log string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("go install did not run: %v", err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		m[k] = v
	}
	return m
}

// TestVerifyScriptInstalls runs the script without PLEGVET_BIN: it installs
// plegvet with `go install` into a temporary GOBIN, here a fake go command.
func TestVerifyScriptInstalls(t *testing.T) {
	t.Parallel()
	bash := needBash(t)
	for _, tc := range []struct {
		name    string
		env     []string
		version string
	}{
		{name: "pinned version", version: scriptVersion(t)},
		{name: "PLEGVET_VERSION", env: []string{"PLEGVET_VERSION=v9.8.7"}, version: "v9.8.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			line := tr.alphaOn(t)
			fake, log := fakeGo(t, 0)
			tmp := t.TempDir()
			// The caller's GOFLAGS, GOWORK and GOTOOLCHAIN, which go list
			// (run by plegvet) takes and go install must not.
			env := append([]string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"),
				"TMPDIR=" + tmp, "GOFLAGS=-buildvcs=false", "GOWORK=", "GOTOOLCHAIN=local"}, tc.env...)
			code, out, errOut := run(t, tr.root, env, bash, tr.withScript(t))
			if code != exitFindings || !strings.Contains(errOut, alphaFinding(line)) {
				t.Fatalf("exit %d, want %d with the finding\nstdout:\n%s\nstderr:\n%s", code, exitFindings, out, errOut)
			}
			got := readLog(t, log)
			gobin := got["GOBIN"]
			want := map[string]string{
				"args":        "install github.com/plegvet/plegvet/cmd/plegvet@" + tc.version,
				"pwd":         gobin, // outside the tree
				"GOWORK":      "off",
				"GOFLAGS":     "",
				"GOTOOLCHAIN": "auto",
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("go install saw %s=%q, want %q", k, got[k], v)
				}
			}
			if filepath.Dir(gobin) != tmp || !strings.HasPrefix(filepath.Base(gobin), "verify-plegvet.") {
				t.Errorf("GOBIN %s is not a temporary directory under TMPDIR %s", gobin, tmp)
			}
			if _, err := os.Stat(gobin); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the temporary GOBIN %s is still there (%v)", gobin, err)
			}
			if !strings.Contains(out, "installing plegvet "+tc.version+" into "+gobin) {
				t.Errorf("stdout lacks the install line:\n%s", out)
			}
		})
	}

	t.Run("install fails", func(t *testing.T) {
		t.Parallel()
		tr := newTree(t)
		fake, _ := fakeGo(t, 1)
		tmp := t.TempDir()
		code, _, errOut := run(t, tr.root, []string{"PATH=" + fake + string(os.PathListSeparator) + os.Getenv("PATH"), "TMPDIR=" + tmp}, bash, tr.withScript(t))
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		for _, want := range []string{"go: fake install failure", "ERROR: could not install github.com/plegvet/plegvet/cmd/plegvet@" + scriptVersion(t), "PLEGVET_BIN"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("TMPDIR keeps %v", left)
		}
	})
}

// scriptVersion is the plegvet version the script pins.
func scriptVersion(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(scriptFile)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PLEGVET_VERSION="\$\{PLEGVET_VERSION:-([^}]+)\}"$`).FindSubmatch(src)
	if m == nil {
		t.Fatalf(`%s has no line PLEGVET_VERSION="${PLEGVET_VERSION:-VERSION}"`, scriptFile)
	}
	return string(m[1])
}

// TestOneVersion: every file of the recipe pins the same plegvet release,
// so that a release bumps them together.
func TestOneVersion(t *testing.T) {
	want := scriptVersion(t)
	if !semver.IsValid(want) {
		t.Fatalf("%s pins %q, not a module version", scriptFile, want)
	}
	pinned := regexp.MustCompile("(?:plegvet/plegvet(?:/cmd/plegvet)?@|PLEGVET_VERSION: |PLEGVET_VERSION:-|pin one plegvet release, `|`PLEGVET_VERSION` \\| `)(v[0-9][^\\s\"'`}]*)")
	for _, f := range []string{scriptFile, workflowFile, docFile} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range pinned.FindAllSubmatch(src, -1) {
			n++
			if got := string(m[1]); got != want {
				t.Errorf("%s pins plegvet %s, %s pins %s", f, got, scriptFile, want)
			}
		}
		if n == 0 {
			t.Errorf("%s pins no plegvet version", f)
		}
	}
}

// hasLine reports whether text has a line that starts with prefix and
// ends with suffix.
func hasLine(text, prefix, suffix string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, suffix) {
			return true
		}
	}
	return false
}

// TestDocNamesTheFiles: docs/ci.md links each file of the recipe.
func TestDocNamesTheFiles(t *testing.T) {
	doc, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{scriptFile, workflowFile, golangciFile} {
		if !bytes.Contains(doc, []byte("(ci/"+f+")")) {
			t.Errorf("%s does not link ci/%s", docFile, f)
		}
	}
}
