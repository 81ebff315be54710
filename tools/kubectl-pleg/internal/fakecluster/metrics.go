package fakecluster

import (
	"fmt"
	"net"
	"strings"
	"time"
)

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// lastSeenLine is the last-seen gauge as Body writes it; the cluster
// serves it as of each request (servedLastSeen).
const lastSeenLine = "kubelet_pleg_last_seen_seconds 1.7700000012e+09\n"

// servedLastSeen is body with the PLEG last seen active stalled before
// now (a second when 0), as the kubelet's gauge reads at a scrape.
func servedLastSeen(body string, stalled time.Duration) string {
	if stalled == 0 {
		stalled = time.Second
	}
	return strings.Replace(body, lastSeenLine, fmt.Sprintf("kubelet_pleg_last_seen_seconds %d\n", time.Now().Add(-stalled).Unix()), 1)
}

// StalledBody is the metrics of a kubelet whose runtime stopped
// answering: its list calls time out (the runtime's 2m request timeout)
// and its status calls fail, and one relist took longer than the
// histogram's last bound. The cluster serves it with the node's Stalled.
func StalledBody(version string) string {
	off := false
	return Kubelet{Version: version, Gate: &off, Relists: 900, Interval: 1.02, Others: 30}.Body() + `# HELP kubelet_runtime_operations_total [ALPHA] Cumulative number of runtime operations by operation type.
# TYPE kubelet_runtime_operations_total counter
kubelet_runtime_operations_total{operation_type="list_containers"} 903
kubelet_runtime_operations_total{operation_type="list_podsandbox"} 905
kubelet_runtime_operations_total{operation_type="status"} 190
# HELP kubelet_runtime_operations_errors_total [ALPHA] Cumulative number of runtime operation errors by operation type.
# TYPE kubelet_runtime_operations_errors_total counter
kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} 2
kubelet_runtime_operations_errors_total{operation_type="status"} 12
# HELP kubelet_runtime_operations_duration_seconds [ALPHA] Duration in seconds of runtime operations. Broken down by operation type.
# TYPE kubelet_runtime_operations_duration_seconds histogram
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="0.005"} 900
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="119.20928955078125"} 903
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="+Inf"} 905
kubelet_runtime_operations_duration_seconds_sum{operation_type="list_podsandbox"} 242.9
kubelet_runtime_operations_duration_seconds_count{operation_type="list_podsandbox"} 905
`
}

// Kubelet is what a kubelet's /metrics says of its PLEG.
type Kubelet struct {
	Version string
	// Gate is kubernetes_feature_enabled{name="EventedPLEG"}: nil leaves
	// the family out (a kubelet before v1.26).
	Gate *bool
	// StreamOK and StreamErrors are the evented PLEG's connection
	// counters; Events the container events received over a stream.
	StreamOK, StreamErrors, Events int
	// Relists is how many relist intervals were observed, their mean
	// Interval seconds.
	Relists  int
	Interval float64
	// Others is how many families the verdict does not read to serve
	// around the PLEG's, as a kubelet serves hundreds.
	Others int
}

// Generic is the metrics of a kubelet of a version that runs the generic
// PLEG: no stream, a relist a second, and 300 other families.
func Generic(version string) string {
	off := false
	return Kubelet{Version: version, Gate: &off, Relists: 3600, Interval: 1.02, Others: 300}.Body()
}

