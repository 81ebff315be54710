// Package fleet decides which PLEG every node of a cluster runs: it reads
// each node's status.nodeInfo, and its kubelet's configz and metrics
// through the API server's nodes/proxy, and decides with plegvet's node
// verdict, the source of each kubelet release read once.
package fleet

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
)

// DefaultConcurrency is how many nodes are read at once by default. Each
// node costs two proxied requests, one after the other, each of which the
// API server holds open while the kubelet answers: ten in flight keep
// well within the API server's default priority levels, and with the
// client's default --qps a 5,000-node cluster takes a few minutes.
const DefaultConcurrency = 10

// Options say which nodes to read and how to decide.
type Options struct {
	// Nodes are the nodes named; none means every node Selector picks.
	Nodes    []string
	Selector string
	// Source names the tree to read the gate and periods from; with
	// neither Dir nor Kubernetes, each kubelet's own release is fetched.
	Source      plegvet.Options
	Concurrency int
	// Timeout is --request-timeout: it bounds each answer of the API
	// server, retries included (answerContext), and messages name it.
	Timeout time.Duration
	// MetricsTimeout is --metrics-timeout: it bounds a node's metrics
	// request instead, when shorter than Timeout (0: Timeout bounds it).
	// A kubelet whose runtime hangs holds its /metrics until the runtime's
	// calls time out (runtimeRequestTimeout, 2m by default) while its
	// configz answers: a metrics request that times out after configz
	// answered is decided from that failure (a hung runtime), not an
	// error row, and the run does not wait the whole Timeout for it.
	MetricsTimeout time.Duration
	// Progress, when not nil, gets a progress line (a terminal).
	Progress io.Writer
	// Save, when not "", is a directory to save each node's captures in,
	// as plegvet node reads them: NODE.configz.json, NODE.node.json (the
	// Node object as kept: see nodeObject), and NODE.metrics.txt whose
	// first line says when it was scraped, or, when the metrics request
	// timed out, NODE.metrics-error.txt (nodeverdict.MetricsFailure's
	// Format: when, how long it waited, the error).
	Save string

	// LoadSource and JudgeRuntime default to plegvet's; tests replace
	// them to count or to answer without the network.
	LoadSource   func(ctx context.Context, opts plegvet.Options, release string) (*plegvet.NodeSource, error)
	JudgeRuntime func(ctx context.Context, rt *nodeverdict.Runtime)
}

// NodeInfo is what the node object says of its kubelet and runtime.
type NodeInfo struct {
	KubeletVersion          string `json:"kubeletVersion"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
}

// Result is one node's answer: plegvet node's report, or the error that
// kept it from one.
type Result struct {
	Node     string   `json:"node"`
	NodeInfo NodeInfo `json:"nodeInfo"`
	*answer.NodeReport
	// Condition is the node's Ready condition, beside the report's
	// health; null when the node has none.
	Condition *ReadyCondition `json:"condition,omitempty"`
	// Warnings are what was left out of the decision, and why.
	Warnings []string `json:"warnings,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// Run reads and decides for the nodes, calling emit with each result as it
// is ready, from one goroutine at a time; emit must not keep r, whose
// report it may encode or summarise. Its error is one that stops every
// node (the list forbidden, say); a node's own error is in its Result.
func Run(ctx context.Context, client kubernetes.Interface, opts Options, emit func(i int, r *Result)) (total int, err error) {
	targets, err := targets(ctx, client, opts)
	if err != nil {
		return 0, err
	}
	f := &fleet{client: client, opts: opts, sources: map[string]*once[*plegvet.NodeSource]{}, runtimes: map[string]*once[nodeverdict.Runtime]{}}
	if f.opts.LoadSource == nil {
		f.opts.LoadSource = plegvet.LoadNodeSource
	}
	if f.opts.JudgeRuntime == nil {
		f.opts.JudgeRuntime = plegvet.JudgeRuntime
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	var mu sync.Mutex
	var done atomic.Int64
	g := new(errgroup.Group)
	g.SetLimit(conc)
	for i, t := range targets {
		g.Go(func() error {
			r := f.decide(ctx, t)
			mu.Lock()
			defer mu.Unlock()
			n := done.Add(1) // under the lock: the count printed only grows
			emit(i, r)
			if opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "\r\033[K%d/%d nodes", n, len(targets))
			}
			return nil
		})
	}
	_ = g.Wait()
	if opts.Progress != nil && len(targets) > 0 {
		fmt.Fprint(opts.Progress, "\r\033[K")
	}
	return len(targets), nil
}

type fleet struct {
	client kubernetes.Interface
	opts   Options
	mu     sync.Mutex
	// sources by release ("" when one tree serves all), runtimes by
	// name://version: each read once.
	sources  map[string]*once[*plegvet.NodeSource]
	runtimes map[string]*once[nodeverdict.Runtime]
	// heavy lets one source be read at a time: a read holds a whole tree.
	heavy sync.Mutex
}

// once is a value computed by the first to ask for it.
type once[T any] struct {
	o   sync.Once
	v   T
	err error
}

func get[T any](f *fleet, m map[string]*once[T], key string, compute func() (T, error)) (T, error) {
	f.mu.Lock()
	e := m[key]
	if e == nil {
		e = &once[T]{}
		m[key] = e
	}
	f.mu.Unlock()
	e.o.Do(func() {
		f.heavy.Lock()
		defer f.heavy.Unlock()
		e.v, e.err = compute()
	})
	return e.v, e.err
}
