package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/gatehistory"
	"github.com/plegvet/plegvet/internal/render"
)

// checkGolden compares got with testdata/gatehistory/name; UPDATE_GOLDEN=1
// rewrites the file (review the diff before committing it).
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	checkGoldenFile(t, filepath.Join("testdata", "gatehistory", name), got)
}

// checkGoldenFile compares got with the file at path; UPDATE_GOLDEN=1
// rewrites the file.
func checkGoldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: output differs from the golden file (UPDATE_GOLDEN=1 rewrites it)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// checkOnlyLoadProblems fails unless the exit code is 0 with nothing on
// stderr, or stderr has only the lines that say a release was not read in
// full (staging modules the proxy does not serve, files that did not
// load: exit 1 for the latter): those belong to the releases, not to the
// history.
func checkOnlyLoadProblems(t *testing.T, what string, code int, stderr string) {
	t.Helper()
	if code == exitOK && stderr == "" {
		return
	}
	ok := code == exitOK || code == exitFailure && stderr != ""
	// What was not read, or, on a cold module cache, what is being fetched.
	notRead := regexp.MustCompile(`^plegvet gates: read in part: .*$|^plegvet gates: v1\.\d+\.\d+: (staging/src/\S+: staging module .* not fetched, .*|.*\((not followed; )?the rest was analysed\))$|^plegvet: fetching .* with the go command \(once per release: the module cache keeps it\)$`)
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		ok = ok && notRead.MatchString(line)
	}
	if !ok {
		t.Fatalf("%s: exit %d, stderr %q", what, code, stderr)
	}
}

// withoutProgress drops the lines a cold module cache adds: what is being
// fetched.
func withoutProgress(stderr string) string {
	var keep []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "plegvet: fetching ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

func TestGatesHistoryGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	ctx := context.Background()
	for _, tt := range []struct {
		golden, k8s string
		names       []string
		json        bool
	}{
		{"evented_v1.28.0..v1.30.0.txt", "v1.28.0..v1.30.0", []string{"EventedPLEG"}, false},
		{"evented_v1.28.0..v1.30.0.json", "v1.28.0..v1.30.0", []string{"EventedPLEG"}, true},
		// First releases, whose own sources hold EventedPLEG's short Beta;
		// SeccompDefault, and CustomCPUCFSQuotaPeriod by its constant.s identifier.
		{"list.txt", "v1.26.0,v1.27.0,v1.29.0,v1.30.0", []string{"EventedPLEG", "SeccompDefault", "CPUCFSQuotaPeriod"}, false},
	} {
		var stdout, stderr bytes.Buffer
		code := runGatesHistory(ctx, sourceFlags{k8s: tt.k8s, json: tt.json}, tt.names, &stdout, &stderr)
		checkOnlyLoadProblems(t, tt.golden, code, stderr.String())
		checkGolden(t, tt.golden, stdout.Bytes())
		if tt.json {
			// The keys of the JSON form, exactly.
			var v struct {
				SchemaVersion *int `json:"schemaVersion"`
				Gates         []map[string]json.RawMessage
			}
			if err := json.Unmarshal(stdout.Bytes(), &v); err != nil || v.SchemaVersion == nil || len(v.Gates) != 1 {
				t.Fatalf("JSON: %v, %+v", err, v)
			}
			for _, k := range []string{"name", "releases", "changes"} {
				if _, ok := v.Gates[0][k]; !ok {
					t.Errorf("JSON: gate has no key %q", k)
				}
			}
		}
	}
}

func TestGatesHistoryErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	ctx := context.Background()

	// A name no release declares: one line, naming it, and nothing on stdout.
	var stdout, stderr bytes.Buffer
	code := runGatesHistory(ctx, sourceFlags{k8s: "v1.28.15,v1.29.15"}, []string{"EventedPLEG", "NoSuchGate"}, &stdout, &stderr)
	if code != exitFailure || stdout.Len() > 0 || withoutProgress(stderr.String()) != "plegvet gates: none of the 2 releases read (v1.28.15 to v1.29.15) declares a feature gate \"NoSuchGate\"\n" {
		t.Errorf("unknown name: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}

	// A release that cannot be fetched: its row says so, the error is
	// under the table and on stderr, exit 1; the others still answer.
	stdout.Reset()
	stderr.Reset()
	code = runGatesHistory(ctx, sourceFlags{k8s: "v1.36.999,v1.30.14"}, []string{"EventedPLEG"}, &stdout, &stderr)
	if code != exitFailure {
		t.Errorf("unfetchable release: exit %d, want %d", code, exitFailure)
	}
	for _, re := range []string{
		`(?m)^EventedPLEG +v1\.30\.14 +Alpha +false +false +- +pkg/features/kube_features\.go:\d+$`,
		`(?m)^EventedPLEG +v1\.36\.999 +error \(below\)$`,
		`(?m)^EventedPLEG: no change in v1\.30\.14$`,
		`(?m)^v1\.36\.999: cannot fetch k8s\.io/kubernetes@v1\.36\.999`,
	} {
		if !regexp.MustCompile(re).Match(stdout.Bytes()) {
			t.Errorf("unfetchable release: stdout does not match %s:\n%s", re, stdout.String())
		}
	}
	if !regexp.MustCompile(`(?m)^plegvet gates: v1\.36\.999: cannot fetch k8s\.io/kubernetes@v1\.36\.999 .*$`).Match(stderr.Bytes()) {
		t.Errorf("unfetchable release: stderr %q, want a line naming it", stderr.String())
	}

	// A range that is not one: one line naming the flag.
	stdout.Reset()
	stderr.Reset()
	code = runGatesHistory(ctx, sourceFlags{k8s: "v1.30.0..v1.2.0"}, []string{"EventedPLEG"}, &stdout, &stderr)
	if errOut := withoutProgress(stderr.String()); code != exitFailure || stdout.Len() > 0 || !strings.HasPrefix(errOut, "plegvet gates: -k8s ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("bad range: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// The modules a release did not fetch are named once, in one line, with
// the releases read in part; they fail the history where they could
// matter (the whole list, or a gate absent where one of its own modules
// was not fetched), not where every gate asked for was answered.
func TestHistoryProblemsOnlyWhereTheyMatter(t *testing.T) {
	missing := []string{"staging/src/k8s.io/sample-apiserver: staging module k8s.io/sample-apiserver@v0.30.0 not fetched, its feature gates are not read: network unreachable"}
	rep := &answer.GateHistoryReport{
		Gates: []answer.GateTimeline{{Name: "EventedPLEG", Modules: []string{"k8s.io/kubernetes"}, Releases: []answer.GateAtRelease{
			{KubernetesVersion: "v1.30.0", Exists: true},
			{KubernetesVersion: "v1.31.0", Exists: false},
		}}},
		Releases: []answer.ReleaseRead{
			{KubernetesVersion: "v1.30.0", Unfetched: missing},
			{KubernetesVersion: "v1.31.0"},
		},
	}
	partial := "plegvet gates: read in part: v1.30.0: staging module k8s.io/sample-apiserver not fetched: network unreachable"
	for _, c := range []struct {
		what  string
		named bool
		want  string
		code  int
	}{
		{"found wherever modules are missing", true, partial + "; EventedPLEG is answered all the same, its own module k8s.io/kubernetes having been read\n", exitOK},
		{"the whole list", false, partial + "; the whole list lacks the gates those modules declare\n", exitFailure},
	} {
		var stderr bytes.Buffer
		if code := historyProblems(&stderr, rep, c.named); code != c.code || stderr.String() != c.want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", c.what, code, stderr.String(), c.code, c.want)
		}
	}
	// Absent where one of its own modules is missing: not known, exit 1.
	rep.Gates[0].Modules = []string{"k8s.io/sample-apiserver"}
	rep.Gates[0].Releases[0] = answer.GateAtRelease{KubernetesVersion: "v1.30.0", Unfetched: missing}
	var stderr bytes.Buffer
	code := historyProblems(&stderr, rep, true)
	want := partial + "\n" +
		"plegvet gates: v1.30.0: EventedPLEG is in no module read, but its own module k8s.io/sample-apiserver was not fetched\n"
	if code != exitFailure || stderr.String() != want {
		t.Errorf("absent: exit %d, stderr %q; want 1, %q", code, stderr.String(), want)
	}
}

// A look-alike of gates -k8s v1.25.0..v1.37.2 EventedPLEG: the oldest
// release's zips of five staging modules are not served by the module
// proxy, and the gate, declared in k8s.io/kubernetes in every release
// that has it, is absent there. Its own module was read, so its absence
// is known: the history says once, in one line, which release was read in
// part and why, hedges no change, and exits 0. Where the gate's own
// module is one of those not fetched, its absence is not known: exit 1,
// with a line naming the gate.
func TestHistoryReadInPartAnswersTheGate(t *testing.T) {
	notServed := func(mod, v string) string {
		return fmt.Sprintf("staging/src/%[1]s: staging module %[1]s@%[2]s not fetched, its feature gates are not read: %[1]s@%[2]s: reading https://proxy.example/%[1]s/@v/%[2]s.zip: 403 Forbidden\n\tserver response: This module version is not available.", mod, v)
	}
	mods := []string{"k8s.io/cluster-bootstrap", "k8s.io/controller-manager", "k8s.io/kube-controller-manager", "k8s.io/kube-proxy", "k8s.io/sample-apiserver"}
	reads := func(home string) []gatehistory.Read {
		old := &answer.GatesReport{Source: answer.Source{KubernetesVersion: "v1.25.16"}}
		for _, m := range mods {
			old.Unfetched = append(old.Unfetched, notServed(m, "v0.25.16"))
		}
		gate := answer.Gate{Name: "EventedPLEG", Format: "unversioned", Module: home, Specs: []answer.Spec{{PreRelease: "Alpha", Pos: answer.Pos{File: "pkg/features/kube_features.go", Line: 994, Column: 2}}}}
		rs := []gatehistory.Read{{Version: "v1.25.16", Gates: old}}
		for _, v := range []string{"v1.26.15", "v1.37.2"} {
			rs = append(rs, gatehistory.Read{Version: v, Gates: &answer.GatesReport{Source: answer.Source{KubernetesVersion: v}, Gates: []answer.Gate{gate}}})
		}
		return rs
	}
	source := func(v string) answer.Source { return answer.Source{KubernetesVersion: v} }

	rep, err := gatehistory.Of(reads("k8s.io/kubernetes"), []string{"EventedPLEG"}, source)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := historyProblems(&stderr, rep, true)
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if code != exitOK || len(lines) != 1 {
		t.Fatalf("own module read: exit %d, stderr %q; want exit 0 and one line", code, stderr.String())
	}
	for _, want := range append([]string{"read in part", "the module proxy does not serve staging modules of v1.25.16 (", "EventedPLEG", "k8s.io/kubernetes"}, mods...) {
		if !strings.Contains(lines[0], want) {
			t.Errorf("the line %q does not say %q", lines[0], want)
		}
	}
	if err := render.GateHistory(&stdout, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "EventedPLEG: v1.26.15 added (Alpha, default false)\n") {
		t.Errorf("the change is hedged or missing, its absence being known:\n%s", stdout.String())
	}

	// The gate's own module is one the proxy did not serve.
	rep, err = gatehistory.Of(reads("k8s.io/kube-proxy"), []string{"EventedPLEG"}, source)
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	code = historyProblems(&stderr, rep, true)
	lines = strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if code != exitFailure || len(lines) != 2 || strings.Contains(lines[0], "answered") || lines[1] != "plegvet gates: v1.25.16: EventedPLEG is in no module read, but its own module k8s.io/kube-proxy was not fetched" {
		t.Errorf("own module not fetched: exit %d, stderr %q; want exit 1, the read in part and the gate not known", code, stderr.String())
	}
}
