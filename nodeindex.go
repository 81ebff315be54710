package plegvet

import (
	_ "embed" // the index
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/plegvet/plegvet/internal/nodeindex"
	"golang.org/x/mod/semver"
)

// nodeIndexFile is plegvet's index of node-source answers: one line per
// release, {"release":"v1.36.1","nodeSource":{...}}, in version order,
// each LoadNodeSource's answer for that release read from its source.
// go generate writes it (internal/nodeindex/gen); TestNodeIndex holds it to
// what the source gives.
//
//go:generate go run ./internal/nodeindex/gen
//go:embed nodeindex.jsonl
var nodeIndexFile []byte

// NodeIndexFirst is the first release plegvet's index holds: every
// release (no pre-release) the module proxy serves from it on, when the
// index was generated.
const NodeIndexFirst = "v1.25.0"

// nodeIndex is the index, read once: each release's line, by release.
var nodeIndex = sync.OnceValues(func() (map[string]nodeindex.Entry, error) {
	return nodeindex.Read(nodeIndexFile)
})

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
