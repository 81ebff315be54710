package plegvet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
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
	// A pre-release is held only for the minor after the newest
	// release's, which has none yet: the newest the proxy served.
	var pres []string
	for _, r := range releases {
		if semver.Prerelease(r) != "" {
			pres = append(pres, r)
		}
	}
	if n := len(releases) - len(pres); len(pres) > 1 || len(pres) == 1 && (n == 0 || pres[0] != releases[len(releases)-1] ||
		semver.MajorMinor(pres[0]) != nextMinor(releases[n-1])) {
		t.Errorf("pre-releases %v after releases up to %s: want at most one, of the minor after the newest release's", pres, releases[max(n-1, 0)])
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

// indexSample is what the recompute test reads again from source: the
// newest release of each minor the index holds (each design: no evented
// PLEG in v1.25, the first in v1.26, the safety net at its last in v1.36,
// the relist trigger in v1.37), and its pre-release, if it holds one.
func indexSample(t *testing.T) []string {
	held := NodeIndexReleases()
	newest := map[string]string{}
	var out []string
	for _, r := range held {
		if semver.Prerelease(r) != "" {
			out = append(out, r)
			continue
		}
		newest[semver.MajorMinor(r)] = r
	}
	for _, minor := range []string{"v1.25", "v1.26", "v1.36", "v1.37"} {
		if newest[minor] == "" {
			t.Fatalf("the index holds no %s release", minor)
		}
	}
	out = append(out, slices.Collect(maps.Values(newest))...)
	slices.SortFunc(out, semver.Compare)
	return out
}

// integration skips a test that fetches under -short, except in CI
// (CI=true), where it always runs: a stale index must fail there.
func integration(t *testing.T, why string) {
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); testing.Short() && !ci {
		t.Skip(why)
	}
}

// The generator's output for a sample of releases (indexSample: 14 in
// all), recomputed from their source now, is byte for byte what the
// index holds: an index generated by older code, or edited by hand in a
// sampled entry, fails here; and a node decided with the index's answer
// is decided as with the source's. Each recompute fetches a release
// (about a second each when the module cache holds it).
func TestNodeIndexRecomputes(t *testing.T) {
	integration(t, "fetches Kubernetes releases")
	if _, set := os.LookupEnv("GOTOOLCHAIN"); !set {
		t.Setenv("GOTOOLCHAIN", "auto") // as the generator runs: a pre-release may need a newer Go
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
	integration(t, "asks the module proxy")
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
	pre, err := nodeindex.NextPreRelease(context.Background(), release.Fetcher{}, served[len(served)-1])
	if err != nil {
		t.Fatal(err)
	}
	for r := range index {
		if !slices.Contains(served, r) && r != pre {
			t.Errorf("the index holds %s, which the proxy does not list (its newest pre-release of the next minor is %q)", r, pre)
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

// nextMinor is the minor after r's (v1.38 for v1.37.2).
func nextMinor(r string) string {
	v, _ := kubeversion.Parse(r)
	return kubeversion.Version{Major: 1, Minor: v.Minor + 1}.Semver()
}
