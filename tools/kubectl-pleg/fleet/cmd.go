package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
)

// DefaultMetricsTimeout bounds a node's metrics request by default: a
// kubelet answers its metrics in a second or two, and a hung runtime holds
// them for its runtimeRequestTimeout (2m by default); well under the 30s
// request timeout, so that hung nodes do not hold a run (each holds one of
// --concurrency's slots that long).
const DefaultMetricsTimeout = 10 * time.Second

// Exit codes: a node that cannot be read is 1, as any failure; a usage
// error 2; a node whose verdict is inconsistent 3 (plegvet's findings
// code), when every node was read.
const (
	exitFail         = 1
	exitUsage        = 2
	exitInconsistent = 3
)

const usage = `kubectl pleg: which PLEG each node's kubelet runs, generic relist or evented,
and whether it is healthy.

Usage:
  kubectl pleg [NODE...] [-l SELECTOR] [-o wide|json|yaml] [--save DIR]
               [--source-k8s v1.X.Y | --source-dir DIR] [--concurrency N]
               [--kubeconfig FILE] [--context NAME] [--request-timeout 30s]
               [--metrics-timeout 10s]

For each node (every node when none is named), it reads status.nodeInfo,
and the kubelet's /configz and /metrics through the API server
(/api/v1/nodes/NODE/proxy/...), and decides as plegvet node does: the
EventedPLEG gate's default is read from the source of the node's kubelet
release: plegvet's index, built into this binary, holds that answer for
every release from v1.25.0 to the newest when it was built (no go command
needed); a release it lacks is fetched once with the go command, and
without one its rows say why. The SOURCE column (and source.from in -o
json) says which.

HEALTH is plegvet node's health of the node's PLEG at the time the metrics
arrived (by this machine's clock): the time since its last successful
relist against the threshold the source holds it to. READY is the node's
Ready condition from the node list (no request more), and whether it
agrees; when it does not, which is newer: the scrape or the condition's
last heartbeat. --save DIR writes each node's captures for plegvet node:
NODE.configz.json, NODE.node.json (the Node object's nodeInfo and
conditions), and NODE.metrics.txt with a first line "# scraped at TIME",
or NODE.metrics-error.txt when the metrics did not answer in time.

A kubelet whose container runtime hangs or is slow answers its configz
but holds its /metrics while the runtime's calls wait. --metrics-timeout
(default 10s; at most --request-timeout) bounds the metrics request: one
that runs out after configz answered is decided as plegvet node
-metrics-error-file -node decides, not an error row: dark is not dead,
so HEALTH is the kubelet's own word, the Node's Ready condition: at-risk
while Ready is True, unhealthy when it says the runtime is down or the
PLEG not healthy. A timeout through the API server's node proxy does not
say it reached the kubelet, so no runtime state is claimed from it. A
metrics request refused or failing otherwise stays the node's error.

The user needs get and list on nodes, and get on nodes/proxy. The
kubeconfig, context, credentials and --request-timeout are kubectl's own
flags, read as kubectl reads them.

Exit status: 0 when every node answered generic, evented,
generic-with-event-hints or fell-back; 3 when every node answered and one
or more is inconsistent (a reason disagrees with the verdict the source
predicts), or has a PLEG plegvet computes unhealthy (a hung runtime's
included); 1 when a node could not be read (its row says why), whatever
the others answered; 2 for a bad command line.

Flags:
`

// cliFlags are the values of kubectl pleg's flags.
type cliFlags struct {
	config                                 *genericclioptions.ConfigFlags
	timeout                                string
	selector, output, sourceK8s, sourceDir string
	concurrency                            int
	qps                                    float32
	burst                                  int
	skipRuntime                            bool
	useIndex                               bool
	save                                   string
	metricsTimeout                         time.Duration
}

// newFlagSet is kubectl pleg's one flag set, each flag bound to v:
// kubectl's own (the kubeconfig, context, credentials, --request-timeout)
// and the plugin's.
func newFlagSet(v *cliFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("kubectl pleg", pflag.ContinueOnError)
	v.config = genericclioptions.NewConfigFlags(true)
	v.timeout = "30s"
	v.config.Timeout = &v.timeout
	v.config.AddFlags(fs)
	fs.StringVar(&v.save, "save", "", "save each node's captures in this directory, for plegvet node: NODE.configz.json, NODE.node.json, and NODE.metrics.txt with a \"# scraped at\" line or NODE.metrics-error.txt")
	fs.DurationVar(&v.metricsTimeout, "metrics-timeout", DefaultMetricsTimeout, "bound each node's metrics request (at most --request-timeout); one that runs out after the kubelet answered its configz is decided from the Node's Ready condition, not an error (0: --request-timeout)")
	fs.StringVarP(&v.selector, "selector", "l", "", "label selector of the nodes to read (-l node-role.kubernetes.io/worker)")
	fs.StringVarP(&v.output, "output", "o", "", "output format: wide, json or yaml (default: a table)")
	fs.StringVar(&v.sourceK8s, "source-k8s", "", "read the gate and the periods from this Kubernetes release (v1.36.1) for every node, instead of each kubelet's own")
	fs.StringVar(&v.sourceDir, "source-dir", "", "read the gate and the periods from this Kubernetes checkout for every node")
	fs.BoolVar(&v.skipRuntime, "skip-runtime-source", false, "do not fetch each runtime version's source to read whether it can stream container events")
	fs.BoolVar(&v.useIndex, "index", true, "take each release's source answer from plegvet's index when it holds it (--index=false reads the release's source with the go command)")
	fs.IntVar(&v.concurrency, "concurrency", DefaultConcurrency, "how many nodes to read at once")
	fs.Float32Var(&v.qps, "qps", 50, "the client's requests per second to the API server (client-go's rate limiter)")
	fs.IntVar(&v.burst, "burst", 100, "the client's burst of requests above --qps")
	return fs
}

