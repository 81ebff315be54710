package plegvet_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

// healthRelease is what a release's health rule is, read by hand from its
// source (positions are file:line in the module).
type healthRelease struct {
	version string
	checks  []string // "name@registered rule method@decl" per check
	// threshold off/on/fallback of the PLEG check: "value=const@decl"
	off, on, fallback string
	capacity          string // the EventedPLEG check's, "" without one
	messages          []string
	records           []string // the checks' metric writes, "check@file:line"
	runtimeErrors     string
	runtimeDown       string
	skip, backoff     string
	ready             string
	list, compare     string
}

func valueText(v *answer.Value) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%s=%s@%s", v.Value, v.Const, posText(v.Decl))
}

// TestHealthOnReleases: each release's PLEG health rule as report -json
// gives it, against the releases' source: the values and positions below
// were read by hand, and each position must also hold the code it names.
func TestHealthOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	const (
		yet  = "pleg has yet to be successful"
		late = "pleg was last seen active %v ago; threshold is %v"
		full = "EventedPLEG: pleg event channel capacity is full with %v events"
	)
	tests := []healthRelease{{
		version:       "v1.25.16",
		checks:        []string{"PLEG@pkg/kubelet/kubelet.go:688 relist-elapsed GenericPLEG.Healthy@pkg/kubelet/pleg/generic.go:136"},
		off:           "3m0s=relistThreshold@pkg/kubelet/pleg/generic.go:83",
		on:            "null",
		fallback:      "null",
		messages:      []string{yet + "@pkg/kubelet/pleg/generic.go:139", late + "@pkg/kubelet/pleg/generic.go:145"},
		records:       []string{"PLEG@pkg/kubelet/pleg/generic.go:142"},
		runtimeErrors: "pkg/kubelet/runtime.go:101", runtimeDown: "pkg/kubelet/runtime.go:97 30s=maxWaitForContainerRuntime@pkg/kubelet/kubelet.go:125",
		skip: "pkg/kubelet/kubelet.go:2034", backoff: "pkg/kubelet/kubelet.go:2036", ready: "pkg/kubelet/kubelet_node_status.go:640 pkg/kubelet/nodestatus/setters.go:461",
		list: "g.runtime.GetPods(true)@pkg/kubelet/pleg/generic.go:203", compare: "generateEvents@pkg/kubelet/pleg/generic.go:151",
	}, {
		version: "v1.30.14",
		checks: []string{"PLEG@pkg/kubelet/kubelet.go:753 relist-elapsed GenericPLEG.Healthy@pkg/kubelet/pleg/generic.go:165",
			"EventedPLEG@pkg/kubelet/kubelet.go:755 event-channel-full EventedPLEG.Healthy@pkg/kubelet/pleg/evented.go:158 gate EventedPLEG@pkg/kubelet/kubelet.go:754"},
		off:           "3m0s=genericPlegRelistThreshold@pkg/kubelet/kubelet.go:182",
		on:            "10m0s=eventedPlegRelistThreshold@pkg/kubelet/kubelet.go:186",
		fallback:      "3m0s=genericPlegRelistThreshold@pkg/kubelet/kubelet.go:182",
		capacity:      "1000=plegChannelCapacity@pkg/kubelet/kubelet.go:171",
		messages:      []string{yet + "@pkg/kubelet/pleg/generic.go:168", late + "@pkg/kubelet/pleg/generic.go:174", full + "@pkg/kubelet/pleg/evented.go:167"},
		records:       []string{"PLEG@pkg/kubelet/pleg/generic.go:171", "EventedPLEG@pkg/kubelet/pleg/evented.go:171"},
		runtimeErrors: "pkg/kubelet/runtime.go:115", runtimeDown: "pkg/kubelet/runtime.go:111 30s=maxWaitForContainerRuntime@pkg/kubelet/kubelet.go:133",
		skip: "pkg/kubelet/kubelet.go:2380", backoff: "pkg/kubelet/kubelet.go:2382", ready: "pkg/kubelet/kubelet_node_status.go:753 pkg/kubelet/nodestatus/setters.go:504",
		list: "g.runtime.GetPods(ctx, true)@pkg/kubelet/pleg/generic.go:236", compare: "generateEvents@pkg/kubelet/pleg/generic.go:180",
	}, {
		version: "v1.36.5",
		checks: []string{"PLEG@pkg/kubelet/kubelet.go:889 relist-elapsed GenericPLEG.Healthy@pkg/kubelet/pleg/generic.go:238",
			"EventedPLEG@pkg/kubelet/kubelet.go:891 event-channel-full EventedPLEG.Healthy@pkg/kubelet/pleg/evented.go:166 gate EventedPLEG@pkg/kubelet/kubelet.go:890"},
		off:           "3m0s=genericPlegRelistThreshold@pkg/kubelet/kubelet.go:216",
		on:            "10m0s=eventedPlegRelistThreshold@pkg/kubelet/kubelet.go:220",
		fallback:      "3m0s=genericPlegRelistThreshold@pkg/kubelet/kubelet.go:216",
		capacity:      "1000=plegChannelCapacity@pkg/kubelet/kubelet.go:205",
		messages:      []string{yet + "@pkg/kubelet/pleg/generic.go:241", late + "@pkg/kubelet/pleg/generic.go:247", full + "@pkg/kubelet/pleg/evented.go:175"},
		records:       []string{"PLEG@pkg/kubelet/pleg/generic.go:244", "EventedPLEG@pkg/kubelet/pleg/evented.go:179"},
		runtimeErrors: "pkg/kubelet/runtime.go:133", runtimeDown: "pkg/kubelet/runtime.go:129 30s=maxWaitForContainerRuntime@pkg/kubelet/kubelet.go:153",
		skip: "pkg/kubelet/kubelet.go:2646", backoff: "pkg/kubelet/kubelet.go:2648", ready: "pkg/kubelet/kubelet_node_status.go:701 pkg/kubelet/nodestatus/setters.go:469",
		list: "g.runtime.GetPods(ctx, true)@pkg/kubelet/pleg/generic.go:310", compare: "generateEvents@pkg/kubelet/pleg/generic.go:253",
	}, {
		version:       "v1.37.2",
		checks:        []string{"PLEG@pkg/kubelet/kubelet.go:903 relist-elapsed GenericPLEG.Healthy@pkg/kubelet/pleg/generic.go:235"},
		off:           "3m0s=genericPlegRelistThreshold@pkg/kubelet/kubelet.go:216",
		on:            "3m0s=genericPlegRelistThreshold@pkg/kubelet/kubelet.go:216",
		fallback:      "null",
		messages:      []string{yet + "@pkg/kubelet/pleg/generic.go:238", late + "@pkg/kubelet/pleg/generic.go:244"},
		records:       []string{"PLEG@pkg/kubelet/pleg/generic.go:241"},
		runtimeErrors: "pkg/kubelet/runtime.go:133", runtimeDown: "pkg/kubelet/runtime.go:129 30s=maxWaitForContainerRuntime@pkg/kubelet/kubelet.go:153",
		skip: "pkg/kubelet/kubelet.go:2697", backoff: "pkg/kubelet/kubelet.go:2699", ready: "pkg/kubelet/kubelet_node_status.go:749 pkg/kubelet/nodestatus/setters.go:474",
		list: "g.runtime.GetPods(ctx, true)@pkg/kubelet/pleg/generic.go:306", compare: "generateEvents@pkg/kubelet/pleg/generic.go:250",
	}}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.Inspect(context.Background(), plegvet.Options{Kubernetes: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			h := rep.Health
			if h == nil {
				t.Fatal("no health")
			}
			dir := moduleDir(t, "k8s.io/kubernetes@"+tc.version)
			var checks, messages, records []string
			capacity := ""
			for _, c := range h.Checks {
				s := fmt.Sprintf("%s@%s %s %s@%s", c.Name, posText(&c.Registered), c.Rule, c.Method, posText(c.Decl))
				if c.Gate != nil {
					s += fmt.Sprintf(" gate %s@%s", c.Gate.Name, posText(&c.Gate.Test))
					lineHas(t, dir, &c.Gate.Test, "Enabled(features."+c.Gate.Name+")")
				}
				checks = append(checks, s)
				lineHas(t, dir, &c.Registered, fmt.Sprintf("addHealthCheck(%q", c.Name))
				lineHas(t, dir, c.Decl, "Healthy() (bool, error)")
				if th := c.Threshold; th != nil {
					if got := [3]string{valueText(th.GateOff), valueText(th.GateOn), valueText(th.Fallback)}; got != [3]string{tc.off, tc.on, tc.fallback} {
						t.Errorf("%s thresholds off/on/fallback %v; want %v", c.Name, got, [3]string{tc.off, tc.on, tc.fallback})
					}
					lineHas(t, dir, th.GateOff.Decl, th.GateOff.Const+" ")
				}
				if c.Capacity != nil {
					capacity = valueText(c.Capacity)
					lineHas(t, dir, c.Capacity.Decl, c.Capacity.Const+" ")
				}
				for _, m := range c.Messages {
					messages = append(messages, m.Format+"@"+posText(&m.Pos))
					lineHas(t, dir, &m.Pos, fmt.Sprintf("%q", m.Format))
				}
				for _, r := range c.Records {
					records = append(records, c.Name+"@"+posText(&r.Pos))
					lineHas(t, dir, &r.Pos, "metrics.PLEGLastSeen.Set(")
				}
			}
			if strings.Join(checks, "\n") != strings.Join(tc.checks, "\n") {
				t.Errorf("checks:\n%s\nwant:\n%s", strings.Join(checks, "\n"), strings.Join(tc.checks, "\n"))
			}
			if capacity != tc.capacity {
				t.Errorf("capacity %q, want %q", capacity, tc.capacity)
			}
			if strings.Join(messages, "\n") != strings.Join(tc.messages, "\n") {
				t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(messages, "\n"), strings.Join(tc.messages, "\n"))
			}
			if strings.Join(records, "\n") != strings.Join(tc.records, "\n") {
				t.Errorf("records:\n%s\nwant:\n%s", strings.Join(records, "\n"), strings.Join(tc.records, "\n"))
			}
			if m := h.RuntimeErrors; m == nil || m.Format != "%s is not healthy: %v" || posText(&m.Pos) != tc.runtimeErrors {
				t.Errorf("runtimeErrors %+v; want %q at %s", m, "%s is not healthy: %v", tc.runtimeErrors)
			} else {
				lineHas(t, dir, &m.Pos, `"%s is not healthy: %v"`)
			}
			if d := h.RuntimeDown; d == nil || d.Format != "container runtime is down" || posText(&d.Pos)+" "+valueText(d.Threshold) != tc.runtimeDown {
				t.Errorf("runtimeDown %+v; want container runtime is down at %s", d, tc.runtimeDown)
			} else {
				lineHas(t, dir, &d.Pos, `"container runtime is down"`)
				lineHas(t, dir, d.Threshold.Decl, "maxWaitForContainerRuntime")
			}
			if s := h.SyncLoopSkip; s == nil || s.Func != "syncLoop" || s.Message != "Skipping pod synchronization" || posText(&s.Pos) != tc.skip || posText(s.Backoff) != tc.backoff {
				t.Errorf("syncLoopSkip %+v; want syncLoop's Skipping pod synchronization at %s, backoff %s", s, tc.skip, tc.backoff)
			} else {
				lineHas(t, dir, &s.Pos, `"Skipping pod synchronization"`)
				lineHas(t, dir, s.Backoff, "time.Sleep(")
			}
			if w := h.ReadyCondition; w == nil || w.Func != "nodestatus.ReadyCondition" || posText(&w.Pos)+" "+posText(w.Decl) != tc.ready {
				t.Errorf("readyCondition %+v; want nodestatus.ReadyCondition at %s", w, tc.ready)
			} else {
				lineHas(t, dir, &w.Pos, "kl.runtimeState.runtimeErrors")
				lineHas(t, dir, w.Decl, "func ReadyCondition(")
			}
			r := h.Reconcile
			if r == nil || r.List == nil || r.Compare == nil {
				t.Fatalf("reconcile %+v; want the list call and the comparison", r)
			}
			if got := r.List.Expr + "@" + posText(&r.List.Pos); got != tc.list {
				t.Errorf("list call %s, want %s", got, tc.list)
			}
			lineHas(t, dir, &r.List.Pos, "GetPods(")
			if got := r.Compare.Func + "@" + posText(&r.Compare.Pos); got != tc.compare {
				t.Errorf("comparison %s, want %s", got, tc.compare)
			}
			lineHas(t, dir, &r.Compare.Pos, "newState == oldState")
			if !strings.Contains(rep.Summary, "level-triggered reconciliation") || !strings.Contains(rep.Summary, posText(&r.List.Pos)) || !strings.Contains(rep.Summary, posText(&r.Compare.Pos)) {
				t.Errorf("summary does not ground level-triggered reconciliation in the list call and the comparison:\n%s", rep.Summary)
			}
			if h.Consequence == "" {
				t.Error("no consequence")
			}
			t.Logf("%s: %s", tc.version, h.Consequence)
		})
	}
}
