// Package nodeindex reads and writes plegvet's index of node-source
// answers (nodeindex.jsonl: one line per release, in version order), and
// updates it from the releases the module proxy serves; the answers
// themselves are computed by its caller (go generate's command, gen/).
package nodeindex

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/internal/extract/kubeversion"
	"github.com/plegvet/plegvet/internal/load/release"
)

// First is the first release the index holds (plegvet's NodeIndexFirst).
const First = "v1.25.0"

// Entry is one line of the index: a release's answer, or why the
// index has none (the module proxy listed the release but refused its
// source when the index was generated).
type Entry struct {
	Release    string          `json:"release"`
	NodeSource json.RawMessage `json:"nodeSource,omitempty"`
	Unserved   string          `json:"unserved,omitempty"`
}

// Read reads an index file, refusing what go generate would not
// have written: a line that is not an entry, releases out of order or
// repeated.
func Read(data []byte) (map[string]Entry, error) {
	out := map[string]Entry{}
	prev := ""
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 && len(data) == 0 {
			break
		}
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		const want = `want {"release":...,"nodeSource":{...}} or {"release":...,"unserved":"why"}`
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %s: %w", i+1, want, err)
		}
		if (len(e.NodeSource) == 0) == (e.Unserved == "") {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %s", i+1, want)
		}
		if v, ok := kubeversion.Parse(e.Release); !ok || !v.IsRelease() || v.Semver() != e.Release {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %q is not a release (v1.X.Y, or a pre-release v1.X.0-beta.N)", i+1, e.Release)
		}
		if prev != "" && semver.Compare(prev, e.Release) >= 0 {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %s after %s: want releases in order, each once", i+1, e.Release, prev)
		}
		prev = e.Release
		out[e.Release] = e
	}
	return out, nil
}