// Body is the metrics in the Prometheus text format, with HELP and TYPE
// lines as the kubelet writes them.
func (k Kubelet) Body() string {
	var b strings.Builder
	others := func(from, to int) {
		for i := from; i < to; i++ {
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, "# HELP rest_client_like_%d_duration_seconds [ALPHA] Request latency in seconds, by verb and host.\n# TYPE rest_client_like_%d_duration_seconds histogram\n", i, i)
				for _, le := range []string{"0.005", "0.025", "0.1", "0.25", "0.5", "1", "2", "4", "8", "15", "30", "60", "+Inf"} {
					fmt.Fprintf(&b, "rest_client_like_%d_duration_seconds_bucket{host=\"10.96.0.1:443\",verb=\"GET\",le=%q} 812\n", i, le)
				}
				fmt.Fprintf(&b, "rest_client_like_%d_duration_seconds_sum{host=\"10.96.0.1:443\",verb=\"GET\"} 9.41\n", i)
				fmt.Fprintf(&b, "rest_client_like_%d_duration_seconds_count{host=\"10.96.0.1:443\",verb=\"GET\"} 812\n", i)
			case 1:
				fmt.Fprintf(&b, "# HELP kubelet_like_%d_total [ALPHA] Operations, by type.\n# TYPE kubelet_like_%d_total counter\n", i, i)
				for _, op := range []string{"create", "start", "stop", "remove"} {
					fmt.Fprintf(&b, "kubelet_like_%d_total{operation_type=%q} %d\n", i, op, 17+i)
				}
			default:
				fmt.Fprintf(&b, "# HELP go_like_%d_bytes Bytes, by kind.\n# TYPE go_like_%d_bytes gauge\ngo_like_%d_bytes 2.1495808e+07\n", i, i, i)
			}
		}
	}
	others(0, k.Others/2)
	if k.Version != "" {
		b.WriteString("# HELP kubernetes_build_info [ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.\n# TYPE kubernetes_build_info gauge\n")
		fmt.Fprintf(&b, "kubernetes_build_info{build_date=\"2026-01-08T10:11:12Z\",compiler=\"gc\",git_commit=\"0a1b2c3d\",git_tree_state=\"clean\",git_version=%q,go_version=\"go1.25.5\",major=\"1\",minor=\"36\",platform=\"linux/amd64\"} 1\n", k.Version)
	}
	if k.Gate != nil {
		b.WriteString("# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.\n# TYPE kubernetes_feature_enabled gauge\n")
		on := 0
		if *k.Gate {
			on = 1
		}
		fmt.Fprintf(&b, "kubernetes_feature_enabled{name=\"DisableCloudProviders\",stage=\"\"} 1\nkubernetes_feature_enabled{name=\"EventedPLEG\",stage=\"ALPHA\"} %d\nkubernetes_feature_enabled{name=\"KubeletTracing\",stage=\"\"} 1\n", on)
	}
	fmt.Fprintf(&b, "# HELP kubelet_evented_pleg_connection_error_count [ALPHA] The number of errors encountered during the establishment of streaming connection with the CRI runtime.\n# TYPE kubelet_evented_pleg_connection_error_count counter\nkubelet_evented_pleg_connection_error_count %d\n", k.StreamErrors)
	fmt.Fprintf(&b, "# HELP kubelet_evented_pleg_connection_success_count [ALPHA] The number of times a streaming client was obtained to receive CRI Events.\n# TYPE kubelet_evented_pleg_connection_success_count counter\nkubelet_evented_pleg_connection_success_count %d\n", k.StreamOK)
	if k.Events > 0 {
		fmt.Fprintf(&b, "# HELP kubelet_evented_pleg_connection_latency_seconds [ALPHA] The latency of streaming connection with the CRI runtime, measured in seconds.\n# TYPE kubelet_evented_pleg_connection_latency_seconds histogram\nkubelet_evented_pleg_connection_latency_seconds_bucket{le=\"0.005\"} %d\nkubelet_evented_pleg_connection_latency_seconds_bucket{le=\"+Inf\"} %d\nkubelet_evented_pleg_connection_latency_seconds_sum 0.04\nkubelet_evented_pleg_connection_latency_seconds_count %d\n", k.Events, k.Events, k.Events)
	}
	b.WriteString("# HELP kubelet_pleg_discard_events [ALPHA] The number of discard events in PLEG.\n# TYPE kubelet_pleg_discard_events counter\nkubelet_pleg_discard_events 0\n")
	b.WriteString("# HELP kubelet_pleg_last_seen_seconds [ALPHA] Timestamp in seconds when PLEG was last seen active.\n# TYPE kubelet_pleg_last_seen_seconds gauge\n" + lastSeenLine)
	b.WriteString("# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.\n# TYPE kubelet_pleg_relist_duration_seconds histogram\n")
	fmt.Fprintf(&b, "kubelet_pleg_relist_duration_seconds_bucket{le=\"0.05\"} %d\nkubelet_pleg_relist_duration_seconds_bucket{le=\"+Inf\"} %d\nkubelet_pleg_relist_duration_seconds_sum %g\nkubelet_pleg_relist_duration_seconds_count %d\n", k.Relists+1, k.Relists+1, 0.02*float64(k.Relists+1), k.Relists+1)
	b.WriteString("# HELP kubelet_pleg_relist_interval_seconds [ALPHA] Interval in seconds between relisting in PLEG.\n# TYPE kubelet_pleg_relist_interval_seconds histogram\n")
	fmt.Fprintf(&b, "kubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 0\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} %d\nkubelet_pleg_relist_interval_seconds_sum %g\nkubelet_pleg_relist_interval_seconds_count %d\n", k.Relists, k.Interval*float64(k.Relists), k.Relists)
	others(k.Others/2, k.Others)
	return b.String()
}
