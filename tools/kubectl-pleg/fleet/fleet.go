// Package fleet decides which PLEG every node of a cluster runs: it reads
// each node's status.nodeInfo, and its kubelet's configz and metrics
// through the API server's nodes/proxy, and decides with plegvet's node
// verdict, the source of each kubelet release read once.
package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// pageSize is how many nodes one list request returns.
const pageSize = 500

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

// target is a node to read: named, or listed with its node info and
// Ready condition.
type target struct {
	name  string
	info  *NodeInfo
	ready *ReadyCondition
	// readyAsIs is the Ready condition as the Node holds it (its message
	// cut as READY's), for the Node object plegvet node -node reads
	// (nodeObject); nil when the node has none.
	readyAsIs *corev1.NodeCondition
	listed    bool
}

// targets lists the nodes, a page at a time, keeping only what each
// needs; named nodes are read one by one later, each its own row.
func targets(ctx context.Context, client kubernetes.Interface, opts Options) ([]target, error) {
	if len(opts.Nodes) > 0 {
		seen := map[string]bool{}
		var out []target
		for _, n := range opts.Nodes {
			if !seen[n] {
				seen[n] = true
				out = append(out, target{name: n})
			}
		}
		return out, nil
	}
	var out []target
	var seen pages
	cont := ""
	for {
		actx, cancel := opts.answerContext(ctx)
		list, err := client.CoreV1().Nodes().List(actx, metav1.ListOptions{LabelSelector: opts.Selector, Limit: pageSize, Continue: cont})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("cannot list nodes: %s", explain(err, "list", "nodes", opts.Timeout))
		}
		names := make([]string, len(list.Items))
		for i := range list.Items {
			n := &list.Items[i]
			names[i] = n.Name
			out = append(out, target{name: n.Name, info: info(n), ready: readyCondition(n), readyAsIs: readyAsIs(n), listed: true})
		}
		if err := seen.add(names, list.Continue); err != nil {
			return nil, err
		}
		if cont = list.Continue; cont == "" {
			return out, nil
		}
	}
}

