// Package fakecluster is an API server that serves nodes: the node list and
// gets, and the kubelet's configz and metrics through the nodes/proxy
// subresource, in the formats the API server and the kubelet use. The
// plugin's tests and its benchmark run against it.
package fakecluster

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Node is one node the cluster serves.
type Node struct {
	Name   string
	Labels map[string]string
	// KubeletVersion and RuntimeVersion are status.nodeInfo's
	// kubeletVersion and containerRuntimeVersion.
	KubeletVersion, RuntimeVersion string
	// Gate is the EventedPLEG value configz sets; nil leaves it unset.
	Gate *bool
	// Metrics is the kubelet's /metrics body; "" is Generic's.
	Metrics string
	// ProxyStatus, when not 0, is what the API server answers for the
	// node's proxy paths (503: the kubelet cannot be reached).
	ProxyStatus int
	// Delay is how long the node's kubelet takes to answer.
	Delay time.Duration
	// MetricsDelay is how long its /metrics alone takes to answer, on top
	// of Delay, while configz answers at once: a kubelet whose runtime
	// hangs, its metrics collectors waiting on the runtime's calls.
	MetricsDelay time.Duration
	// MetricsStatus, when not 0, is what the API server answers for the
	// node's /metrics alone, configz answering: 503 as a kubelet gone
	// between the two requests (connection refused), 504 as a gateway
	// that timed out.
	MetricsStatus int
	// RedirectTo, when set, answers the node's proxy paths with a 302 to
	// this URL plus the path: a redirect to another host, which must not
	// receive the user's credentials.
	RedirectTo string
	// Stalled is how long before each scrape the node's PLEG last
	// relisted: its metrics' kubelet_pleg_last_seen_seconds is served
	// as that long before the request (0: a second, a healthy relist).
	Stalled time.Duration
	// Ready is the node's Ready condition; nil is Ready True, with a
	// heartbeat 5s before the request.
	Ready *corev1.NodeCondition
	// RetryAfter, when not 0, answers the node's proxy paths with 429 Too
	// Many Requests and Retry-After: that many seconds, every time.
	RetryAfter int
	// MetricsFrom, when not nil, streams the /metrics body instead of
	// Metrics: a body too large to hold.
	MetricsFrom func() io.Reader
}

// Cluster serves its nodes. Nodes is read while serving; set it before.
type Cluster struct {
	Nodes []Node
	// Nodes returns node i of N, for a cluster too large to list in
	// memory; with N set, Nodes is ignored.
	N      int
	NodeAt func(i int) Node
	// ForbidProxy answers nodes/proxy with 403, as RBAC does for a user
	// without get on nodes/proxy.
	ForbidProxy bool
	// User is the user a 403 names.
	User string
	// Continue, when not nil, is the continue token of every list answer,
	// given how many lists were served before it: an API server whose
	// paging never ends. A token that is not a node's index starts the
	// next page from the first node again.
	Continue func(served int64) string

	lists, gets, configz, metrics atomic.Int64
}

// Counts are the requests served, by kind.
func (c *Cluster) Counts() (lists, gets, configz, metrics int64) {
	return c.lists.Load(), c.gets.Load(), c.configz.Load(), c.metrics.Load()
}

func (c *Cluster) size() int {
	if c.NodeAt != nil {
		return c.N
	}
	return len(c.Nodes)
}

func (c *Cluster) node(i int) Node {
	if c.NodeAt != nil {
		return c.NodeAt(i)
	}
	return c.Nodes[i]
}

func (c *Cluster) find(name string) (Node, bool) {
	if c.NodeAt != nil {
		// Synthetic names are node-NNNNN.
		if i, err := strconv.Atoi(strings.TrimPrefix(name, "node-")); err == nil && i >= 0 && i < c.N {
			if n := c.NodeAt(i); n.Name == name {
				return n, true
			}
		}
		return Node{}, false
	}
	for _, n := range c.Nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

func (c *Cluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		status(w, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "method not allowed", "", "")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/v1/nodes")
	switch {
	case !ok:
		status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", "", "")
	case rest == "":
		c.list(w, r)
	default:
		parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
		n, found := c.find(parts[0])
		switch {
		case !found:
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf("nodes %q not found", parts[0]), parts[0], "nodes")
		case len(parts) == 1:
			c.gets.Add(1)
			writeJSON(w, object(n))
		case len(parts) == 3 && parts[1] == "proxy":
			c.proxy(w, r, n, parts[2])
		default:
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource", "", "")
		}
	}
}

