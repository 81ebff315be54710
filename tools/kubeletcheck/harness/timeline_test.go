package harness

import (
	"testing"
	"time"
)

// The PLEG's part of the kubelet's runtime errors, as a v1.37.2 kubelet
// logged them in the scenario, alone and aggregated.
func TestPLEGMessage(t *testing.T) {
	for line, want := range map[string]string{
		`"Skipping pod synchronization" err="PLEG is not healthy: pleg has yet to be successful"`:                                                                "PLEG is not healthy: pleg has yet to be successful",
		`"Skipping pod synchronization" err="[container runtime is down, PLEG is not healthy: pleg was last seen active 3m3.040424315s ago; threshold is 3m0s]"`: "PLEG is not healthy: pleg was last seen active 3m3.040424315s ago; threshold is 3m0s",
		`"Skipping pod synchronization" err="container runtime is down"`:                                                                                         "",
	} {
		if got := PLEGMessage(line); got != want {
			t.Errorf("PLEGMessage(%s) = %q, want %q", line, got, want)
		}
	}
}

// A trimmed capture begins with when it was scraped, and keeps the
// verdict's families, the runtime operations of the relist, and of the
// feature gates EventedPLEG alone, each line as it was.
func TestTrimMetrics(t *testing.T) {
	in := `# HELP kubelet_pleg_last_seen_seconds [ALPHA] Timestamp in seconds when PLEG was last seen active.
# TYPE kubelet_pleg_last_seen_seconds gauge
kubelet_pleg_last_seen_seconds 1.796280621e+09
# HELP go_goroutines Number of goroutines that currently exist.
go_goroutines 300
kubernetes_feature_enabled{name="EventedPLEG",stage="ALPHA"} 0
kubernetes_feature_enabled{name="Other",stage="BETA"} 1
kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} 180
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_containers",le="0.005"} 90
kubelet_runtime_operations_duration_seconds_bucket{operation_type="image_status",le="0.005"} 3
kubelet_runtime_operations_duration_seconds_count{operation_type="status"} 60
kubelet_runtime_operations_duration_seconds_bucket{operation_type="status",le="0.005"} 60
`
	at := time.Date(2026, 12, 3, 6, 53, 22, 147000000, time.UTC)
	want := `# scraped at 2026-12-03T06:53:22.147Z
# HELP kubelet_pleg_last_seen_seconds [ALPHA] Timestamp in seconds when PLEG was last seen active.
# TYPE kubelet_pleg_last_seen_seconds gauge
kubelet_pleg_last_seen_seconds 1.796280621e+09
kubernetes_feature_enabled{name="EventedPLEG",stage="ALPHA"} 0
kubelet_runtime_operations_errors_total{operation_type="list_podsandbox"} 180
kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_containers",le="0.005"} 90
kubelet_runtime_operations_duration_seconds_count{operation_type="status"} 60
`
	if got := string(TrimMetrics([]byte(in), at)); got != want {
		t.Errorf("TrimMetrics:\n%s\nwant:\n%s", got, want)
	}
}
