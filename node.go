package plegvet

import (
	"context"
	_ "embed" // the index
	"sync"
	"time"

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
	// Configz, Metrics and Crictl are files holding the output of
	// kubectl get --raw /api/v1/nodes/NODE/proxy/configz, of
	// .../proxy/metrics, and of crictl version run on the node (its
	// "Name:  value" lines, or the same fields as JSON or YAML). Crictl
	// is optional.
	Configz, Metrics, Crictl string
	// SkipRuntimeSource leaves the runtime's own source unread: by
	// default, with Crictl, the runtime's module is fetched at the version
	// it reports to say whether it can stream container events.
	SkipRuntimeSource bool
	// KubeletVersion (v1.36.1) overrides the version in the metrics.
	// Without it, a kubelet that does not say its release (no
	// kubernetes_build_info, or a git_version that is not a release, as a
	// build without version ldflags reports) is an error wrapping
	// ErrKubeletVersionUnknown, unless Options name the source: the gate
	// is then read at the source's version, and a note says so.
	KubeletVersion string
	// At is when the metrics were scraped; nil takes the metrics file's
	// "# scraped at" line (never the file's mtime).
	At *time.Time
	// MetricsError, instead of Metrics, is the error the kubelet's
	// metrics request got (made at At, after MetricsWaited): a hung
	// runtime makes /metrics wait until the client gives up, while
	// configz answers. MetricsErrorFile is the same as kubectl pleg
	// --save keeps it. LastMetrics is the last scrape that answered (its
	// "# scraped at" line included), Node the Node object (kubectl get
	// node NAME -o json), whose Ready condition says whether the kubelet
	// declared its runtime down or its PLEG unhealthy; each optional.
	MetricsError, MetricsErrorFile string
	MetricsWaited                  time.Duration
	LastMetrics, Node              string
}

// Node reads a node's configz, metrics and (optionally) crictl version
// output, reads the gate's spec at the kubelet's version and the relist
// periods from source, and decides which PLEG the node runs. An input
// that cannot be read is an error naming the file and what was expected.
func Node(ctx context.Context, opts NodeOptions) (*answer.NodeReport, error) {
	return assemble.Node(ctx, assemble.NodeOptions{
		Options: opts.internal(), Configz: opts.Configz, Metrics: opts.Metrics, Crictl: opts.Crictl,
		SkipRuntimeSource: opts.SkipRuntimeSource, KubeletVersion: opts.KubeletVersion, At: opts.At,
		MetricsError: opts.MetricsError, MetricsErrorFile: opts.MetricsErrorFile, MetricsWaited: opts.MetricsWaited,
		LastMetrics: opts.LastMetrics, Node: opts.Node,
	})
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
	return assemble.IndexReleases(nodeIndex)
}

// ErrNoGoCommand is wrapped by the error of a release that plegvet would
// have to fetch when no go command is on PATH.
var ErrNoGoCommand = assemble.ErrNoGoCommand
