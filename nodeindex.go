package plegvet

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed" // the index
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"

	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/internal/kubeversion"
	"github.com/plegvet/plegvet/internal/release"
)

// nodeIndexFile is plegvet's index of node-source answers: one line per
// release, {"release":"v1.36.1","nodeSource":{...}}, in version order,
// each LoadNodeSource's answer for that release read from its source.
// go generate writes it (gen_nodeindex.go); TestNodeIndex holds it to
// what the source gives.
//
//go:generate go run gen_nodeindex.go
//go:embed nodeindex.jsonl
var nodeIndexFile []byte

// NodeIndexFirst is the first release plegvet's index holds: every
// release (no pre-release) the module proxy serves from it on, when the
// index was generated.
const NodeIndexFirst = "v1.25.0"

// nodeIndexEntry is one line of the index: a release's answer, or why the
// index has none (the module proxy listed the release but refused its
// source when the index was generated).
type nodeIndexEntry struct {
	Release    string          `json:"release"`
	NodeSource json.RawMessage `json:"nodeSource,omitempty"`
	Unserved   string          `json:"unserved,omitempty"`
}

// nodeIndex is the index, read once: each release's line, by release.
var nodeIndex = sync.OnceValues(func() (map[string]nodeIndexEntry, error) {
	return readNodeIndex(nodeIndexFile)
})

// readNodeIndex reads an index file, refusing what go generate would not
// have written: a line that is not an entry, releases out of order or
// repeated.
func readNodeIndex(data []byte) (map[string]nodeIndexEntry, error) {
	out := map[string]nodeIndexEntry{}
	prev := ""
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 && len(data) == 0 {
			break
		}
		var e nodeIndexEntry
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		const want = `want {"release":...,"nodeSource":{...}} or {"release":...,"unserved":"why"}`
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %s: %w", i+1, want, err)
		}
		if (len(e.NodeSource) == 0) == (e.Unserved == "") {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %s", i+1, want)
		}
		if v, ok := kubeversion.Parse(e.Release); !ok || !v.IsRelease() || v.Pre != "" || v.Semver() != e.Release {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %q is not a release (v1.X.Y)", i+1, e.Release)
		}
		if prev != "" && semver.Compare(prev, e.Release) >= 0 {
			return nil, fmt.Errorf("nodeindex.jsonl:%d: %s after %s: want releases in order, each once", i+1, e.Release, prev)
		}
		prev = e.Release
		out[e.Release] = e
	}
	return out, nil
}

// NodeIndexReleases lists the releases plegvet's index holds an answer
// for, in order.
func NodeIndexReleases() []string {
	index, err := nodeIndex()
	if err != nil {
		return nil
	}
	releases := slices.SortedFunc(maps.Keys(index), semver.Compare)
	return slices.DeleteFunc(releases, func(r string) bool { return index[r].Unserved != "" })
}

// indexedNodeSource is the index's answer for a release; nil when it holds
// none.
func indexedNodeSource(release string) (*NodeSource, error) {
	index, err := nodeIndex()
	if err != nil {
		return nil, err
	}
	e, ok := index[release]
	if !ok || e.Unserved != "" {
		return nil, nil
	}
	var s NodeSource
	if err := json.Unmarshal(e.NodeSource, &s); err != nil {
		return nil, fmt.Errorf("nodeindex.jsonl: %s: %w", release, err)
	}
	s.Source.From = FromIndex
	return &s, nil
}

// notIndexed says why a release that the index does not hold cannot be
// read without the go command.
func notIndexed(release string) error {
	why := "releases none"
	if rs := NodeIndexReleases(); len(rs) > 0 {
		why = "releases " + rs[0] + " to " + rs[len(rs)-1]
	}
	if index, err := nodeIndex(); err == nil && index[release].Unserved != "" {
		why = "the module proxy refused its source when the index was made: " + index[release].Unserved
	}
	return fmt.Errorf("%s is not in plegvet's index (%s), and its source cannot be fetched: %w", release, why, ErrNoGoCommand)
}

// ErrNoGoCommand is wrapped by the error of a release that plegvet would
// have to fetch when no go command is on PATH.
var ErrNoGoCommand = errors.New("no go command on PATH")