// list answers a NodeList, filtered by labelSelector, a page of limit at
// a time, as the API server does.
func (c *Cluster) list(w http.ResponseWriter, r *http.Request) {
	served := c.lists.Add(1) - 1
	q := r.URL.Query()
	sel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		status(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "unable to parse requirement: "+err.Error(), "", "")
		return
	}
	start, _ := strconv.Atoi(q.Get("continue"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	list := corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "4711"}, Items: []corev1.Node{}}
	i := start
	for ; i < c.size() && (limit <= 0 || len(list.Items) < limit); i++ {
		n := c.node(i)
		if sel.Matches(labels.Set(n.Labels)) {
			o := object(n)
			o.TypeMeta = metav1.TypeMeta{} // items carry no kind
			list.Items = append(list.Items, o)
		}
	}
	if i < c.size() {
		list.Continue = strconv.Itoa(i)
	}
	if c.Continue != nil {
		list.Continue = c.Continue(served)
	}
	writeJSON(w, list)
}

func (c *Cluster) proxy(w http.ResponseWriter, r *http.Request, n Node, path string) {
	if path == "metrics" {
		c.metrics.Add(1)
	} else {
		c.configz.Add(1)
	}
	if c.ForbidProxy {
		user := c.User
		if user == "" {
			user = "jane"
		}
		status(w, http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("nodes %q is forbidden: User %q cannot get resource \"nodes/proxy\" in API group \"\" at the cluster scope", n.Name, user), n.Name, "nodes")
		return
	}
	if n.Delay > 0 {
		select {
		case <-time.After(n.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if n.MetricsDelay > 0 && path == "metrics" {
		select {
		case <-time.After(n.MetricsDelay):
		case <-r.Context().Done():
			return
		}
	}
	if n.MetricsStatus != 0 && path == "metrics" {
		if n.MetricsStatus == http.StatusGatewayTimeout {
			status(w, n.MetricsStatus, metav1.StatusReasonTimeout, "Gateway Timeout", "", "")
			return
		}
		status(w, n.MetricsStatus, metav1.StatusReasonServiceUnavailable,
			"error trying to reach service: dial tcp 10.0.7.12:10250: connect: connection refused", "", "")
		return
	}
	if n.RedirectTo != "" {
		http.Redirect(w, r, n.RedirectTo+"/"+path, http.StatusFound)
		return
	}
	if n.RetryAfter != 0 {
		w.Header().Set("Retry-After", strconv.Itoa(n.RetryAfter))
		status(w, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "Too many requests, please try again later.", "", "")
		return
	}
	if n.ProxyStatus != 0 {
		status(w, n.ProxyStatus, metav1.StatusReasonServiceUnavailable,
			"error trying to reach service: dial tcp 10.0.7.12:10250: connect: connection refused", "", "")
		return
	}
	switch path {
	case "configz":
		writeJSON(w, Configz(n.Gate))
	case "metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if n.MetricsFrom != nil {
			_, _ = io.Copy(w, n.MetricsFrom())
			return
		}
		body := n.Metrics
		if body == "" {
			body = Generic(n.KubeletVersion)
		}
		body = servedLastSeen(body, n.Stalled)
		_, _ = w.Write([]byte(body))
	default:
		http.NotFound(w, r)
	}
}

// object is the node as the API server returns it.
func object(n Node) corev1.Node {
	return corev1.Node{
		TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, UID: types.UID(fmt.Sprintf("0c7f0c3e-5d1b-4c41-9b8e-%012x", len(n.Name))),
			ResourceVersion: "4711", Labels: n.Labels,
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 12, 9, 30, 0, 0, time.UTC)),
		},
		Spec: corev1.NodeSpec{PodCIDR: "10.244.3.0/24", PodCIDRs: []string{"10.244.3.0/24"}, ProviderID: "fake://" + n.Name},
		Status: corev1.NodeStatus{
			Capacity:        corev1.ResourceList{},
			Conditions:      []corev1.NodeCondition{ready(n)},
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.7.12"}, {Type: corev1.NodeHostName, Address: n.Name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: "5f0c2d3b8e", SystemUUID: "5f0c2d3b8e", BootID: "b1",
				KernelVersion: "6.8.0-1021-aws", OSImage: "Ubuntu 24.04.2 LTS",
				ContainerRuntimeVersion: n.RuntimeVersion, KubeletVersion: n.KubeletVersion,
				OperatingSystem: "linux", Architecture: "amd64",
			},
			Images: []corev1.ContainerImage{
				{Names: []string{"registry.k8s.io/pause@sha256:7031c1b283388d2c2e09b57badb803c05ebed362dc88d84b480cc47f72a21097", "registry.k8s.io/pause:3.10"}, SizeBytes: 320368},
			},
		},
	}
}

