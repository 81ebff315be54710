package assemble

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/load/answercache"
	"github.com/plegvet/plegvet/internal/load/tree"
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

// A release's answer read from the cache is the answer computed: the same
// JSON, byte for byte; a corrupt entry is computed again; a checkout is
// never cached.
func TestCachedAnswersAreTheComputedOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches a Kubernetes release")
	}
	ctx := context.Background()
	dir := t.TempDir()
	const v = "v1.36.1"
	fresh, err := Inspect(ctx, Options{Kubernetes: v})
	if err != nil {
		t.Fatal(err)
	}
	want := mustJSON(t, fresh)

	first, err := Inspect(ctx, Options{Kubernetes: v, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	entries := cacheEntries(t, dir)
	if len(entries) != 1 {
		t.Fatalf("cache holds %v; want one entry", entries)
	}
	// Mark the entry, to tell a read from a computation: written as Put
	// writes it (an entry edited by hand is a miss: its digest binds it).
	key := strings.TrimSuffix(filepath.Base(entries[0]), ".json")
	var marked answer.Report
	if !answercache.Get(dir, key, &marked) {
		t.Fatal("the entry is not readable")
	}
	marked.Summary = "from the cache"
	if err := answercache.Put(dir, key, marked); err != nil {
		t.Fatal(err)
	}
	second, err := Inspect(ctx, Options{Kubernetes: v, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if second.Summary != "from the cache" {
		t.Fatal("the second answer was not read from the cache")
	}
	// Unmarked, the entry is the computed answer.
	second.Summary = first.Summary
	for _, got := range []*answer.Report{first, second} {
		if g := mustJSON(t, got); !bytes.Equal(g, want) {
			t.Errorf("cached answer differs from the computed one:\n%s\nwant\n%s", g, want)
		}
	}

	// A corrupt entry is a miss: computed again, and rewritten.
	if err := os.WriteFile(entries[0], []byte(`{"schemaVersion": 1, "source": `), 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := Inspect(ctx, Options{Kubernetes: v, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if g := mustJSON(t, third); !bytes.Equal(g, want) {
		t.Errorf("after a corrupt entry: %s", g)
	}
	var again answer.Report
	if !answercache.Get(dir, key, &again) || !bytes.Equal(mustJSON(t, &again), want) {
		t.Error("the corrupt entry was not rewritten")
	}

	// Gates: the whole list is kept, and names pick from it.
	all, err := Gates(ctx, Options{Kubernetes: v, CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	one, err := Gates(ctx, Options{Kubernetes: v, CacheDir: dir}, "EventedPLEG")
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Gates) != 1 || len(all.Gates) < 100 || !bytes.Equal(mustJSON(t, one.Gates[0]), mustJSON(t, all.Gate("EventedPLEG"))) {
		t.Errorf("gates from the cache: %d, and EventedPLEG %+v", len(all.Gates), one.Gates)
	}
	if n := len(cacheEntries(t, dir)); n != 2 {
		t.Errorf("%d entries after Inspect and Gates; want 2", n)
	}
}

func TestCheckoutsAreNotCached(t *testing.T) {
	dir := t.TempDir()
	if _, err := Inspect(context.Background(), Options{Dir: "../../testdata/src/k8s.io/kubernetes", CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	if got := cacheEntries(t, dir); len(got) != 0 {
		t.Errorf("a checkout's answer was cached: %v", got)
	}
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
