// Which nodes a run reads: the nodes named, or every node the selector
// picks, listed a page at a time with what each needs of its Node object.

package fleet

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// pageSize is how many nodes one list request returns.
const pageSize = 500

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
