package nodeverdict

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestReadMetricsFiles(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string // the Metrics as JSON
	}{
		{"generic.txt", `{"kubeletVersion":"v1.36.1","streamSuccesses":0,"streamErrors":0,"eventLatency":{"count":0,"sum":0,"mean":null},` +
			`"discardEvents":0,"relistInterval":{"count":3599,"sum":3635,"mean":1.010002778549597},"relistDuration":{"count":3600,"sum":36,"mean":0.01},"lastSeen":1766995200,"featureEnabled":null}`},
		{"evented.txt", `{"kubeletVersion":"v1.36.1-eks-1a2b3c4","streamSuccesses":2,"streamErrors":1,"eventLatency":{"count":42,"sum":0.21,"mean":0.005},` +
			`"discardEvents":0,"relistInterval":{"count":12,"sum":3310,"mean":275.8333333333333},"relistDuration":{"count":13,"sum":0.26,"mean":0.02},"lastSeen":1766995200,` +
			`"featureEnabled":{"EventedPLEG":{"enabled":true,"stage":"ALPHA"},"PodLevelResources":{"enabled":true,"stage":"BETA"}}}`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			name := filepath.Join("testdata", "metrics", tc.file)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ReadMetrics(name, data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// interval is a relist-interval histogram, so that a sample reads as the
// kubelet's metrics.
const interval = `# TYPE kubelet_pleg_relist_interval_seconds histogram
kubelet_pleg_relist_interval_seconds_bucket{le="+Inf"} 4
kubelet_pleg_relist_interval_seconds_sum 8
kubelet_pleg_relist_interval_seconds_count 4
`

func TestReadMetrics(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		check      func(*Metrics) bool
	}{
		{"only a relist interval", interval, func(m *Metrics) bool {
			return m.RelistInterval.Count == 4 && *m.RelistInterval.Mean == 2 && m.StreamSuccesses == nil && m.KubeletVersion == ""
		}},
		{"a v1.26 kubelet, without stream counters", "# TYPE kubelet_pleg_last_seen_seconds gauge\nkubelet_pleg_last_seen_seconds 1.7e9\n", func(m *Metrics) bool {
			return *m.LastSeen == 1.7e9 && m.StreamSuccesses == nil && m.StreamErrors == nil && m.EventLatency == nil && m.RelistInterval == nil
		}},
		{"OpenMetrics-style _total counters", interval + "# TYPE kubelet_evented_pleg_connection_success_count_total counter\nkubelet_evented_pleg_connection_success_count_total 3\n", func(m *Metrics) bool {
			return m.StreamSuccesses != nil && *m.StreamSuccesses == 3
		}},
		{"counters without TYPE lines", interval + "kubelet_evented_pleg_connection_error_count 5\nkubelet_pleg_discard_events 2\n", func(m *Metrics) bool {
			return *m.StreamErrors == 5 && *m.DiscardEvents == 2
		}},
		{"series summed", interval + "kubelet_pleg_discard_events{shard=\"a\"} 2\nkubelet_pleg_discard_events{shard=\"b\"} 3\n", func(m *Metrics) bool {
			return *m.DiscardEvents == 5
		}},
		{"build info twice, same version", interval + "kubernetes_build_info{git_version=\"v1.36.1\",platform=\"a\"} 1\nkubernetes_build_info{git_version=\"v1.36.1\",platform=\"b\"} 1\n", func(m *Metrics) bool {
			return m.KubeletVersion == "v1.36.1"
		}},
		{"build info without git_version", interval + "kubernetes_build_info{major=\"1\"} 1\n", func(m *Metrics) bool {
			return m.KubeletVersion == ""
		}},
		{"the gates' own word", interval + "# TYPE kubernetes_feature_enabled gauge\nkubernetes_feature_enabled{name=\"EventedPLEG\",stage=\"ALPHA\"} 0\nkubernetes_feature_enabled{name=\"KubeletTracing\",stage=\"\"} 1\n", func(m *Metrics) bool {
			return m.FeatureEnabled["EventedPLEG"] == FeatureState{Enabled: false, Stage: "ALPHA"} && m.FeatureEnabled["KubeletTracing"].Enabled && len(m.FeatureEnabled) == 2
		}},
		{"no gate gauge", interval, func(m *Metrics) bool { return m.FeatureEnabled == nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetrics("m.txt", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(m) {
				got, _ := json.Marshal(m)
				t.Errorf("unexpected metrics: %s", got)
			}
		})
	}
}

func TestReadMetricsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", `^m.txt: no kubelet_pleg_\* metric among 0 metric families; want the kubelet's Prometheus text metrics, the output of kubectl get --raw /api/v1/nodes/NODE/proxy/metrics \(not /metrics/cadvisor or /metrics/resource\)$`},
		{"cadvisor's metrics", "# TYPE container_cpu_usage_seconds_total counter\ncontainer_cpu_usage_seconds_total{id=\"/\"} 12.5\n", `^m.txt: no kubelet_pleg_\* metric among 1 metric families`},
		{"JSON", `{"kubeletconfig": {}}`, `^m.txt:1: not Prometheus text format: .*; want the kubelet's Prometheus text metrics`},
		{"HTML", "<html><body>Unauthorized</body></html>\n", `^m.txt:1: not Prometheus text format: `},
		{"cut in a label", interval + "kubernetes_build_info{git_version=\"v1.3", `^m.txt:5: not Prometheus text format: .*`},
		{"cut before a value", interval + "kubelet_pleg_discard_events", `^m.txt:5: not Prometheus text format: unexpected end of input stream \(cut short\?\); want`},
		{"cut after a value", interval + "kubelet_pleg_discard_events 7", `^m.txt:5: not Prometheus text format: unexpected end of input stream \(cut short\?\); want`},
		{"a word for a value", interval + "kubelet_pleg_discard_events many\n", `^m.txt:5: not Prometheus text format: expected float as value, got "many"`},
		{"a NaN count", interval + "kubelet_pleg_discard_events NaN\n", `^m.txt: kubelet_pleg_discard_events is NaN; want a count, a number ≥ 0$`},
		{"a negative count", interval + "kubelet_evented_pleg_connection_error_count -1\n", `^m.txt: kubelet_evented_pleg_connection_error_count is -1; want a count`},
		{"an infinite sum", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_sum +Inf\nkubelet_pleg_relist_interval_seconds_count 1\n", `^m.txt: kubelet_pleg_relist_interval_seconds_sum is \+Inf; want seconds`},
		{"a counter for a histogram", "# TYPE kubelet_pleg_relist_interval_seconds counter\nkubelet_pleg_relist_interval_seconds 3\n", `^m.txt: kubelet_pleg_relist_interval_seconds is a counter; want a histogram`},
		{"a histogram for a counter", interval + "# TYPE kubelet_pleg_discard_events histogram\nkubelet_pleg_discard_events_sum 1\nkubelet_pleg_discard_events_count 1\n", `^m.txt: kubelet_pleg_discard_events is a histogram; want a counter$`},
		{"a time before 1970", "kubelet_pleg_last_seen_seconds -5\n", `^m.txt: kubelet_pleg_last_seen_seconds is -5 \(1969-12-31T23:59:55Z\); want 0 \(never\) or a Unix time in seconds a kubelet can have seen, from 2014-06-01T00:00:00Z to the year 9999$`},
		{"two kubelets", interval + "kubernetes_build_info{git_version=\"v1.36.1\"} 1\nkubernetes_build_info{git_version=\"v1.35.0\"} 1\n", `^m.txt: kubernetes_build_info has git_version "v1.35.0" and "v1.36.1"; want one kubelet's metrics$`},
		{"a gate neither on nor off", interval + "kubernetes_feature_enabled{name=\"EventedPLEG\",stage=\"ALPHA\"} 0.5\n", `^m.txt: kubernetes_feature_enabled\{name="EventedPLEG"\} is 0.5; want 0 or 1$`},
		{"a gate both on and off", interval + "kubernetes_feature_enabled{name=\"EventedPLEG\",stage=\"ALPHA\"} 0\nkubernetes_feature_enabled{name=\"EventedPLEG\",stage=\"BETA\"} 1\n", `^m.txt: kubernetes_feature_enabled\{name="EventedPLEG"\} is both 0 and 1; want one kubelet's metrics$`},
		{"a gate without a name", interval + "kubernetes_feature_enabled{stage=\"ALPHA\"} 1\n", `^m.txt: kubernetes_feature_enabled has a sample without a name label$`},
		{"a count beyond 2^53", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_sum 1\nkubelet_pleg_relist_interval_seconds_count 1e17\n", `^m.txt: kubelet_pleg_relist_interval_seconds_count is 100000000000000000; want a count below 2\^53$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetrics("m.txt", []byte(tc.data))
			if err == nil {
				got, _ := json.Marshal(m)
				t.Fatalf("no error; read %s", got)
			}
			checkErrorLine(t, err, tc.want)
		})
	}
}