func info(n *corev1.Node) *NodeInfo {
	return &NodeInfo{KubeletVersion: n.Status.NodeInfo.KubeletVersion, ContainerRuntimeVersion: n.Status.NodeInfo.ContainerRuntimeVersion}
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

// decide answers for one node; every failure is its Result's Error.
func (f *fleet) decide(ctx context.Context, t target) *Result {
	r := &Result{Node: t.name}
	fail := func(err error) *Result {
		r.Error = err.Error()
		if t.ready != nil {
			// The node's own word stands without a scrape to judge it by.
			c := *t.ready
			c.Why = "no scrape to put beside it"
			r.Condition = &c
		}
		return r
	}
	if !t.listed {
		actx, cancel := f.opts.answerContext(ctx)
		n, err := f.client.CoreV1().Nodes().Get(actx, t.name, metav1.GetOptions{})
		cancel()
		if err != nil {
			return fail(fmt.Errorf("get node: %s", explain(err, "get", "nodes", f.opts.Timeout)))
		}
		t.info, t.ready, t.readyAsIs = info(n), readyCondition(n), readyAsIs(n)
	}
	r.NodeInfo = *t.info
	cfg, err := f.configz(ctx, t.name)
	if err != nil {
		return fail(err)
	}
	// The Node object as plegvet node -node reads it: the same bytes are
	// saved and read.
	nodeJSON, err := json.Marshal(nodeObject(t.name, t.info, t.readyAsIs))
	if err != nil {
		return fail(fmt.Errorf("cannot encode the Node object: %v", err))
	}
	if err := f.saveFile(t.name, "node.json", nodeJSON); err != nil {
		return fail(err)
	}
	met, at, err := f.metrics(ctx, t.name)
	var failure *nodeverdict.MetricsFailure
	if hung := (*metricsTimedOut)(nil); errors.As(err, &hung) {
		// Configz answered, the metrics did not in time: decided from the
		// failure, as plegvet node -metrics-error-file decides.
		failure, err = hung.failure, nil
		if serr := errors.Join(f.unsave(t.name, "metrics.txt"), f.saveFile(t.name, "metrics-error.txt", failure.Format())); serr != nil {
			return fail(serr)
		}
	}
	if err != nil {
		return fail(err)
	}
	kubelet := t.info.KubeletVersion
	if kubelet == "" && met != nil {
		kubelet = met.KubeletVersion
	}
	named := f.opts.Source.Dir != "" || f.opts.Source.Kubernetes != ""
	release, err := nodeverdict.Release(kubelet)
	if err != nil && !named {
		return fail(fmt.Errorf("kubelet version: %v (status.nodeInfo.kubeletVersion %q); pass --source-k8s v1.X.Y, the release the kubelet was built from", err, t.info.KubeletVersion))
	}
	if err != nil {
		// A kubelet that does not say its release (built without version
		// ldflags): the source named serves, and the report says so.
		release, kubelet = "", ""
	}
	// The CRI version the node does not report is inferred from the
	// kubelet's version, or the release named.
	criFrom := kubelet
	if criFrom == "" {
		criFrom = f.opts.Source.Kubernetes
	}
	var rt *nodeverdict.Runtime
	if t.info.ContainerRuntimeVersion == "" {
		r.Warnings = append(r.Warnings, "status.nodeInfo.containerRuntimeVersion is empty: decided without the runtime")
	} else if rt, err = nodeverdict.RuntimeFromNodeInfo("status.nodeInfo", t.info.ContainerRuntimeVersion, criFrom); err != nil {
		r.Warnings = append(r.Warnings, err.Error()+": decided without the runtime")
	} else if rt.Known {
		judged, err := get(f, f.runtimes, rt.Name+"://"+rt.Version, func() (nodeverdict.Runtime, error) {
			c := *rt
			f.opts.JudgeRuntime(ctx, &c)
			return c, nil
		})
		if err == nil {
			judged.APIVersion = rt.APIVersion
			rt = &judged
		}
	}
	key := release
	if named {
		key = ""
	}
	src, err := get(f, f.sources, key, func() (*plegvet.NodeSource, error) {
		return f.opts.LoadSource(ctx, f.opts.Source, release)
	})
	if err != nil {
		return fail(fmt.Errorf("cannot read the kubelet's source (%s): %v", sourceName(f.opts.Source, release), err))
	}
	capture := plegvet.NodeCapture{Config: cfg, Metrics: met, Runtime: rt, KubeletVersion: kubelet, At: &at, AtFrom: scrapedBy}
	inputs := answer.NodeInputs{Configz: proxyPath(t.name, "configz"), Metrics: proxyPath(t.name, "metrics")}
	if failure != nil {
		// As plegvet node -metrics-error-file -node decides from the saved
		// files: the time is the failed request's, the kubelet's version
		// the Node object's status.nodeInfo (read by the library, which
		// says so), its Ready condition an input.
		node, err := nodeverdict.ReadNode(nodePath(t.name), nodeJSON)
		if err != nil {
			return fail(err)
		}
		capture = plegvet.NodeCapture{Config: cfg, Runtime: rt, MetricsFailure: failure, Node: node}
		at = *failure.At
		inputs = answer.NodeInputs{Configz: proxyPath(t.name, "configz"), MetricsError: proxyPath(t.name, "metrics"), Node: nodePath(t.name)}
	}
	rep, err := src.Decide(capture)
	if err != nil {
		return fail(err)
	}
	rep.Inputs = inputs
	r.NodeReport = rep
	if t.ready != nil {
		c := *t.ready
		c.judge(rep.Health, at, src.HealthRule().Words)
		r.Condition = &c
	}
	return r
}

// scrapedBy says where a capture's time comes from, for evidence.
const scrapedBy = "when kubectl pleg received the metrics, by this machine's clock"

func sourceName(o plegvet.Options, release string) string {
	switch {
	case o.Dir != "":
		return o.Dir
	case o.Kubernetes != "":
		return "k8s.io/kubernetes@" + o.Kubernetes
	}
	return "k8s.io/kubernetes@" + release
}

func proxyPath(node, path string) string {
	return "/api/v1/nodes/" + node + "/proxy/" + path
}

func nodePath(node string) string {
	return "/api/v1/nodes/" + node
}

// nodeObject is the Node object as kubectl pleg keeps it, for plegvet
// node -node and --save: its kind and name, status.nodeInfo's
// kubeletVersion and containerRuntimeVersion, and its Ready condition
// (the message cut as READY's); what plegvet node reads of a Node, and
// nothing else (no images, no addresses, no other condition), so that a
// node costs a few hundred bytes more from the list to its row.
func nodeObject(name string, info *NodeInfo, ready *corev1.NodeCondition) *corev1.Node {
	o := &corev1.Node{TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: name}}
	o.Status.NodeInfo.KubeletVersion, o.Status.NodeInfo.ContainerRuntimeVersion = info.KubeletVersion, info.ContainerRuntimeVersion
	if ready != nil {
		o.Status.Conditions = []corev1.NodeCondition{*ready}
	}
	return o
}

// readyAsIs is the node's Ready condition, its message cut; nil when it
// has none.
func readyAsIs(n *corev1.Node) *corev1.NodeCondition {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			c.Message = cutMessage(c.Message)
			return &c
		}
	}
	return nil
}

// configz reads the kubelet's /configz through the API server.
func (f *fleet) configz(ctx context.Context, node string) (*nodeverdict.Config, error) {
	ctx, cancel := f.opts.answerContext(ctx)
	defer cancel()
	// Stream, not DoRaw: its errors carry the API server's Status, which
	// names the permission a 403 lacks.
	body, err := f.client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("configz").Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("configz: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxConfigz+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("configz: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	case len(data) > maxConfigz:
		return nil, fmt.Errorf("configz: more than %d bytes; want the kubelet's configz", maxConfigz)
	}
	saved, err := f.save(node, "configz.json")
	if err != nil {
		return nil, err
	}
	saved.Write(data)
	if err := saved.Close(); err != nil {
		return nil, err
	}
	return nodeverdict.ReadConfigz(proxyPath(node, "configz"), data)
}

