package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Node is a kubelet registered to a control plane of the same release,
// on a runtime of its own, in the node's network namespace.
type Node struct {
	Control *ControlPlane
	Runtime *Runtime
	Kubelet *Kubelet
	Dir     string
	stops   []func()
}

// NodeSpec says what to start: the release's kubelet and kube-apiserver
// binaries, the runtime (debian or built), the kubelet's feature gates,
// and whether the static pod runs.
type NodeSpec struct {
	Release, KubeletBin, APIServerBin string
	Runtime                           string
	Gates                             map[string]bool
	WithPod                           bool
	// Profiling sets the kubelet's debugging and profiling handlers on
	// explicitly; CRIEndpoint gives the kubelet that endpoint instead of
	// the runtime's (a proxy in front of it).
	Profiling   bool
	CRIEndpoint string
	// MaxPods, when not 0, is the kubelet's maxPods (the default 110 is
	// fewer than an overload fault may start).
	MaxPods int
	// BeforeKubelet runs once the runtime serves, before the kubelet
	// starts (a proxy's start).
	BeforeKubelet func(ctx context.Context, rt *Runtime) error
}

// StartNode starts the node's network, etcd and the API server, the
// runtime with the pause image, and the kubelet, and waits until the
// kubelet serves and its Node object exists. On error what was started
// is stopped; otherwise the caller calls Stop.
func (p *Parts) StartNode(ctx context.Context, spec NodeSpec) (n *Node, err error) {
	n = &Node{}
	defer func() {
		if err != nil {
			n.Stop()
			n = nil
		}
	}()
	if n.Dir, err = os.MkdirTemp("", "kc-"); err != nil {
		return nil, err
	}
	n.stops = append(n.stops, func() { os.RemoveAll(n.Dir) })
	removeNetwork, err := CreateNodeNetwork(ctx)
	if err != nil {
		return nil, err
	}
	n.stops = append(n.stops, removeNetwork)
	if n.Control, err = StartControlPlane(ctx, spec.APIServerBin, filepath.Join(n.Dir, "cp")); err != nil {
		return nil, err
	}
	n.stops = append(n.stops, n.Control.Stop)
	nodeConf, err := n.Control.Kubeconfig("node", NodeToken)
	if err != nil {
		return nil, err
	}
	rt, rdir, err := p.NewRuntimeNamed(ctx, spec.Runtime)
	if err != nil {
		return nil, err
	}
	n.Runtime = rt
	n.stops = append(n.stops, func() {
		rt.Stop()
		os.RemoveAll(rdir)
	})
	if err := rt.WriteNetworkConfig(); err != nil {
		return nil, err
	}
	if err := rt.Start(ctx); err != nil {
		return nil, err
	}
	if err := rt.ImportImage(ctx, p.Image); err != nil {
		return nil, err
	}
	if spec.BeforeKubelet != nil {
		if err := spec.BeforeKubelet(ctx, rt); err != nil {
			return nil, err
		}
	}
	n.Kubelet = &Kubelet{Version: spec.Release, Bin: spec.KubeletBin, Dir: filepath.Join(rdir, "kubelet"), Gates: spec.Gates, Kubeconfig: nodeConf,
		Profiling: spec.Profiling, CRIEndpoint: spec.CRIEndpoint, MaxPods: spec.MaxPods}
	if n.Kubelet.Gates == nil {
		n.Kubelet.Gates = map[string]bool{}
	}
	if err := waitPortFree(KubeletPort, 30*time.Second); err != nil {
		return nil, err
	}
	if err := n.Kubelet.Start(ctx, rt, spec.WithPod); err != nil {
		return nil, err
	}
	n.stops = append(n.stops, func() { n.Kubelet.Stop() })
	if _, err := n.Kubelet.WaitServing(ctx, 90*time.Second); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, err := n.Ready(ctx)
		if err == nil {
			return n, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the node did not register within 90s: %v", err)
		}
		time.Sleep(time.Second)
	}
}

// Stop stops what StartNode started, the last first.
func (n *Node) Stop() {
	for i := len(n.stops) - 1; i >= 0; i-- {
		n.stops[i]()
	}
	n.stops = nil
}

// Condition is a node condition as the API server holds it, with when it
// was read.
type Condition struct {
	At      time.Time `json:"at"`
	Status  string    `json:"status"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	// Heartbeat and Transition are the condition's lastHeartbeatTime
	// and lastTransitionTime, as the kubelet wrote them.
	Heartbeat  time.Time `json:"lastHeartbeatTime"`
	Transition time.Time `json:"lastTransitionTime"`
}

// Ready reads the node's Ready condition through the API server, as its
// admin.
func (n *Node) Ready(ctx context.Context) (Condition, error) {
	c, _, err := n.ReadyObject(ctx)
	return c, err
}

// ReadyObject is Ready with the Node object as the API server gave it.
func (n *Node) ReadyObject(ctx context.Context) (Condition, []byte, error) {
	at := time.Now()
	code, body, err := n.Control.Do(ctx, AdminToken, http.MethodGet, "/api/v1/nodes/"+NodeName, nil)
	if err != nil {
		return Condition{}, nil, err
	}
	if code != http.StatusOK {
		return Condition{}, nil, fmt.Errorf("GET node %s: %d %s", NodeName, code, LastLines(body, 3))
	}
	c, err := readyOf(body, at)
	return c, body, err
}

// readyOf reads the Ready condition of a Node object read at at.
func readyOf(body []byte, at time.Time) (Condition, error) {
	var node struct {
		Status struct {
			Conditions []struct {
				Type               string    `json:"type"`
				Status             string    `json:"status"`
				Reason             string    `json:"reason"`
				Message            string    `json:"message"`
				LastHeartbeatTime  time.Time `json:"lastHeartbeatTime"`
				LastTransitionTime time.Time `json:"lastTransitionTime"`
			} `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(body, &node); err != nil {
		return Condition{}, fmt.Errorf("GET node %s: %w", NodeName, err)
	}
	for _, c := range node.Status.Conditions {
		if c.Type == "Ready" {
			return Condition{At: at, Status: c.Status, Reason: c.Reason, Message: c.Message, Heartbeat: c.LastHeartbeatTime, Transition: c.LastTransitionTime}, nil
		}
	}
	return Condition{}, fmt.Errorf("node %s has no Ready condition yet", NodeName)
}
