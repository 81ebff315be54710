package plegvet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/semver"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
	"github.com/plegvet/plegvet/internal/extract/kubeversion"
	"github.com/plegvet/plegvet/internal/load/release"
	"github.com/plegvet/plegvet/nodeverdict"
)

// The committed index is what the generator writes: releases in order
// from NodeIndexFirst, each entry a NodeSource that decodes with no field
// left over and encodes to the same bytes, as a release read whole from
// its source.
func TestNodeIndexFile(t *testing.T) {
	index, err := nodeindex.Read(nodeIndexFile)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := nodeindex.Write(&again, index); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), nodeIndexFile) {
		t.Error("nodeindex.jsonl is not as nodeindex.Write writes it: run go generate")
	}
	releases := NodeIndexReleases()
	if len(releases) == 0 || releases[0] != NodeIndexFirst {
		t.Fatalf("the index begins at %v, want %s", releases[:min(1, len(releases))], NodeIndexFirst)
	}
	minors := map[string]bool{}
	for _, r := range releases {
		minors[semver.MajorMinor(r)] = true
		raw := index[r].NodeSource
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var s NodeSource
		if err := dec.Decode(&s); err != nil {
			t.Errorf("%s: %v", r, err)
			continue
		}
		if re, _ := json.Marshal(&s); !bytes.Equal(re, raw) {
			t.Errorf("%s: encodes as\n%s\nnot as the index holds it\n%s", r, re, raw)
		}
		if s.Source.KubernetesVersion != r || s.Source.From != "" || !s.Source.Load.Complete() {
			t.Errorf("%s: source %+v: want the release's, read whole, without from", r, s.Source)
		}
		if s.Relist.GateOff == nil || s.Relist.GateOff.Period == nil {
			t.Errorf("%s: no generic relist period: a release always builds a generic PLEG", r)
		}
	}
	// Each minor of the span is held: a minor missing in the middle is a
	// generator that stopped early.
	first, _ := kubeversion.Parse(releases[0])
	last, _ := kubeversion.Parse(releases[len(releases)-1])
	for m := first.Minor; m <= last.Minor; m++ {
		if v := (kubeversion.Version{Major: 1, Minor: m}).Semver(); !minors[v] {
			t.Errorf("the index holds no %s release", v)
		}
	}
}

// Without a go command, a release the index holds is answered from it and
// says so; one it lacks is an error saying why.
func TestNodeSourceWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	held := NodeIndexReleases()
	newest := held[len(held)-1]
	s, err := LoadNodeSource(context.Background(), Options{}, newest)
	if err != nil {
		t.Fatal(err)
	}
	if s.Source.From != answer.FromIndex || s.Source.KubernetesVersion != newest {
		t.Errorf("source %+v: want %s from the index", s.Source, newest)
	}
	_, err = LoadNodeSource(context.Background(), Options{}, "v1.24.17")
	if !errors.Is(err, ErrNoGoCommand) || !strings.Contains(err.Error(), "v1.24.17 is not in plegvet's index (releases "+NodeIndexFirst+" to "+newest+")") {
		t.Errorf("err %v: want one naming the index's span, wrapping ErrNoGoCommand", err)
	}
	_, err = LoadNodeSource(context.Background(), Options{SkipIndex: true}, newest)
	if !errors.Is(err, ErrNoGoCommand) {
		t.Errorf("SkipIndex: err %v: want ErrNoGoCommand", err)
	}
}

// indexSample are releases of each design the index holds: no evented
// PLEG (v1.25), the first (v1.26), the safety net at its last (v1.36), the
// relist trigger (v1.37); each minor's newest patch in the index.
func indexSample(t *testing.T) []string {
	held := NodeIndexReleases()
	var out []string
	for _, minor := range []string{"v1.25", "v1.26", "v1.36", "v1.37"} {
		newest := ""
		for _, r := range held {
			if semver.MajorMinor(r) == minor {
				newest = r
			}
		}
		if newest == "" {
			t.Fatalf("the index holds no %s release", minor)
		}
		out = append(out, newest)
	}
	return out
}

// The generator's output for a sample of releases, recomputed from their
// source now, is byte for byte what the index holds; and a node decided
// with the index's answer is decided as with the source's.
func TestNodeIndexRecomputes(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes releases")
	}
	index, err := nodeindex.Read(nodeIndexFile)
	if err != nil {
		t.Fatal(err)
	}
	captures := filepath.Join("nodeverdict", "testdata", "real", "v1.36.5", "gate-on-debian")
	cfg, err := readCapture(t, filepath.Join(captures, "configz.json"), nodeverdict.ReadConfigz)
	if err != nil {
		t.Fatal(err)
	}
	met, err := readCapture(t, filepath.Join(captures, "001.txt"), nodeverdict.ReadMetrics)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range indexSample(t) {
		t.Run(r, func(t *testing.T) {
			fromSource, err := LoadNodeSource(context.Background(), Options{SkipIndex: true}, r)
			if err != nil {
				t.Fatal(err)
			}
			// The generator's line: the answer read whole, without From.
			read := *fromSource
			read.Source.From = ""
			if line, _ := json.Marshal(read); !read.Source.Load.Complete() || !bytes.Equal(line, index[r].NodeSource) {
				t.Fatalf("recomputed:\n%s\nthe index holds:\n%s\n(run go generate with -all)", line, index[r].NodeSource)
			}
			fromIndex, err := LoadNodeSource(context.Background(), Options{}, r)
			if err != nil {
				t.Fatal(err)
			}
			if fromSource.Source.From != answer.FromSource || fromIndex.Source.From != answer.FromIndex {
				t.Errorf("from %q and %q, want %q and %q", fromSource.Source.From, fromIndex.Source.From, answer.FromSource, answer.FromIndex)
			}
			c := NodeCapture{Config: cfg, Metrics: met, KubeletVersion: r}
			a, err := fromSource.Decide(c)
			if err != nil {
				t.Fatal(err)
			}
			b, err := fromIndex.Decide(c)
			if err != nil {
				t.Fatal(err)
			}
			b.Source.From = a.Source.From
			if !reflect.DeepEqual(a, b) {
				ja, _ := json.MarshalIndent(a, "", " ")
				jb, _ := json.MarshalIndent(b, "", " ")
				t.Errorf("decided from the source:\n%s\nfrom the index:\n%s", ja, jb)
			}
		})
	}
}

// The index holds every release the module proxy serves from
// NodeIndexFirst to its newest: a release published after the index was
// generated is read from source (TestNodeSourceWithoutGo), one skipped
// within its span is a generator that missed it.
func TestNodeIndexCoversServed(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the module proxy")
	}
	served, err := nodeindex.Served(context.Background(), release.Fetcher{}, NodeIndexFirst)
	if err != nil {
		t.Fatal(err)
	}
	index, err := nodeindex.Read(nodeIndexFile)
	if err != nil {
		t.Fatal(err)
	}
	held := NodeIndexReleases()
	newest := held[len(held)-1]
	for _, r := range served {
		if _, ok := index[r]; semver.Compare(r, newest) <= 0 && !ok {
			t.Errorf("the proxy serves %s, which the index lacks: run go generate", r)
		}
	}
	for r := range index {
		if !slices.Contains(served, r) {
			t.Errorf("the index holds %s, which the proxy does not list", r)
		}
	}
}

// readCapture reads a capture file with a nodeverdict reader.
func readCapture[T any](t *testing.T, file string, read func(name string, data []byte) (*T, error)) (*T, error) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return read(file, data)
}
