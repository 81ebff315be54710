package plegvet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

// located lists each object of an answer's JSON that has a "file" key:
// a position (with "line") or a whole file's name.
func located(t *testing.T, answer any) []map[string]any {
	t.Helper()
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v["file"].(string); ok && s != "" {
				out = append(out, v)
			}
			for _, m := range v {
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

// A checkout's answer keeps its relative names in every form and has no
// URL; module adds each position's file on disk beside its name.
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
	objs := located(t, rep)
	if len(objs) < 10 {
		t.Fatalf("%d files in the answer", len(objs))
	}
	for _, o := range objs {
		f := o["file"].(string)
		if filepath.IsAbs(f) || strings.Contains(f, "://") || o["url"] != nil {
			t.Errorf("%v: want a relative file and no url", o)
		}
		if _, isPos := o["line"]; !isPos {
			continue
		}
		p, _ := o["path"].(string)
		if _, err := os.Stat(p); !filepath.IsAbs(p) || err != nil || !strings.HasSuffix(filepath.ToSlash(p), "/"+f) {
			t.Errorf("%v: path is not the file on disk (%v)", o, err)
		}
	}
}

// A release's answer keeps its relative names too, and each position
// holds its address at the release's tag at its line, staging files at
// their path in the kubernetes repository, each once (a position two
// parts of an answer share is visited twice).
func TestRelocateRelease(t *testing.T) {
	rep, err := Inspect(context.Background(), Options{Dir: "testdata/src/k8s.io/kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	src := answer.Source{Dir: "k8s.io/kubernetes@v1.36.1", KubernetesVersion: "v1.36.1"}
	for _, p := range []Positions{"", PositionsURL} {
		if err := RelocatePositions(rep, src, p); err != nil {
			t.Fatal(err)
		}
	}
	const base = KubernetesRepoURL + "/blob/v1.36.1/"
	staging := false
	for _, o := range located(t, rep) {
		f := o["file"].(string)
		if strings.Contains(f, "://") || o["path"] != nil {
			t.Errorf("%v: want the relative file and no path", o)
		}
		line, isPos := o["line"].(float64)
		if !isPos {
			continue
		}
		if want := fmt.Sprintf("%s%s#L%d", base, f, int(line)); o["url"] != want {
			t.Errorf("url %v, want %s", o["url"], want)
		}
		staging = staging || strings.HasPrefix(f, "staging/src/k8s.io/cri-api/")
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
