package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lookAlike is the look-alike checkout the hostile cases start from.
const lookAlike = "../../testdata/src/k8s.io/kubernetes"

// A special file of a hostile case: "fifo", "dir", or "symlink:TARGET".
type specials map[string]string

// TestHostileInput is issue #10's table: trees and captures built to make
// plegvet panic, hang or answer wrongly, each with the exact first line a
// user sees and the exit code. Every case starts from the look-alike
// checkout, changed by tree (path -> content, "" deletes) and special.
func TestHostileInput(t *testing.T) {
	evented := readLookAlike(t, "pkg/kubelet/kubelet.go")
	features := readLookAlike(t, "pkg/features/kube_features.go")
	tests := []struct {
		name    string
		args    []string
		tree    files
		special specials
		code    int
		stderr  string // the first line of stderr, exactly
		stdout  string // a substring of stdout
	}{{
		name:   "an empty file beside the feature list: named, not a panic",
		args:   []string{"gates", "-C", "{dir}", "EventedPLEG"},
		tree:   files{"pkg/features/client_adapter.go": ""},
		code:   exitFailure,
		stderr: "plegvet gates: pkg/features/client_adapter.go:1:1: syntax error: expected 'package', found 'EOF' (the rest was analysed)",
		stdout: "EventedPLEG  Alpha",
	}, {
		name:   "a binary file beside the feature list",
		args:   []string{"report", "-C", "{dir}"},
		tree:   files{"pkg/features/client_adapter.go": "\x7fELF\x02\x01\x01\x00\x00\x00"},
		code:   exitFailure,
		stderr: "plegvet report: pkg/features/client_adapter.go: holds a NUL byte at offset 7; not Go source (the rest was analysed)",
		stdout: "Feature gate  EventedPLEG: Alpha, default false",
	}, {
		name:   "a file of another package: named with both names",
		args:   []string{"periods", "-C", "{dir}"},
		tree:   files{"pkg/kubelet/pleg/zz_other.go": "package other\n\nfunc NewEventedPLEG() {}\n"},
		code:   exitFailure,
		stderr: "plegvet periods: pkg/kubelet/pleg/zz_other.go:1:9: package other, want pleg (the package's other files) (the rest was analysed)",
	}, {
		name:    "a symlink to a device among the package's files",
		args:    []string{"periods", "-C", "{dir}"},
		special: specials{"pkg/kubelet/zz_dev.go": "symlink:/dev/zero"},
		code:    exitFailure,
		stderr:  "plegvet periods: pkg/kubelet/zz_dev.go: is a symbolic link to /dev/zero, a character device; want a regular file (the rest was analysed)",
	}, {
		name:    "a FIFO among the package's files: refused, never opened",
		args:    []string{"gates", "-C", "{dir}"},
		special: specials{"pkg/features/zz_fifo.go": "fifo"},
		code:    exitFailure,
		stderr:  "plegvet gates: pkg/features/zz_fifo.go: is a named pipe (FIFO), want a regular file (the rest was analysed)",
	}, {
		name:    "a FIFO as go.mod",
		args:    []string{"gates", "-C", "{dir}"},
		tree:    files{"go.mod": ""},
		special: specials{"go.mod": "fifo"},
		code:    exitFailure,
		stderr:  "plegvet gates: {dir}: go.mod is a named pipe (FIFO), want a regular file",
	}, {
		name:    "go.mod is a directory",
		args:    []string{"gates", "-C", "{dir}"},
		tree:    files{"go.mod": ""},
		special: specials{"go.mod": "dir"},
		code:    exitFailure,
		stderr:  "plegvet gates: {dir}: go.mod is a directory, want a file",
	}, {
		name:   "go.mod of another module",
		args:   []string{"report", "-C", "{dir}"},
		tree:   files{"go.mod": "module example.com/notkube\n"},
		code:   exitFailure,
		stderr: "plegvet report: {dir}: go.mod declares module example.com/notkube; a Kubernetes tree (module k8s.io/kubernetes) was expected",
	}, {
		name:    "a FIFO as -proto",
		args:    []string{"rpc", "-proto", "{dir}/api.proto"},
		special: specials{"api.proto": "fifo"},
		code:    exitFailure,
		stderr:  "plegvet rpc: {dir}/api.proto: is a named pipe (FIFO), want a regular file",
	}, {
		name:   "a duplicate GetContainerEvents in the tree's api.proto: an error with both positions, exit 1",
		args:   []string{"report", "-C", "{dir}"},
		tree:   files{"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto": "syntax = \"proto3\";\npackage runtime.v1;\nservice RuntimeService {\n  rpc GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) {}\n  rpc GetContainerEvents(GetEventsRequest) returns (ContainerEventResponse) {}\n}\nmessage GetEventsRequest {}\nmessage ContainerEventResponse {}\n"},
		code:   exitFailure,
		stderr: "plegvet report: staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto:5:3: rpc RuntimeService.GetContainerEvents redeclared (first declared at staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto:4:3); protoc refuses the file (the rest was analysed)",
		stdout: "Missing       rpc: staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto:5:3: rpc RuntimeService.GetContainerEvents redeclared",
	}, {
		name:   "GetContainerEvents unary in another service: RuntimeService's stream is the one read",
		args:   []string{"rpc", "-C", "{dir}"},
		tree:   files{"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto": "syntax = \"proto3\";\npackage runtime.v1;\nservice DebugService {\n  rpc GetContainerEvents(GetEventsRequest) returns (ContainerEventResponse) {}\n}\nservice RuntimeService {\n  rpc GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) {}\n}\nmessage GetEventsRequest {}\nmessage ContainerEventResponse {}\n"},
		code:   exitOK,
		stdout: "rpc RuntimeService.GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse)",
	}, {
		name:   "the gate test held by a local: the evented PLEG is found",
		args:   []string{"periods", "-C", "{dir}"},
		tree:   files{"pkg/kubelet/kubelet.go": strings.Replace(evented, "\tif utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {", "\tevented := utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG)\n\tif evented {", 1)},
		code:   exitOK,
		stdout: "EventedPLEG (Alpha, default false) decides the PLEG at pkg/kubelet/kubelet.go:32",
	}, {
		name: "the gate test moved into a helper of the package",
		args: []string{"report", "-C", "{dir}"},
		tree: files{"pkg/kubelet/kubelet.go": strings.Replace(evented, "\tif utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {", "\tif streamEvents() {", 1) +
			"\nfunc streamEvents() bool { return utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) }\n"},
		code:   exitOK,
		stdout: "gate on:  relist 5m0s = eventedPlegRelistPeriod",
	}, {
		name: "a gate test that cannot be followed: unresolved with its position, exit 1",
		args: []string{"report", "-C", "{dir}"},
		tree: files{"pkg/kubelet/kubelet.go": strings.Replace(strings.Replace(evented, "func NewMainKubelet(runtime pleg.EventSource)", "func NewMainKubelet(runtime pleg.EventSource, stream bool)", 1),
			"\tif utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {", "\tif stream {", 1)},
		code:   exitFailure,
		stderr: "plegvet report: pkg/kubelet/kubelet.go:31:2: the gate test stream deciding the evented PLEG at kubelet.go:36 could not be followed: stream is a parameter of NewMainKubelet: its callers decide it; plegvet cannot say which PLEG runs (not followed; the rest was analysed)",
		stdout: "Default PLEG  unknown",
	}, {
		name: "a gate set by init(), outside the map literal",
		args: []string{"report", "-C", "{dir}"},
		tree: files{"pkg/features/kube_features.go": strings.Replace(features, "\tEventedPLEG: {", "\tzzUnused: {", 1) +
			"\nconst zzUnused featuregate.Feature = \"Unused\"\n\nfunc init() {\n\tdefaultVersionedKubernetesFeatureGates[EventedPLEG] = featuregate.VersionedSpecs{{Version: version.MustParse(\"1.26\"), Default: false, PreRelease: featuregate.Alpha}}\n}\n"},
		code:   exitOK,
		stdout: "Feature gate  EventedPLEG: Alpha, default false, since 1.26",
	}, {
		name:   "an EventedPLEG spec list that is empty: unresolved, not a crash",
		args:   []string{"report", "-C", "{dir}"},
		tree:   files{"pkg/features/kube_features.go": replaceSpecs(t, features, "{}")},
		code:   exitOK,
		stdout: "Default PLEG  unknown",
	}, {
		name:   "an EventedPLEG spec list built by a call: unresolved, not a crash",
		args:   []string{"report", "-C", "{dir}"},
		tree:   files{"pkg/features/kube_features.go": replaceSpecs(t, features, "eventedSpecs()") + "\nfunc eventedSpecs() featuregate.VersionedSpecs { return nil }\n"},
		code:   exitOK,
		stdout: "Default PLEG  unknown",
	}, {
		name:   "a garbled evented.go: named, and the gate-off period stays 1s",
		args:   []string{"periods", "-C", "{dir}"},
		tree:   files{"pkg/kubelet/pleg/evented.go": "package pleg\n\nfunc NewEventedPLEG(\n"},
		code:   exitFailure,
		stderr: "plegvet periods: pkg/kubelet/pleg/evented.go:3:22: syntax error: expected ')', found 'EOF' (the rest was analysed)",
		stdout: "relist period                1s = genericPlegRelistPeriod",
	}, {
		name:   "a period that overflows a duration: said so, not 'no type information'",
		args:   []string{"periods", "-C", "{dir}", "-json"},
		tree:   files{"pkg/kubelet/kubelet.go": strings.Replace(evented, "time.Second * 300", "time.Second * 1e12", 1)},
		code:   exitOK,
		stdout: "\"unresolved\": \"eventedPlegRelistPeriod = time.Second * 1e12 is 1000000000000000000000, which does not fit a time.Duration (int64 nanoseconds): the tree does not compile",
	}, {
		name:   "terminal control sequences in a capture are escaped in text output",
		args:   []string{"node", "-C", "{dir}", "-configz", "../../nodeverdict/testdata/configz/unset.json", "-metrics", "../../nodeverdict/testdata/metrics/generic.txt", "-crictl", "{dir}/crictl.json"},
		tree:   files{"crictl.json": `{"version":"0.1.0","runtimeName":"containerd\u001b]0;owned\u0007\u001b[2J","runtimeVersion":"v2.1.3","runtimeApiVersion":"v1"}`},
		code:   exitOK,
		stdout: `containerd\x1b]0;owned\a\x1b[2J`,
	}, {
		name:   "periods on a kubelet.go that does not parse: the syntax error named",
		args:   []string{"periods", "-C", "{dir}"},
		tree:   files{"pkg/kubelet/kubelet.go": "package kubelet\n\nfunc (\n"},
		code:   exitFailure,
		stderr: "plegvet periods: {dir}: pkg/kubelet builds no PLEG: no call of a constructor of pkg/kubelet/pleg (NewGenericPLEG, NewEventedPLEG) was found; it may be in the file that was not read: pkg/kubelet/kubelet.go:3:8: syntax error: expected ')', found 'EOF'",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, lookAlike, dir)
			for name, content := range tc.tree {
				p := filepath.Join(dir, filepath.FromSlash(name))
				os.RemoveAll(p)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, kind := range tc.special {
				p := filepath.Join(dir, filepath.FromSlash(name))
				os.RemoveAll(p)
				var err error
				switch {
				case kind == "fifo":
					err = syscall.Mkfifo(p, 0o644)
				case kind == "dir":
					err = os.Mkdir(p, 0o755)
				case strings.HasPrefix(kind, "symlink:"):
					err = os.Symlink(strings.TrimPrefix(kind, "symlink:"), p)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "{dir}", dir)
			}
			var stdout, stderr bytes.Buffer
			code := -1
			done := make(chan struct{})
			go func() { defer close(done); code = dispatch(args, &stdout, &stderr) }()
			select {
			case <-done:
			case <-time.After(2 * time.Minute): // a guard against a hang, not a timing test
				t.Fatal("plegvet did not return")
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			first, _, _ := strings.Cut(stderr.String(), "\n")
			if want := strings.ReplaceAll(tc.stderr, "{dir}", dir); first != want {
				t.Errorf("stderr:\n got %s\nwant %s", first, want)
			}
			if strings.ContainsAny(stdout.String()+stderr.String(), "\x1b\a") {
				t.Errorf("a raw control character reached the output:\n%q", stdout.String()+stderr.String())
			}
			// Text wraps to fit a terminal: compare words, not line breaks.
			if !strings.Contains(strings.Join(strings.Fields(stdout.String()), " "), strings.Join(strings.Fields(tc.stdout), " ")) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout.String())
			}
		})
	}
}

func readLookAlike(t *testing.T, rel string) string {
	data, err := os.ReadFile(filepath.Join(lookAlike, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// replaceSpecs puts specs in place of EventedPLEG's spec list in the
// look-alike's versioned feature list.
func replaceSpecs(t *testing.T, features, specs string) string {
	start := strings.Index(features, "\tEventedPLEG: {\n")
	end := strings.Index(features[start+1:], "\n\t},\n")
	if start < 0 || end < 0 {
		t.Fatal("the look-alike's feature list has no EventedPLEG spec list")
	}
	return features[:start] + "\tEventedPLEG: " + specs + ",\n" + features[start+1+end+len("\n\t},\n"):]
}

func copyTree(t *testing.T, from, to string) {
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
