package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// KubeStateMetricsVersion is the kube-state-metrics built from its
// module: it shows the Node's conditions as kube_node_status_condition,
// which the alerts read while the kubelet's /metrics is dark.
const KubeStateMetricsVersion = "v2.20.0"

// Ports of kube-state-metrics, on loopback beside Prometheus.
const (
	KubeStateMetricsPort          = 18080
	KubeStateMetricsTelemetryPort = 18081
)

// KubeStateMetrics builds kube-state-metrics at KubeStateMetricsVersion.
func (b *Builder) KubeStateMetrics(ctx context.Context) (string, error) {
	return b.Module(ctx, "k8s.io/kube-state-metrics/v2", KubeStateMetricsVersion, ".", "kube-state-metrics", []string{"CGO_ENABLED=0"})
}

// KSM is a running kube-state-metrics.
type KSM struct {
	proc *Process
}

// StartKubeStateMetrics runs bin against the control plane's API server
// (a kubeconfig with the admin's token), exposing the nodes and pods
// only, and waits until its metrics show the node's Ready condition.
func StartKubeStateMetrics(ctx context.Context, bin string, cp *ControlPlane, dir string) (*KSM, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	kubeconfig, err := cp.Kubeconfig("kube-state-metrics", AdminToken)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--resources", "nodes,pods",
		"--host", "127.0.0.1", "--port", fmt.Sprint(KubeStateMetricsPort),
		"--telemetry-host", "127.0.0.1", "--telemetry-port", fmt.Sprint(KubeStateMetricsTelemetryPort))
	p, err := Start("kube-state-metrics", cmd, filepath.Join(dir, "kube-state-metrics.log"))
	if err != nil {
		return nil, err
	}
	k := &KSM{proc: p}
	deadline := time.Now().Add(60 * time.Second)
	for {
		body, err := k.get(ctx)
		if err == nil && readyShown(body) {
			return k, nil
		}
		if done, werr := p.Exited(); done {
			return nil, fmt.Errorf("kube-state-metrics exited: %v\n%s", werr, p.Tail(20))
		}
		if time.Now().After(deadline) {
			k.Stop()
			return nil, fmt.Errorf("kube-state-metrics showed no Ready condition of %s within 60s: %v\n%s", NodeName, err, p.Tail(10))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// readyShown says whether a kube-state-metrics answer has the node's
// Ready condition.
func readyShown(body string) bool {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "kube_node_status_condition{") && strings.Contains(l, `node="`+NodeName+`"`) && strings.Contains(l, `condition="Ready"`) {
			return true
		}
	}
	return false
}

// Addr is where Prometheus scrapes it.
func (k *KSM) Addr() string { return fmt.Sprintf("127.0.0.1:%d", KubeStateMetricsPort) }

func (k *KSM) get(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+k.Addr()+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return string(body), err
}

// Stop stops it.
func (k *KSM) Stop() {
	if k.proc != nil {
		k.proc.Stop()
		k.proc = nil
	}
}
