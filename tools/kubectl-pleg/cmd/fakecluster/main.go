// Command fakecluster serves a cluster of N fake nodes over HTTPS, for the
// benchmark in bench/kubectl-pleg.sh: the node list, and each kubelet's
// configz and metrics (a kubelet-sized body) through nodes/proxy. It
// writes a kubeconfig for itself and serves until stopped.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

func main() {
	n := flag.Int("nodes", 100, "how many nodes to serve")
	kubeconfig := flag.String("kubeconfig", "kubeconfig", "where to write the kubeconfig")
	version := flag.String("kubelet-version", "v1.36.1", "the nodes' kubelet version; a comma-separated list gives node i the i-th modulo its length")
	others := flag.Int("families", 300, "metric families each kubelet serves besides the PLEG's")
	stalled := flag.Int("stalled", 0, "how many nodes (the first) have a PLEG stalled 4m ago, its runtime's list calls timing out, and Ready False saying so")
	hung := flag.Int("hung", 0, "how many nodes (after the stalled ones) have a runtime that hangs: configz answers, /metrics waits 3m (past kubectl pleg's --metrics-timeout), and Ready False says the runtime is down")
	flag.Parse()
	off := false
	versions := strings.Split(*version, ",")
	bodies := make([]string, len(versions))
	for i, v := range versions {
		bodies[i] = fakecluster.Kubelet{Version: v, Gate: &off, Relists: 3600, Interval: 1.02, Others: *others}.Body()
	}
	c := &fakecluster.Cluster{N: *n, NodeAt: func(i int) fakecluster.Node {
		v := i % len(versions)
		n := fakecluster.Node{Name: fmt.Sprintf("node-%05d", i), KubeletVersion: versions[v], RuntimeVersion: "containerd://2.0.4", Metrics: bodies[v]}
		if i < *stalled {
			n.Metrics, n.Stalled, n.Ready = fakecluster.StalledBody(versions[v]), 4*time.Minute, fakecluster.PLEGNotReady(4*time.Minute, 10*time.Second)
		} else if i < *stalled+*hung {
			n.MetricsDelay, n.Ready = 3*time.Minute, fakecluster.RuntimeDownNotReady(3*time.Minute+19*time.Second, 10*time.Second)
		}
		return n
	}}
	srv, err := fakecluster.Start(c, "127.0.0.1:0", *kubeconfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecluster:", err)
		os.Exit(1)
	}
	fmt.Printf("serving %d nodes at %s; metrics body %d bytes\n", *n, srv.URL, len(bodies[0]))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	srv.Close()
}
