package render

import (
	"strings"
	"testing"
	"text/template"

	"github.com/plegvet/plegvet/answer"
)

// An unhealthy rule quotes the kubelet's words as the tree has them, each
// with where it was read; what was not read, it says so and invents none.
func TestAlertWordsQuoteTheKubelet(t *testing.T) {
	pos := func(file string, line int) answer.Pos { return answer.Pos{File: file, Line: line} }
	threshold := &answer.Value{Value: "4m0s", Const: "relistLimit", Decl: &answer.Pos{File: "pkg/kubelet/kubelet.go", Line: 16}}
	late := &answer.HealthMessage{Format: "relist last ok %v ago, limit %v", Pos: pos("pkg/kubelet/pleg/generic.go", 50)}
	fork := &answer.Health{
		RuntimeErrors:  &answer.HealthMessage{Format: "check %s failed: %v", Pos: pos("pkg/kubelet/kubelet.go", 39)},
		SyncLoopSkip:   &answer.SyncLoopSkip{Func: "syncLoop", Message: "pods wait", Pos: pos("pkg/kubelet/kubelet.go", 48)},
		ReadyCondition: &answer.ReadyWiring{Func: "nodestatus.ReadyCondition", Pos: pos("pkg/kubelet/kubelet.go", 29)},
	}
	rule := func(check string, m *answer.HealthMessage) *answer.AlertRule {
		return &answer.AlertRule{Alert: "PLEGUnhealthy", Kind: answer.AlertUnhealthy, Mode: answer.ModeAlways, Signal: answer.SignalLastSeen, At: "4m0s", Threshold: threshold, Check: check, Message: m}
	}
	tests := []struct {
		name          string
		health        *answer.Health
		rule          *answer.AlertRule
		summary       string
		words, absent []string
	}{{
		name:    "a fork's words",
		health:  fork,
		rule:    rule("Relister", late),
		summary: "check Relister failed: relist last ok {{ $value | humanizeDuration }} ago, limit 4m0s",
		words: []string{`its "Relister" health check fails with "check Relister failed: relist last ok ... ago, limit 4m0s" (pkg/kubelet/pleg/generic.go:50, worded by pkg/kubelet/kubelet.go:39)`,
			`the sync loop logs "pods wait" and skips pod synchronization (pkg/kubelet/kubelet.go:48)`, "Ready condition turns False with that message (pkg/kubelet/kubelet.go:29)"},
		absent: []string{"could not be read", "pleg was last seen", "PLEG is not healthy", "Skipping pod synchronization"},
	}, {
		name:    "no health rule read",
		rule:    rule("", nil),
		summary: "PLEG unhealthy: no successful relist for {{ $value | humanizeDuration }}; the kubelet's threshold is 4m0s",
		words:   []string{"the kubelet's words, and what it then does, could not be read: the report read no health rule from the tree."},
		absent:  []string{"Relister", "sync loop logs"},
	}, {
		name:    "an unknown health rule",
		health:  &answer.Health{Unknown: "no registered PLEG health check matches a known rule"},
		rule:    rule("", nil),
		summary: "PLEG unhealthy: no successful relist for {{ $value | humanizeDuration }}; the kubelet's threshold is 4m0s",
		words: []string{"the kubelet's words could not be read: no registered PLEG health check matches a known rule.",
			"plegvet could not read where the sync loop skips pod synchronization or where the failed checks reach the node's Ready condition."},
	}, {
		name:    "a check with no message read",
		health:  fork,
		rule:    rule("Relister", nil),
		summary: "PLEG unhealthy: no successful relist for {{ $value | humanizeDuration }}; the kubelet's threshold is 4m0s",
		words:   []string{`its "Relister" health check fails; the kubelet's words could not be read`, "Ready condition turns False with its message"},
	}, {
		name:    "a format taking other arguments",
		health:  fork,
		rule:    rule("Relister", &answer.HealthMessage{Format: "late by %d of %v", Pos: late.Pos}),
		summary: "PLEG unhealthy: no successful relist for {{ $value | humanizeDuration }}; the kubelet's threshold is 4m0s",
		words:   []string{`its "Relister" health check fails with an error formatted "late by %d of %v" (pkg/kubelet/pleg/generic.go:50), whose arguments plegvet cannot fill.`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &answer.Alerts{Source: answer.Source{Dir: "."}, Health: tc.health}
			summary, description := alertWords(a, tc.rule)
			summary, description = annotation(summary), annotation(description)
			if summary != tc.summary {
				t.Errorf("summary %q, want %q", summary, tc.summary)
			}
			for _, w := range tc.words {
				if !strings.Contains(description, w) {
					t.Errorf("description lacks %q:\n%s", w, description)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(description, w) {
					t.Errorf("description has %q:\n%s", w, description)
				}
			}
		})
	}
}

// Text read from the tree that holds "{{" is printed as itself: the
// annotation parses as a Prometheus template (Go's text/template, with
// $labels and $value defined first, as Prometheus defines them) and
// expands to the tree's words.
func TestAnnotationEscapesTheTree(t *testing.T) {
	threshold := &answer.Value{Value: "4m0s", Const: "relist{{Limit}}", Decl: &answer.Pos{File: "pkg/kubelet/kubelet.go", Line: 16}}
	msg := &answer.HealthMessage{Format: "relist {{ .late }} by %v, limit %v", Pos: answer.Pos{File: "pkg/kubelet/pleg/generic.go", Line: 50}}
	h := &answer.Health{RuntimeErrors: &answer.HealthMessage{Format: "%s: {{ bad %v", Pos: answer.Pos{File: "pkg/kubelet/kubelet.go", Line: 39}}}
	r := &answer.AlertRule{Alert: "PLEGUnhealthy", Kind: answer.AlertUnhealthy, Mode: answer.ModeAlways, Signal: answer.SignalLastSeen, At: "4m0s", Threshold: threshold, Check: "PLEG", Message: msg}
	a := &answer.Alerts{Source: answer.Source{Dir: "."}, Health: h}
	got := alertRule(a, r)
	for key, text := range got.Annotations {
		tmpl, err := template.New(key).Funcs(template.FuncMap{"humanizeDuration": func(v any) string { return "3m 31s" }}).
			Parse("{{$labels := .Labels}}{{$value := .Value}}" + text)
		if err != nil {
			t.Fatalf("%s does not parse as a template: %v\n%s", key, err, text)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, map[string]any{"Labels": map[string]string{"instance": "node-a"}, "Value": 211.0}); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if key == "summary" && b.String() != "PLEG: {{ bad relist {{ .late }} by 3m 31s, limit 4m0s" {
			t.Errorf("summary expands to %q", b.String())
		}
		if key == "description" && (!strings.Contains(b.String(), "The kubelet on node-a ") || !strings.Contains(b.String(), "relist{{Limit}}")) {
			t.Errorf("description expands to %q", b.String())
		}
	}
}

// A dark /metrics on a Ready node is worded as what it is: a slow or hung
// runtime, the ladder's latencies named; on a NotReady node, the runtime
// down or hung; without a ladder, the words say it was not read.
func TestDarkWords(t *testing.T) {
	rungs := []answer.LadderRung{
		{Name: "metrics-dark", Latency: "2.5s", Seconds: 2.5, What: "a /metrics scrape passes its timeout"},
		{Name: "runtime-down", Latency: "25s", Seconds: 25, What: "Ready flaps to False"},
	}
	a := &answer.Alerts{Source: answer.Source{Dir: "k8s.io/kubernetes@v1.37.2", KubernetesVersion: "v1.37.2"}, Scrape: answer.DefaultScrapeLayout()}
	hang := &answer.HangSummary{DarkOnHang: true, CRIMethods: []string{"RuntimeService.ListPodSandbox"}}
	for _, tt := range []struct {
		rule          answer.AlertRule
		summary       string
		words, absent []string
	}{{
		rule:    answer.AlertRule{Alert: "KubeletMetricsDark", Kind: answer.AlertMetricsDark, At: "1m0s", Hang: hang, Rungs: rungs, Needs: []string{answer.NeedsUp, answer.NeedsAlive, answer.NeedsReady}},
		summary: "Kubelet /metrics dark: the kubelet answers /metrics/cadvisor, but its /metrics has not answered for 1m0s; the container runtime is slow or hung",
		words:   []string{"its node is Ready", "a slow runtime", "a hung one", "metrics-dark at 2.5s per call (a /metrics scrape passes its timeout); runtime-down at 25s per call", "no rule claims the PLEG stalled"},
		absent:  []string{"so the runtime does not answer its calls", "was not read"},
	}, {
		rule:    answer.AlertRule{Alert: "KubeletMetricsDark", Kind: answer.AlertMetricsDark, At: "1m0s", Hang: hang, Needs: []string{answer.NeedsUp, answer.NeedsAlive}},
		summary: "Kubelet /metrics dark: the kubelet answers /metrics/cadvisor, but its /metrics has not answered for 1m0s; the container runtime is slow or hung",
		words:   []string{"no kube-state-metrics job is named", "The latency ladder (health.ladder) was not read"},
	}, {
		rule:    answer.AlertRule{Alert: "KubeletRuntimeHung", Kind: answer.AlertRuntimeHung, At: "1m0s", Hang: hang, Rungs: rungs[1:]},
		summary: "Container runtime down or hung: the kubelet answers /metrics/cadvisor, its /metrics has not answered for 1m0s, and its node is NotReady",
		words:   []string{"Ready condition is False", "runtime-down at 25s per call"},
	}} {
		summary, description := alertWords(a, &tt.rule)
		if summary != tt.summary {
			t.Errorf("%s summary %q; want %q", tt.rule.Alert, summary, tt.summary)
		}
		for _, w := range tt.words {
			if !strings.Contains(description, w) {
				t.Errorf("%s: no %q in %s", tt.rule.Alert, w, description)
			}
		}
		for _, w := range tt.absent {
			if strings.Contains(description, w) {
				t.Errorf("%s: %q in %s", tt.rule.Alert, w, description)
			}
		}
	}
}
