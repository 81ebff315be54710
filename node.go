package plegvet

import (
	"context"
	_ "embed" // the index
	"sync"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
	"github.com/plegvet/plegvet/nodeverdict"
)

// NodeOptions say which captures of a live node to read, and which source
// to read the gate and the periods from.
type NodeOptions struct {
	// Options name the source. With neither Dir nor Kubernetes set, the
	// release the kubelet reports (KubeletVersion, or the metrics'
	// kubernetes_build_info) is fetched: the node's own source.
	Options
	// NodeFiles are the node's capture files (Configz, Metrics, ...).
	NodeFiles
}

// Node reads a node's configz, metrics and (optionally) crictl version
// output, reads the gate's spec at the kubelet's version and the relist
// periods from source, and decides which PLEG the node runs. An input
// that cannot be read is an error naming the file and what was expected.
func Node(ctx context.Context, opts NodeOptions) (*answer.NodeReport, error) {
	return assemble.Node(ctx, assemble.NodeOptions{Options: opts.internal(), NodeFiles: opts.NodeFiles})
}

// LoadNodeSource reads the source of the kubelet of a release (v1.36.1,
// as nodeverdict.Release gives it): the tree opts names, or, when opts
// names none (Dir and Kubernetes empty), the release: its answer in
// plegvet's index (NodeIndexReleases) unless opts.SkipIndex, or else its
// source fetched with the go command. A release the index lacks, with no
// go command on PATH, is an error wrapping ErrNoGoCommand.
func LoadNodeSource(ctx context.Context, opts Options, release string) (*NodeSource, error) {
	return assemble.LoadNodeSource(ctx, opts.internal(), release)
}

// JudgeRuntime reads, from the runtime's own source at the version it
// reports (fetched with the go command), whether it can stream container
// events, into rt's StreamsEvents, Module, Pos and StreamsWhy. A runtime
// plegvet does not know, or whose source cannot be read, is said in
// StreamsWhy, not an error. The go command runs as FetchOptions{} says
// (DefaultFetchTimeout); Node runs it as its Options.Fetch says.
func JudgeRuntime(ctx context.Context, rt *nodeverdict.Runtime) {
	assemble.JudgeRuntime(ctx, rt)
}

// nodeIndexFile is plegvet's index of node-source answers: one line per
// release, {"release":"v1.36.1","nodeSource":{...}}, in version order,
// each LoadNodeSource's answer for that release read from its source.
// go generate writes it (internal/assemble/nodeindex/gen); TestNodeIndex holds it to
// what the source gives.
//
//go:generate go run ./internal/assemble/nodeindex/gen
//go:embed nodeindex.jsonl
var nodeIndexFile []byte

// NodeIndexFirst is the first release plegvet's index holds: every
// release the module proxy serves from it on when the index was
// generated, and the newest pre-release of the minor after them if that
// minor had no release yet.
const NodeIndexFirst = nodeindex.First

// nodeIndex is the index, read once: each release's line, by release.
var nodeIndex = sync.OnceValues(func() (map[string]nodeindex.Entry, error) {
	return nodeindex.Read(nodeIndexFile)
})

// NodeIndexReleases lists the releases plegvet's index holds an answer
// for, in order (a pre-release, v1.38.0-beta.0, last).
func NodeIndexReleases() []string {
	return assemble.IndexReleases(nodeIndex)
}

// ErrNoGoCommand is wrapped by the error of a release that plegvet would
// have to fetch when no go command is on PATH.
var ErrNoGoCommand = assemble.ErrNoGoCommand
