package gclplugin_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/golangcilintbuild"
)

// golangci-lint's exit codes (github.com/golangci/golangci-lint/v2/pkg/exitcodes).
const (
	gclSuccess     = 0
	gclIssuesFound = 1
	gclFailure     = 3
)

// The fixture's findings, as golangci-lint prints them: file:line:col,
// the analyzer's name before its message (the linter is plegvet), and
// the linter's name after it.
const (
	alphaFinding    = "pkg/features/kube_features.go:24:3: featuregate: feature gate PrematureAlpha is Alpha but on by default at 1.36; Alpha gates must default to false (plegvet)"
	fallbackFinding = "pkg/kubelet/kubelet.go:30:2: pleg: with EventedPLEG on, after the event stream fails for good the relist stays at 10m0s (relistRarely)"
	fallbackRelated = "pkg/kubelet/kubelet.go:15:2: pleg(related information): remaining period relistRarely = 10 * time.Minute (plegvet)"
	noteFinding     = "pkg/kubelet/kubelet.go:25:2: pleg: EventedPLEG (Alpha, default false): generic relist 1s -> 10m0s when on (x600) (plegvet)"
)

// TestGolangciLint builds golangci-lint v2 with the plugin compiled in
// (the tools/golangci-lint module) and runs it on testdata/tree, a module
// laid out like a Kubernetes checkout with a gate and a PLEG wiring that
// break plegvet's rules. The first build compiles golangci-lint and its
// linters: minutes on two cores, with a cold build cache. The binary is
// shared with docs/ci's test through internal/testkit/golangcilintbuild: built by
// whichever test asks first, a no-op for the other while it is up to date.
func TestGolangciLint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds golangci-lint (minutes on a cold cache); skipped with -short")
	}
	gcl := golangcilintbuild.ForTest(t)

	// Each case runs on a fresh copy of the tree, so that nothing is
	// written under testdata, with its .golangci.yml replaced when the
	// case has one ("" runs the tree's own).
	for _, tc := range []struct {
		name     string
		settings string            // YAML under linters.settings.custom.plegvet.settings, indented 10 spaces
		files    map[string]string // written over the tree's copy
		wantCode int
		want     []string // substrings of the output
		dontWant []string
	}{
		{
			name:     "the fixture's .golangci.yml",
			wantCode: gclIssuesFound,
			want:     []string{alphaFinding, fallbackFinding, fallbackRelated},
			dontWant: []string{"gate-note", "x600"},
		},
		{
			name: "exempt a gate and report the gate note",
			settings: `
          featuregate:
            alphaDefaultExempt: [PrematureAlpha]
          pleg:
            note: true`,
			wantCode: gclIssuesFound,
			want:     []string{noteFinding, fallbackFinding},
			dontWant: []string{"PrematureAlpha"},
		},
		{
			// featuregate's checks do not run; pleg reads the gate's stage
			// (the note names it) through gatefacts, which it requires.
			name: "disable featuregate",
			settings: `
          pleg:
            note: true
          disable: [featuregate]`,
			wantCode: gclIssuesFound,
			want:     []string{noteFinding, fallbackFinding},
			dontWant: []string{"featuregate:", "PrematureAlpha"},
		},
		{
			name: "a tree that breaks nothing it is checked for",
			settings: `
          featuregate:
            rules: "1.36"
            alphaDefaultExempt: [PrematureAlpha]
          disable: [pleg]`,
			wantCode: gclSuccess,
			want:     []string{"0 issues."},
			dontWant: []string{"(plegvet)"},
		},
		{
			// A gate registered by one package and relisted by another
			// that imports it, with another default: component-base
			// refuses the second registration at init.
			name: "a gate registered twice",
			settings: `
          disable: [pleg]`,
			files: map[string]string{
				"pkg/features/shared/shared.go": relistedGate,
				"pkg/features/kube_features.go": relistingFeatures,
			},
			wantCode: gclIssuesFound,
			want: []string{
				`pkg/features/kube_features.go:12:2: featuregate: feature gate "Shared" with different spec already exists`,
				`pkg/features/shared/shared.go:12:2: featuregate: feature gate "Shared" with different spec already exists`,
			},
			dontWant: []string{"EventedPLEG"},
		},
		{
			name: "unknown key",
			settings: `
          pleg:
            notes: true`,
			wantCode: gclFailure,
			want:     []string{`plugin(plegvet): newPlugin plegvet settings: unknown key "pleg.notes" (known: featuregate.rules, featuregate.alphaDefaultExempt, pleg.note, disable)`},
			dontWant: []string{"pkg/", "issues"}, // stopped before linting
		},
		{
			name: "unquoted version",
			settings: `
          featuregate:
            rules: 1.30`,
			wantCode: gclFailure,
			want:     []string{`plugin(plegvet): newPlugin plegvet settings: featuregate.rules: got a number, want a string (quote it: YAML reads an unquoted 1.30 as the number 1.3)`},
			dontWant: []string{"pkg/", "issues"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := t.TempDir()
			if err := os.CopyFS(tree, os.DirFS("testdata/tree")); err != nil {
				t.Fatal(err)
			}
			for name, text := range tc.files {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(tree, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(tree, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.settings != "" {
				cfg := "version: \"2\"\nlinters:\n  default: none\n  enable: [plegvet]\n  settings:\n    custom:\n      plegvet:\n        type: module\n        settings:" + tc.settings + "\n"
				if err := os.WriteFile(filepath.Join(tree, ".golangci.yml"), []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out := runGolangciLint(t, gcl, tree)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d", code, tc.wantCode)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks\n\t%s", w)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q", w)
				}
			}
			if t.Failed() {
				t.Logf("golangci-lint run output:\n%s", out)
			}
		})
	}
}

// relistedGate registers a gate, as a staging module registers its own.
const relistedGate = `// Package shared registers a gate that pkg/features relists.
package shared

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const Shared featuregate.Feature = "Shared"

var SharedGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Shared: {{Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.Beta}},
}
`

// relistingFeatures relists shared's gate with another default.
const relistingFeatures = `// Package features relists a gate of package shared.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/features/shared"
)

var kubeletGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	EventedPLEG: {{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha}},
	shared.Shared: {{Version: version.MustParse("1.16"), Default: false, PreRelease: featuregate.Beta}},
}

const EventedPLEG featuregate.Feature = "EventedPLEG"
`

// runGolangciLint runs `golangci-lint run ./...` in dir, with its cache
// and temporary files (the lock file among them) in the test's temporary
// directories, and returns the exit code and the combined output.
func runGolangciLint(t *testing.T, gcl, dir string) (int, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), gcl, "run",
		"--config", filepath.Join(dir, ".golangci.yml"),
		"--output.text.print-issued-lines=false",
		"--output.text.colors=false",
		"./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOLANGCI_LINT_CACHE="+t.TempDir(),
		"TMPDIR="+t.TempDir(),
		"GOWORK=off",
		"GOFLAGS=",
		"GOPROXY=off", // the tree needs no module it does not hold
	)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	default:
		t.Fatalf("running %s: %v", gcl, err)
		return 0, ""
	}
}