// ready is the node's Ready condition: its own, or Ready True with a
// heartbeat 5s ago.
func ready(n Node) corev1.NodeCondition {
	if n.Ready != nil {
		return *n.Ready
	}
	now := time.Now()
	return corev1.NodeCondition{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status",
		LastHeartbeatTime: metav1.NewTime(now.Add(-5 * time.Second)), LastTransitionTime: metav1.NewTime(time.Date(2026, 1, 12, 9, 31, 0, 0, time.UTC)),
	}
}

// PLEGNotReady is the Ready condition of a kubelet whose PLEG check
// failed, stalled before its last heartbeat, heartbeat before now: the
// message the kubelet of a 3m threshold posts, written here by hand.
func PLEGNotReady(stalled, heartbeat time.Duration) *corev1.NodeCondition {
	now := time.Now()
	return &corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
		Message:           fmt.Sprintf("PLEG is not healthy: pleg was last seen active %v ago; threshold is 3m0s", (stalled - heartbeat).Round(time.Second)),
		LastHeartbeatTime: metav1.NewTime(now.Add(-heartbeat)), LastTransitionTime: metav1.NewTime(now.Add(-stalled + 3*time.Minute))}
}

// RuntimeDownNotReady is the Ready condition of a kubelet whose runtime
// stopped answering stalled before now: its runtime-up check and its PLEG
// check both failed, as the kubelet of a 3m threshold posts them
// (runtimeErrors joined as an aggregate error), heartbeat before now.
func RuntimeDownNotReady(stalled, heartbeat time.Duration) *corev1.NodeCondition {
	now := time.Now()
	return &corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
		Message:           fmt.Sprintf("[container runtime is down, PLEG is not healthy: pleg was last seen active %v ago; threshold is 3m0s]", (stalled - heartbeat).Round(time.Second)),
		LastHeartbeatTime: metav1.NewTime(now.Add(-heartbeat)), LastTransitionTime: metav1.NewTime(now.Add(-stalled + 3*time.Minute))}
}

// Configz is the kubelet's /configz body: the KubeletConfiguration under
// "kubeletconfig", with the gate set when gate is not nil.
func Configz(gate *bool) map[string]any {
	gates := map[string]any{"KubeletTracing": true}
	if gate != nil {
		gates["EventedPLEG"] = *gate
	}
	return map[string]any{"kubeletconfig": map[string]any{
		"enableServer": true, "staticPodPath": "/etc/kubernetes/manifests", "syncFrequency": "1m0s",
		"authentication": map[string]any{"anonymous": map[string]any{"enabled": false}, "webhook": map[string]any{"enabled": true, "cacheTTL": "2m0s"}},
		"authorization":  map[string]any{"mode": "Webhook"},
		"clusterDomain":  "cluster.local", "clusterDNS": []string{"10.96.0.10"},
		"cgroupDriver": "systemd", "maxPods": 110, "podPidsLimit": -1,
		"containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock", "runtimeRequestTimeout": "2m0s",
		"featureGates": gates,
	}}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// status answers a failure as the API server does: a Status object.
func status(w http.ResponseWriter, code int, reason metav1.StatusReason, msg, name, kind string) {
	s := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code),
	}
	if name != "" || kind != "" {
		s.Details = &metav1.StatusDetails{Name: name, Kind: kind}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(s)
}

// Start serves the cluster over HTTPS on a local port and writes a
// kubeconfig for it at kubeconfig, with its CA and a bearer token: the
// client-go and cli-runtime code runs as it does against a real cluster.
func Start(c *Cluster, addr, kubeconfig string) (*httptest.Server, error) {
	srv := httptest.NewUnstartedServer(c)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // clients that hang up
	if addr != "" {
		l, err := netListen(addr)
		if err != nil {
			return nil, err
		}
		srv.Listener.Close()
		srv.Listener = l
	}
	srv.StartTLS()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := WriteKubeconfig(kubeconfig, srv.URL, ca); err != nil {
		srv.Close()
		return nil, err
	}
	return srv, nil
}

// WriteKubeconfig writes a kubeconfig with one context, "fake", for a
// server whose certificate ca signs.
func WriteKubeconfig(path, server string, ca []byte) error {
	cfg := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "fake",
		"clusters": []any{map[string]any{"name": "fake", "cluster": map[string]any{
			"server": server, "certificate-authority-data": ca,
		}}},
		"users":    []any{map[string]any{"name": "jane", "user": map[string]any{"token": "fake-token"}}},
		"contexts": []any{map[string]any{"name": "fake", "context": map[string]any{"cluster": "fake", "user": "jane"}}},
	}
	data, err := json.Marshal(cfg) // JSON is YAML
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
