// Package kubeletcheck checks plegvet's node verdict against real
// kubelets: its tests build a kubelet from a release's source, run it on
// this machine against a real containerd (Debian's 1.6, which cannot
// stream container events, and a 2.x built from its module, which can),
// scrape /configz and /metrics every half second from the moment the
// kubelet serves, and require plegvet's verdict on every scrape to be the
// state the kubelet's own log shows at that moment. TestPLEGUnhealthy
// registers a kubelet to a real API server, stops its runtime for longer
// than the PLEG's threshold under a real Prometheus loaded with the rules
// `plegvet alerts` writes, and requires the node's Ready condition, the
// kubelet's own "PLEG is not healthy" and the alerts to come in order,
// and to clear once the runtime is back.
//
// It is a module of its own so that plegvet depends on none of it. Run it
// as root: (cd tools/kubeletcheck && go test ./...). PLEGVET_KUBELETCHECK_RELEASES
// names the releases (default v1.37.2); the harness package says what it
// starts and how it stops it. Not root, or no cgroups: skipped, with the
// reason (failed, under CI=true).
package kubeletcheck