// Write writes entries as the index file holds them.
func Write(w io.Writer, entries map[string]Entry) error {
	bw := bufio.NewWriter(w)
	for _, r := range slices.SortedFunc(maps.Keys(entries), semver.Compare) {
		line, err := json.Marshal(entries[r])
		if err != nil {
			return err
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Options say how Update runs.
type Options struct {
	// File is the index to update; its answers are kept unless All (a
	// release the proxy refused before is asked for again).
	File string
	// All computes every release again; otherwise only those File lacks.
	All bool
	// Releases, when set, are the releases to hold (and the index keeps
	// the others), each a release (v1.36.1), a pre-release
	// (v1.38.0-beta.0) or a minor (v1.36: every patch the module proxy
	// serves); otherwise every release from First on that the proxy
	// serves, and the newest pre-release of the minor after them (a
	// pre-release of an older minor is dropped).
	Releases []string
	// Progress, when set, gets a line per release: how many are done of
	// how many, the entry's size, the bytes fetched so far (Fetched) and
	// the time left at the pace so far.
	Progress io.Writer
	// Fetched, when set, says how many bytes the go command has fetched
	// since the run began, for Progress.
	Fetched func() int64
	// First is the first release the index holds (plegvet's
	// NodeIndexFirst), without Releases.
	First string
	// Fetcher lists the releases the module proxy serves.
	Fetcher release.Fetcher
	// Compute is a release's entry, computed from its source: its
	// NodeSource, encoded. Its error wraps release.ErrProxyRefused when
	// the proxy refused the source.
	Compute func(ctx context.Context, release string) (json.RawMessage, error)
}

// Update computes, from each release's source, the node-source
// answers plegvet's index holds, and writes the index to opts.File after
// each release (replacing it whole), so that a run stopped at any point
// leaves what it computed and the next run goes on from there. A release
// whose source is not read whole is an error, not an entry. A
// pre-release the go command refuses for its Go version (release.
// ErrGoTooOld: GOTOOLCHAIN=local) is left out, Progress saying why.
func Update(ctx context.Context, opts Options) error {
	kept := map[string]Entry{}
	if data, err := os.ReadFile(opts.File); err == nil {
		if kept, err = Read(data); err != nil {
			return fmt.Errorf("%s: %w", opts.File, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	releases, err := indexReleases(ctx, opts)
	if err != nil {
		return err
	}
	if len(opts.Releases) == 0 {
		for r := range kept {
			if v, _ := kubeversion.Parse(r); v.Pre != "" && !slices.Contains(releases, r) {
				delete(kept, r) // its minor has a release now, or a newer pre-release
			}
		}
	}
	p := newProgress(opts, len(releases))
	for _, r := range releases {
		if e, ok := kept[r]; ok && e.Unserved == "" && !opts.All {
			p.line(r, "kept")
			continue // kept; a release the proxy refused is asked for again
		}
		line, err := opts.Compute(ctx, r)
		v, _ := kubeversion.Parse(r)
		switch {
		case v.Pre != "" && errors.Is(err, release.ErrGoTooOld):
			p.line(r, "not indexed: "+err.Error())
			continue
		case errors.Is(err, release.ErrProxyRefused) && listed(ctx, opts.Fetcher, r):
			kept[r] = Entry{Release: r, Unserved: err.Error()}
		case err != nil:
			return errors.Join(err, write(opts.File, kept)) // what was computed is kept
		default:
			kept[r] = Entry{Release: r, NodeSource: line}
		}
		if err := write(opts.File, kept); err != nil {
			return err
		}
		p.line(r, cmp.Or(kept[r].Unserved, fmt.Sprintf("%d bytes", len(line))))
	}
	return write(opts.File, kept)
}

// write replaces the index file whole with entries: a run stopped while
// writing leaves the file of the release before.
func write(file string, entries map[string]Entry) error {
	var buf bytes.Buffer
	if err := Write(&buf, entries); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// indexReleases are the releases opts ask the index to hold.
func indexReleases(ctx context.Context, opts Options) ([]string, error) {
	if len(opts.Releases) == 0 {
		served, err := Served(ctx, opts.Fetcher, opts.First)
		if err != nil {
			return nil, err
		}
		pre, err := NextPreRelease(ctx, opts.Fetcher, served[len(served)-1])
		if err != nil {
			return nil, err
		}
		if pre != "" {
			served = append(served, pre)
		}
		return served, nil
	}
	var out []string
	for _, r := range opts.Releases {
		v, ok := kubeversion.Parse(r)
		switch {
		case ok && v.IsMinor():
			patches, err := opts.Fetcher.Patches(ctx, v.Minor)
			if err != nil {
				return nil, err
			}
			for _, p := range patches {
				out = append(out, v.WithPatch(p).Semver())
			}
		case ok && v.IsRelease():
			out = append(out, v.Semver())
		default:
			return nil, fmt.Errorf("%q: want a release (v1.36.1), a pre-release (v1.38.0-beta.0) or a minor (v1.36)", r)
		}
	}
	return out, nil
}

// listed says that the module proxy lists a release (its version
// information is served): a refusal of its source is then the proxy's
// refusal of that release, not a network that is down.
func listed(ctx context.Context, fetcher release.Fetcher, r string) bool {
	v, ok := kubeversion.Parse(r)
	if !ok {
		return false
	}
	patches, err := fetcher.Patches(ctx, v.Minor)
	return err == nil && v.Patch != nil && slices.Contains(patches, *v.Patch)
}

// NextPreRelease is the newest pre-release the module proxy serves of
// the minor after newest's (which has no release yet: Served stops
// there); "" when it serves none.
func NextPreRelease(ctx context.Context, fetcher release.Fetcher, newest string) (string, error) {
	v, _ := kubeversion.Parse(newest)
	fetcher.PreReleases = true
	pre, err := fetcher.Resolve(ctx, kubeversion.Version{Major: 1, Minor: v.Minor + 1}.Semver())
	if errors.Is(err, release.ErrProxyRefused) {
		return "", nil // none served
	}
	return pre, err
}

// Served lists every release (no pre-release) from
// from (NodeIndexFirst) on that the module proxy serves: each minor's patches,
// asked for by name, up to the first minor it serves none of.
func Served(ctx context.Context, fetcher release.Fetcher, from string) ([]string, error) {
	first, _ := kubeversion.Parse(from)
	f := fetcher
	var out []string
	for minor := first.Minor; ; minor += probingMinors {
		found := make([][]uint, probingMinors)
		g, gctx := errgroup.WithContext(ctx)
		for i := range found {
			g.Go(func() (err error) {
				found[i], err = f.Patches(gctx, minor+uint(i))
				if errors.Is(err, release.ErrProxyRefused) {
					return nil // none served: the minor after the newest
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for i, patches := range found {
			if len(patches) == 0 {
				if len(out) == 0 {
					return nil, fmt.Errorf("the module proxy serves no v1.%d release", minor+uint(i))
				}
				return out, nil
			}
			for _, p := range patches {
				out = append(out, fmt.Sprintf("v1.%d.%d", minor+uint(i), p))
			}
		}
	}
}

// probingMinors bounds the minors asked about at once.
const probingMinors = 4