// NodeIndexOptions say how UpdateNodeIndex runs.
type NodeIndexOptions struct {
	// File is the index to update; its answers are kept unless All (a
	// release the proxy refused before is asked for again).
	File string
	// All computes every release again; otherwise only those File lacks.
	All bool
	// Releases, when set, are the releases to hold (and the index keeps
	// the others), each a release (v1.36.1) or a minor (v1.36: every
	// patch the module proxy serves); otherwise every release from
	// NodeIndexFirst on that the proxy serves.
	Releases []string
	// Progress, when set, gets a line per release computed.
	Progress io.Writer
	// Fetch says how the go command runs.
	Fetch FetchOptions
}

// UpdateNodeIndex computes, from each release's source, the node-source
// answers plegvet's index holds, and writes the index to opts.File. A
// release whose source is not read whole is an error, not an entry.
func UpdateNodeIndex(ctx context.Context, opts NodeIndexOptions) error {
	kept := map[string]nodeIndexEntry{}
	if data, err := os.ReadFile(opts.File); err == nil {
		if kept, err = readNodeIndex(data); err != nil {
			return fmt.Errorf("%s: %w", opts.File, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	releases, err := indexReleases(ctx, opts)
	if err != nil {
		return err
	}
	var failed error
	for _, r := range releases {
		if e, ok := kept[r]; ok && e.Unserved == "" && !opts.All {
			continue // kept; a release the proxy refused is asked for again
		}
		line, err := nodeIndexLine(ctx, r, opts.Fetch)
		switch {
		case errors.Is(err, release.ErrProxyRefused) && listed(ctx, opts.Fetch, r):
			kept[r] = nodeIndexEntry{Release: r, Unserved: err.Error()}
		case err != nil:
			failed = err
		default:
			kept[r] = nodeIndexEntry{Release: r, NodeSource: line}
		}
		if failed != nil {
			break // what was computed is kept below
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%s: %s\n", r, cmp.Or(kept[r].Unserved, fmt.Sprintf("%d bytes", len(line))))
		}
	}
	var buf bytes.Buffer
	if err := writeNodeIndex(&buf, kept); err != nil {
		return err
	}
	if err := os.WriteFile(opts.File, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return failed
}

// indexReleases are the releases opts ask the index to hold.
func indexReleases(ctx context.Context, opts NodeIndexOptions) ([]string, error) {
	if len(opts.Releases) == 0 {
		return servedReleases(ctx, opts.Fetch)
	}
	var out []string
	for _, r := range opts.Releases {
		v, ok := kubeversion.Parse(r)
		switch {
		case ok && v.IsMinor():
			patches, err := opts.Fetch.fetcher().Patches(ctx, v.Minor)
			if err != nil {
				return nil, err
			}
			for _, p := range patches {
				out = append(out, v.WithPatch(p).Semver())
			}
		case ok && v.IsRelease() && v.Pre == "":
			out = append(out, v.Semver())
		default:
			return nil, fmt.Errorf("%q: want a release (v1.36.1) or a minor (v1.36)", r)
		}
	}
	return out, nil
}

// listed says that the module proxy lists a release (its version
// information is served): a refusal of its source is then the proxy's
// refusal of that release, not a network that is down.
func listed(ctx context.Context, fetch FetchOptions, r string) bool {
	v, ok := kubeversion.Parse(r)
	if !ok {
		return false
	}
	patches, err := fetch.fetcher().Patches(ctx, v.Minor)
	return err == nil && v.Patch != nil && slices.Contains(patches, *v.Patch)
}

// nodeIndexLine is a release's entry, computed from its source: the
// NodeSource, encoded, without From (the reader sets it).
func nodeIndexLine(ctx context.Context, release string, fetch FetchOptions) (json.RawMessage, error) {
	s, err := LoadNodeSource(ctx, Options{Kubernetes: release, SkipIndex: true, Fetch: fetch}, release)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", release, err)
	}
	if !loadComplete(s.Source.Load) {
		return nil, fmt.Errorf("%s: the source was not read whole (problems %q, unfollowed %q): not an index entry", release, s.Source.Load.Problems, s.Source.Load.Unfollowed)
	}
	s.Source.From = ""
	return json.Marshal(s)
}

// writeNodeIndex writes entries as the index file holds them.
func writeNodeIndex(w io.Writer, entries map[string]nodeIndexEntry) error {
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

// servedReleases lists every release (no pre-release) from
// NodeIndexFirst on that the module proxy serves: each minor's patches,
// asked for by name, up to the first minor it serves none of.
func servedReleases(ctx context.Context, fetch FetchOptions) ([]string, error) {
	first, _ := kubeversion.Parse(NodeIndexFirst)
	f := fetch.fetcher()
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