// Main runs the plugin with the arguments after its name; hooks, when not
// nil, replace the source and runtime readers (tests).
func Main(ctx context.Context, args []string, streams genericiooptions.IOStreams, hooks *Options) int {
	var v cliFlags
	fs := newFlagSet(&v)
	fs.SetOutput(streams.ErrOut)
	// Help asked for goes to stdout, as kubectl's does (kubectl pleg -h | less).
	fs.Usage = func() { fmt.Fprint(streams.Out, usage+fs.FlagUsages()) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(streams.ErrOut, "kubectl pleg: %v (see kubectl pleg --help)\n", err)
		return exitUsage
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(streams.ErrOut, "kubectl pleg: "+format+" (see kubectl pleg --help)\n", a...)
		return exitUsage
	}
	switch {
	case v.output != "" && v.output != "wide" && v.output != "json" && v.output != "yaml":
		return usageErr("-o %q: want wide, json or yaml", v.output)
	case v.sourceK8s != "" && v.sourceDir != "":
		return usageErr("--source-k8s and --source-dir exclude each other")
	case len(fs.Args()) > 0 && v.selector != "":
		return usageErr("name nodes or give -l, not both")
	case v.concurrency < 1:
		return usageErr("--concurrency %d: want 1 or more", v.concurrency)
	case v.qps <= 0 || v.burst < 1:
		return usageErr("--qps and --burst must be positive")
	case v.metricsTimeout < 0:
		return usageErr("--metrics-timeout %s: want 0 or more", v.metricsTimeout)
	}
	reqTimeout, err := time.ParseDuration(v.timeout)
	if err != nil {
		if n, aerr := parseSeconds(v.timeout); aerr == nil {
			reqTimeout = n
		} else {
			return usageErr("--request-timeout %q: want a duration such as 30s", v.timeout)
		}
	}
	cfg, err := v.config.ToRESTConfig()
	if err != nil {
		fmt.Fprintf(streams.ErrOut, "kubectl pleg: %v\n", err)
		return exitFail
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = v.qps, v.burst
	client, err := newClient(cfg)
	if err != nil {
		fmt.Fprintf(streams.ErrOut, "kubectl pleg: %v\n", err)
		return exitFail
	}

	if v.save != "" {
		if st, err := os.Stat(v.save); err != nil || !st.IsDir() {
			return usageErr("--save %q: want an existing directory", v.save)
		}
	}
	opts := Options{
		Nodes: fs.Args(), Selector: v.selector, Concurrency: v.concurrency, Timeout: reqTimeout, MetricsTimeout: v.metricsTimeout, Save: v.save,
		Source: plegvet.Options{Kubernetes: v.sourceK8s, Dir: v.sourceDir, SkipIndex: !v.useIndex},
	}
	// A release fetched with the go command says so once it is slow, as
	// a whole line: the node progress owns a terminal's last line.
	opts.Source.Fetch.Progress = plegvet.FetchProgress(streams.ErrOut, false)
	if hooks != nil {
		opts.LoadSource, opts.JudgeRuntime = hooks.LoadSource, hooks.JudgeRuntime
	}
	if v.skipRuntime {
		opts.JudgeRuntime = func(context.Context, *nodeverdict.Runtime) {}
	}
	if f, ok := streams.ErrOut.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Progress = f
	}
	return run(ctx, client, opts, v.output, streams)
}

// parseSeconds reads a timeout given as a bare number of seconds, as
// kubectl takes it.
func parseSeconds(s string) (time.Duration, error) {
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || fmt.Sprint(n) != s || n < 0 {
		return 0, errors.New("not seconds")
	}
	return time.Duration(n) * time.Second, nil
}

// newClient is kubernetes.NewForConfig with an HTTP client that follows
// no redirect. client-go's own follows them, and sends the bearer token
// again to wherever they lead, another host or plain HTTP included; kubectl
// pleg calls every node's proxy, and one answer redirected anywhere in a
// fleet would carry the operator's credentials there. A redirect is an
// error naming both places.
func newClient(cfg *rest.Config) (*kubernetes.Clientset, error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		return fmt.Errorf("the API server redirected %s to %s; kubectl pleg follows no redirect (it would carry your credentials)", via[0].URL.Redacted(), req.URL.Redacted())
	}
	return kubernetes.NewForConfigAndClient(cfg, hc)
}
