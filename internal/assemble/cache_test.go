package assemble

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/answercache"
	"github.com/plegvet/plegvet/internal/tree"
)

func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// An answer with a file not read is not kept: its cause may pass.
func TestIncompleteAnswersAreNotKept(t *testing.T) {
	var calls int
	dir := t.TempDir()
	tr := &tree.Tree{Module: "k8s.io/kubernetes", Version: "v1.36.1", Sums: map[string]string{"k8s.io/kubernetes": "h1:x"}}
	opts := Options{Kubernetes: "v1.36.1", CacheDir: dir}
	compute := func() (*answer.Report, error) {
		calls++
		r := &answer.Report{SchemaVersion: answer.SchemaVersion}
		r.Source.Load.Problems = []string{"pkg/kubelet/x.go: permission denied"}
		return r, nil
	}
	for range 2 {
		if _, err := cached(opts, tr, []string{"Inspect"}, compute); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 || len(cacheEntries(t, dir)) != 0 {
		t.Errorf("an answer with a load problem was kept: computed %d times, %d entries", calls, len(cacheEntries(t, dir)))
	}
}

// An entry that decodes but says less than a computed answer always says
// (null, {}, a bare schema version, another release's source), even one
// stored as Put stores it, is computed again, not served.
func TestEmptyEntriesAreComputedAgain(t *testing.T) {
	dir := t.TempDir()
	tr := &tree.Tree{Module: "k8s.io/kubernetes", Version: "v1.37.2", Sums: map[string]string{"k8s.io/kubernetes": "h1:x"}}
	opts := Options{Kubernetes: "v1.37.2", CacheDir: dir}
	computed := &answer.Report{SchemaVersion: answer.SchemaVersion, Source: answer.Source{Dir: "k8s.io/kubernetes@v1.37.2", KubernetesVersion: "v1.37.2", Load: answer.Load{Mode: "source"}}, DefaultPLEG: "generic", Summary: "computed"}
	key, ok := answercache.TreeKey(tr, []string{"Inspect"})
	if !ok {
		t.Skip("no build ID to key on")
	}
	other := *computed
	other.Source.Dir, other.Source.KubernetesVersion = "k8s.io/kubernetes@v1.36.1", "v1.36.1"
	for _, planted := range []any{nil, map[string]any{}, map[string]any{"schemaVersion": answer.SchemaVersion}, &other} {
		if err := answercache.Put(dir, key, planted); err != nil {
			t.Fatal(err)
		}
		calls := 0
		got, err := cached(opts, tr, []string{"Inspect"}, func() (*answer.Report, error) { calls++; return computed, nil })
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 || got.Summary != "computed" {
			t.Errorf("entry %s: served (%d computations, summary %q)", mustJSON(t, planted), calls, got.Summary)
		}
	}
	// The computed answer was kept, and is served.
	got, _ := cached(opts, tr, []string{"Inspect"}, func() (*answer.Report, error) { t.Error("computed again"); return computed, nil })
	if got == nil || got.Summary != "computed" {
		t.Errorf("the kept answer: %+v", got)
	}
}
