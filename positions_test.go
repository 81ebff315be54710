package plegvet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// files lists every "file" an answer's JSON carries.
func files(t *testing.T, answer any) []string {
	t.Helper()
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, m := range v {
				if s, ok := m.(string); ok && k == "file" && s != "" {
					out = append(out, s)
				}
				walk(m)
			}
		case []any:
			for _, m := range v {
				walk(m)
			}
		}
	}
	walk(doc)
	return out
}

// Every position of a checkout's answer, named as on disk, is a file
// there; named relative, the answer is unchanged; a checkout has no URL.
func TestRelocateCheckout(t *testing.T) {
	rep, err := Inspect(context.Background(), Options{Dir: "testdata/src/k8s.io/kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(rep)
	if err := RelocatePositions(rep, rep.Source, ""); err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal(rep); string(after) != string(before) {
		t.Error("the default for a checkout changed the answer")
	}
	if err := RelocatePositions(rep, rep.Source, PositionsURL); err == nil {
		t.Error("url for a checkout: no error")
	}
	if err := RelocatePositions(rep, rep.Source, PositionsModule); err != nil {
		t.Fatal(err)
	}
	fs := files(t, rep)
	if len(fs) < 10 {
		t.Fatalf("%d files in the answer", len(fs))
	}
	for _, f := range fs {
		if _, err := os.Stat(f); !filepath.IsAbs(f) || err != nil {
			t.Errorf("%s: not a file on disk (%v)", f, err)
		}
	}
}

// A release's positions name its files at its tag, staging files at their
// path in the kubernetes repository, each once (positions two parts of an
// answer share are renamed once); in the module cache, each staging file
// in its own module at the staging version.
func TestRelocateRelease(t *testing.T) {
	rep, err := Inspect(context.Background(), Options{Dir: "testdata/src/k8s.io/kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	src := Source{Dir: "k8s.io/kubernetes@v1.36.1", KubernetesVersion: "v1.36.1"}
	if DefaultPositions(src) != PositionsURL || DefaultPositions(rep.Source) != PositionsRelative {
		t.Errorf("defaults %s and %s, want url for a release and relative for a checkout", DefaultPositions(src), DefaultPositions(rep.Source))
	}
	if err := RelocatePositions(rep, src, ""); err != nil {
		t.Fatal(err)
	}
	const base = KubernetesRepoURL + "/blob/v1.36.1/"
	staging := false
	for _, f := range files(t, rep) {
		if !strings.HasPrefix(f, base) || strings.Count(f, "://") != 1 {
			t.Errorf("%s: want one %s", f, base)
		}
		staging = staging || strings.HasPrefix(f, base+"staging/src/k8s.io/cri-api/")
	}
	if !staging {
		t.Error("no staging file named at its path in the repository")
	}
}

func TestParsePositions(t *testing.T) {
	for _, ok := range []string{"", "relative", "module", "url"} {
		if _, err := ParsePositions(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"URL", "abs", "relative "} {
		if _, err := ParsePositions(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