// maxConfigz bounds a configz body: a kubelet's is a few kilobytes.
const maxConfigz = 4 << 20

// metrics reads the kubelet's /metrics through the API server as a
// stream, keeping only the families the verdict reads; at is when the
// response arrived, the capture's time.
func (f *fleet) metrics(ctx context.Context, node string) (met *nodeverdict.Metrics, at time.Time, err error) {
	ctx, cancel := f.opts.metricsContext(ctx)
	defer cancel()
	began := time.Now().UTC()
	body, err := f.client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("metrics").
		SetHeader("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1").Stream(ctx)
	if err != nil {
		if hung := f.metricsTimedOut(err, began); hung != nil {
			return nil, at, hung
		}
		return nil, at, fmt.Errorf("metrics: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	}
	defer body.Close()
	// The kubelet gathers its metrics before it answers.
	at = time.Now().UTC()
	saved, err := f.save(node, "metrics.txt")
	if err != nil {
		return nil, at, err
	}
	var in io.Reader = &cappedBody{r: body}
	if saved != nil {
		// First the capture's time, then the body as it comes, so that
		// plegvet node -metrics reads the same.
		saved.Write([]byte(nodeverdict.ScrapedAtComment + at.Format(time.RFC3339Nano) + "\n"))
		in = io.TeeReader(in, saved)
	}
	met, err = nodeverdict.ReadMetricsFrom(proxyPath(node, "metrics"), in)
	if serr := saved.Close(); err == nil && serr != nil {
		return nil, at, serr
	}
	if big := (*tooLarge)(nil); errors.As(err, &big) {
		return nil, at, fmt.Errorf("metrics: %s", big)
	}
	if err != nil && timedOut(err) {
		if hung := f.metricsTimedOut(err, began); hung != nil {
			// The body began and stopped: no capture (decide removes the
			// part saved).
			return nil, at, hung
		}
		return nil, at, fmt.Errorf("metrics: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	}
	if err == nil {
		// A failure saved by an earlier run is no longer this node's.
		err = f.unsave(node, "metrics-error.txt")
	}
	return met, at, err
}

// metricsTimedOut is a metrics request that got no answer in time (its
// bound ran out, or a proxy answered 504 Gateway Timeout) after the
// kubelet answered its configz: what a hung runtime does to the kubelet's
// /metrics. It is decided from, not an error row.
type metricsTimedOut struct {
	failure *nodeverdict.MetricsFailure
}

func (e *metricsTimedOut) Error() string { return e.failure.Error }

// metricsTimedOut is err as a metrics failure when it is a timeout of the
// request begun at began; nil when it is another error (refused, a
// status, the client's rate limiter), which stays the node's error.
func (f *fleet) metricsTimedOut(err error, began time.Time) *metricsTimedOut {
	bound, flag := f.opts.metricsBound()
	var text string
	switch {
	case limiterTimedOut(err):
		return nil
	case timedOut(err) && bound > 0:
		text = fmt.Sprintf("metrics: timed out after %s (%s): no answer came through the API server's node proxy", bound, flag)
	case timedOut(err):
		text = "metrics: timed out: no answer came through the API server's node proxy"
	case code(err) == http.StatusGatewayTimeout:
		msg := err.Error()
		if se := apierrors.APIStatus(nil); errors.As(err, &se) {
			msg = se.Status().Message
		}
		text = "metrics: gateway timeout (504), from the API server or a proxy before it: " + msg
	default:
		return nil
	}
	waited := time.Since(began).Round(time.Millisecond)
	return &metricsTimedOut{failure: nodeverdict.NewMetricsFailure(text, waited, &began)}
}

// explain turns a request's error into one line that says what failed and
// what to do: the RBAC permission a 403 lacks, the kubelet a 503 could not
// reach, the timeout a slow kubelet ran past.
func explain(err error, verb, resource string, timeout time.Duration) string {
	var se apierrors.APIStatus
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Status().Message
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("forbidden: missing RBAC permission %q on %q (the ClusterRole in kubectl-pleg's README grants it): %s", verb, resource, msg)
	case apierrors.IsUnauthorized(err):
		return "unauthorized: the credentials of this kubeconfig context were refused: " + msg
	case apierrors.IsNotFound(err) && resource == "nodes":
		return "not found: " + msg
	case apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) && resource == "nodes/proxy":
		return fmt.Sprintf("the API server could not reach the kubelet (%d): %s", code(err), msg)
	case timedOut(err) || limiterTimedOut(err):
		if limiterTimedOut(err) {
			return fmt.Sprintf("timed out after %s (--request-timeout) waiting for the client's rate limiter (--qps)", timeout)
		}
		if timeout > 0 {
			return fmt.Sprintf("timed out after %s (--request-timeout)", timeout)
		}
		return "timed out"
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return "the API server timed out: " + msg
	}
	var e apierrors.APIStatus
	if errors.As(err, &e) {
		return fmt.Sprintf("%s (%d)", msg, code(err))
	}
	return msg
}

func code(err error) int32 {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return se.Status().Code
	}
	return 0
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
