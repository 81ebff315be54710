package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tree written for one case: path -> content.
type files map[string]string

const goodFeatures = `package features

import "k8s.io/component-base/featuregate"

const EventedPLEG featuregate.Feature = "EventedPLEG"

var gates = map[featuregate.Feature]featuregate.FeatureSpec{
	EventedPLEG: {Default: false, PreRelease: featuregate.Alpha},
}
`

// TestBadInput is the table of inputs nobody planned for, each with the
// exact line a user sees and the exit code. {dir} stands for the case's
// directory.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		tree   files
		env    map[string]string
		code   int
		stderr string // the first line of stderr, exactly
		stdout string // a substring of stdout, when the answer is still printed
	}{{
		name:   "a directory that is not a Kubernetes tree",
		args:   []string{"gates", "-C", "{dir}"},
		tree:   files{"README": "hello"},
		code:   exitFailure,
		stderr: "plegvet gates: {dir}: not a Kubernetes tree: no go.mod; want the root of a checkout, where go.mod declares module k8s.io/kubernetes",
	}, {
		name:   "a file where a directory is expected",
		args:   []string{"gates", "-C", "{dir}/README"},
		tree:   files{"README": "hello"},
		code:   exitFailure,
		stderr: "plegvet gates: {dir}/README: not a directory; want the root of a Kubernetes checkout (-C DIR)",
	}, {
		name:   "a checkout without dependencies or vendor/: answered from partially typed source, and said so",
		args:   []string{"gates", "-C", "{dir}"},
		tree:   files{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/f.go": goodFeatures},
		code:   exitOK,
		stdout: "(loaded from source, 0 imports stubbed)",
	}, {
		// The file that does not parse may be the one importing the API:
		// named, not "no package imports" it.
		name:   "the only feature file's imports do not parse",
		args:   []string{"gates", "-C", "{dir}"},
		tree:   files{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/kube_features.go": strings.Replace(goodFeatures, "import \"", "import (\"", 1)},
		code:   exitFailure,
		stderr: "plegvet gates: pkg/features/kube_features.go:5:1: syntax error: missing import path; no other package of pkg/ or of a staging module imports k8s.io/component-base/featuregate: no feature maps",
	}, {
		name:   "a feature file whose imports do not parse beside one that does: the rest analysed, the file named at its line",
		args:   []string{"gates", "-C", "{dir}"},
		tree:   files{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/f.go": goodFeatures, "staging/src/k8s.io/x/go.mod": "module k8s.io/x\n", "staging/src/k8s.io/x/g.go": "package x\n\nimport ((\"k8s.io/component-base/featuregate\")\n"},
		code:   exitFailure,
		stderr: "plegvet gates: staging/src/k8s.io/x/g.go:3:9: syntax error: missing import path (the rest was analysed)",
	}, {
		name:   "a syntax error in pkg/features: the rest analysed, the file named",
		args:   []string{"gates", "-C", "{dir}"},
		tree:   files{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/f.go": goodFeatures, "pkg/features/bad.go": "package features\n\nvar = 1\n"},
		code:   exitFailure,
		stderr: "plegvet gates: pkg/features/bad.go:3:5: syntax error: expected 'IDENT', found '=' (the rest was analysed)",
		stdout: "EventedPLEG",
	}, {
		name: "a syntax error in pkg/kubelet: the periods still found, the file named",
		args: []string{"periods", "-C", "{dir}"},
		tree: files{
			"go.mod":                      "module k8s.io/kubernetes\n",
			"pkg/features/f.go":           goodFeatures,
			"pkg/kubelet/pleg/pleg.go":    "package pleg\n\nimport \"time\"\n\ntype G struct{ p time.Duration; t *time.Timer }\n\nfunc NewGenericPLEG(p time.Duration) *G { return &G{p: p} }\n\nfunc (g *G) run() { g.t.Reset(g.p) }\n",
			"pkg/kubelet/kubelet.go":      "package kubelet\n\nimport (\n\t\"time\"\n\n\t\"k8s.io/kubernetes/pkg/kubelet/pleg\"\n)\n\nfunc New() { pleg.NewGenericPLEG(2 * time.Second) }\n",
			"pkg/kubelet/kubelet_oops.go": "package kubelet\n\nfunc (",
		},
		code:   exitFailure,
		stderr: "plegvet periods: pkg/kubelet/kubelet_oops.go:3:7: syntax error: expected ')', found 'EOF' (the rest was analysed)",
		stdout: "relist period     2s (pkg/kubelet/kubelet.go:9)",
	}, {
		name:   "feature maps of unexpected shapes: unresolved, with why",
		args:   []string{"gates", "-C", "{dir}", "-json"},
		tree:   files{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/f.go": "package features\n\nimport \"k8s.io/component-base/featuregate\"\n\nfunc spec() featuregate.FeatureSpec { return featuregate.FeatureSpec{} }\n\nvar on = true\n\nvar gates = map[featuregate.Feature]featuregate.FeatureSpec{\n\t\"Called\": spec(),\n\t\"Flagged\": {Default: on},\n}\n"},
		code:   exitOK,
		stdout: `"unresolved": "spec is built by the call spec(...), not a composite literal"`,
	}, {
		name:   "a missing api.proto",
		args:   []string{"rpc", "-proto", "{dir}/api.proto"},
		code:   exitFailure,
		stderr: "plegvet rpc: {dir}/api.proto: no such file; want the CRI api.proto (k8s.io/cri-api/pkg/apis/runtime/v1/api.proto)",
	}, {
		name:   "an empty api.proto",
		args:   []string{"rpc", "-proto", "{dir}/api.proto"},
		tree:   files{"api.proto": "\n"},
		code:   exitFailure,
		stderr: "plegvet rpc: {dir}/api.proto: empty file; want a proto file declaring service RuntimeService",
	}, {
		name:   "an api.proto with a syntax error",
		args:   []string{"rpc", "-proto", "{dir}/api.proto"},
		tree:   files{"api.proto": "syntax = \"proto3\";\nservice RuntimeService {\n  rpc GetContainerEvents(GetEventsRequest) returns stream X {}\n}\n"},
		code:   exitFailure,
		stderr: `plegvet rpc: {dir}/api.proto:3:52: found "stream" but expected [rpc type opening (]`,
	}, {
		name:   "a list holding a range (report)",
		args:   []string{"report", "-k8s", "v1.25.0,v1.26.0..v1.30.0"},
		code:   exitUsage,
		stderr: `plegvet report: -k8s "v1.25.0,v1.26.0..v1.30.0": a comma list and a range mixed; want a comma list (v1.25.16,v1.30.14) or one range (v1.26.0..v1.37.2)`,
	}, {
		name:   "a range holding a list (gates)",
		args:   []string{"gates", "-k8s", "v1.26.0..v1.30.0,v1.31.0", "EventedPLEG"},
		code:   exitUsage,
		stderr: `plegvet gates: -k8s "v1.26.0..v1.30.0,v1.31.0": a comma list and a range mixed; want a comma list (v1.25.16,v1.30.14) or one range (v1.26.0..v1.37.2)`,
	}, {
		name:   "a malformed version",
		args:   []string{"report", "-k8s", "1.x"},
		code:   exitFailure,
		stderr: `plegvet report: -k8s "1.x": not a Kubernetes release version; want v1.MINOR.PATCH, such as v1.36.1`,
	}, {
		name:   "GOPROXY=off and a version not in the module cache",
		args:   []string{"periods", "-k8s", "v1.20.999"},
		env:    map[string]string{"GOPROXY": "off"},
		code:   exitFailure,
		stderr: "plegvet periods: cannot fetch k8s.io/kubernetes@v1.20.999 with the go command: k8s.io/kubernetes@v1.20.999: module lookup disabled by GOPROXY=off",
	}, {
		name:   "an unknown flag",
		args:   []string{"periods", "-jsn"},
		code:   exitUsage,
		stderr: "plegvet periods: flag provided but not defined: -jsn (see plegvet periods -h)",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.tree)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "{dir}", dir)
			}
			var stdout, stderr bytes.Buffer
			code := dispatch(args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			first, _, _ := strings.Cut(stderr.String(), "\n")
			if want := strings.ReplaceAll(tc.stderr, "{dir}", dir); first != want {
				t.Errorf("stderr:\n got %s\nwant %s", first, want)
			}
			// Text wraps to fit a terminal: compare words, not line breaks.
			if !strings.Contains(strings.Join(strings.Fields(stdout.String()), " "), strings.Join(strings.Fields(tc.stdout), " ")) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
		})
	}
}

// writeFiles writes files, by path relative to dir, their directories
// made.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
