// One node decided: its captures read and saved, the source of its
// kubelet's release (and its runtime's) read once for the fleet, and
// plegvet's node verdict beside the node's Ready condition.

package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
)

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
