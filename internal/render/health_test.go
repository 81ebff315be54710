package render

import (
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

func evidence() *answer.Reconcile {
	return &answer.Reconcile{
		List:    &answer.CodeStep{Func: "Sweep", Expr: "g.runtime.Pods(true)", Pos: answer.Pos{File: "pkg/kubelet/pleg/pleg.go", Line: 57}},
		Compare: &answer.CodeStep{Func: "compare", Expr: "then == now", Pos: answer.Pos{File: "pkg/kubelet/pleg/pleg.go", Line: 71}},
	}
}

// Every design's closing paragraph grounds the relist as level-triggered
// reconciliation in the list call and the comparison read, at the period
// in force where the design's events come from.
func TestSummaryLevelTriggered(t *testing.T) {
	five := int64(5)
	gate := &answer.RelistGate{Name: "EventedPLEG"}
	health := &answer.Health{Reconcile: evidence()}
	grounded := "Each relist lists every pod and container from the runtime (g.runtime.Pods(true) in Sweep, pkg/kubelet/pleg/pleg.go:57) and compares each container's state with the previous relist's (then == now in compare, pkg/kubelet/pleg/pleg.go:71), generating events from the difference; that is level-triggered reconciliation: "
	tests := []struct {
		name    string
		relist  *answer.Relist
		evented *answer.EventedPLEG
		want    string
	}{{
		name:   "no evented PLEG",
		relist: &answer.Relist{GateOff: &answer.Mode{Period: val("2s")}},
		want:   grounded + "a change no event announced (a runtime restart, a dropped connection) is found at the next relist, at the period in force (2s).",
	}, {
		name: "an event source with relist as safety net",
		relist: &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")},
			GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("4m0s")}, Evented: &answer.Pos{}, Fallback: val("1s"), MaxStreamRetries: &answer.RetryCount{Value: &five}}},
		evented: &answer.EventedPLEG{Role: "event-source"},
		want:    grounded + "a change the event stream never delivered (a runtime restart, a dropped connection) is found at the next relist, at the period in force (4m0s).",
	}, {
		name:    "a relist trigger",
		relist:  &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("2s")}, GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("2s")}, Evented: &answer.Pos{}}},
		evented: &answer.EventedPLEG{Role: "relist-trigger", RequestsRelist: &answer.RelistRequest{EventTypes: []string{"CONTAINER_STOPPED_EVENT"}}},
		want:    grounded + "a change the event stream never delivered (a runtime restart, a dropped connection) is found at the next relist, at the period in force (2s).",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summary(&answer.Report{Relist: tc.relist, EventedPLEG: tc.evented, Health: health})
			if !strings.HasSuffix(got, tc.want) {
				t.Errorf("summary does not end with the level-triggered sentence:\n got: %s\nwant: ...%s", got, tc.want)
			}
		})
	}
}

func threshold(off, on, fallback string) *answer.HealthThreshold {
	t := &answer.HealthThreshold{GateOff: val(off)}
	if on != "" {
		t.GateOn = val(on)
	}
	if fallback != "" {
		t.Fallback = val(fallback)
	}
	return t
}

// The consequence is worded from the thresholds read, in each mode.
func TestHealthConsequence(t *testing.T) {
	six := int64(6)
	gated := func(on answer.Mode) *answer.Relist {
		return &answer.Relist{Gate: &answer.RelistGate{Name: "EventedPLEG"}, GateOff: &answer.Mode{}, GateOn: &answer.GateOnMode{Mode: on, MaxStreamRetries: &answer.RetryCount{Value: &six}}}
	}
	gatedDefault := func(def bool) *answer.Relist {
		r := gated(answer.Mode{})
		r.Gate.Default = &def
		return r
	}
	down := &answer.RuntimeDown{HealthMessage: answer.HealthMessage{Format: "runtime unreachable"}, Threshold: val("20s")}
	tests := []struct {
		name   string
		relist *answer.Relist
		health *answer.Health
		want   string
	}{{
		name:   "slower with the gate on, restored by the fallback",
		relist: gated(answer.Mode{}),
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Threshold: threshold("2m0s", "8m0s", "2m0s")}}, RuntimeDown: down},
		want:   `With EventedPLEG off, a PLEG whose relist stops succeeding turns this node NotReady after 2m0s; with EventedPLEG on, after 8m0s, until the stream fails 6 times and the fallback restores 2m0s; a runtime that fails its status check does so sooner, after 20s ("runtime unreachable").`,
	}, {
		// A reader of a default node reads its threshold first.
		name:   "off by default: the default node first, then the gate on",
		relist: gatedDefault(false),
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Threshold: threshold("3m0s", "10m0s", "3m0s")}}},
		want:   "On a node that does not set EventedPLEG (off by default), a PLEG whose relist stops succeeding turns the node NotReady after 3m0s; with EventedPLEG set to true, after 10m0s, until the stream fails 6 times and the fallback restores 3m0s.",
	}, {
		name:   "on by default: the default node first, then the gate off",
		relist: gatedDefault(true),
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Threshold: threshold("3m0s", "10m0s", "")}}},
		want:   "On a node that does not set EventedPLEG (on by default), a PLEG whose relist stops succeeding turns the node NotReady after 10m0s, and nothing restores 3m0s; with EventedPLEG set to false, after 3m0s.",
	}, {
		name:   "slower with the gate on, never restored",
		relist: gated(answer.Mode{}),
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Threshold: threshold("2m0s", "8m0s", "")}}},
		want:   "With EventedPLEG off, a PLEG whose relist stops succeeding turns this node NotReady after 2m0s; with EventedPLEG on, after 8m0s, and nothing restores 2m0s.",
	}, {
		name:   "the same in both modes",
		relist: gated(answer.Mode{}),
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Threshold: threshold("5m0s", "5m0s", "")}}},
		want:   "A PLEG whose relist stops succeeding turns this node NotReady after 5m0s, whether or not EventedPLEG is on.",
	}, {
		name:   "no gate",
		relist: &answer.Relist{GateOff: &answer.Mode{}},
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Threshold: threshold("4m0s", "", "")}}, RuntimeDown: down},
		want:   `A PLEG whose relist stops succeeding turns this node NotReady after 4m0s; a runtime that fails its status check does so sooner, after 20s ("runtime unreachable").`,
	}, {
		name:   "no relist-elapsed check",
		relist: &answer.Relist{GateOff: &answer.Mode{}},
		health: &answer.Health{Checks: []answer.HealthRule{{Name: "PLEG", Rule: "unknown"}}},
		want:   "plegvet found no health check comparing the time since the last relist with a threshold, so it cannot say when this node turns NotReady for its PLEG.",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := HealthConsequence(&answer.Report{Relist: tc.relist, Health: tc.health}); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// The kubelet's message is its runtimeErrors format around the check's.
func TestKubeletMessage(t *testing.T) {
	outer := &answer.HealthMessage{Format: "%s is not healthy: %v"}
	inner := &answer.HealthMessage{Format: "pleg was last seen active %v ago; threshold is %v"}
	got := KubeletMessage(outer, "PLEG", inner, "3m2s", "3m0s")
	if want := "PLEG is not healthy: pleg was last seen active 3m2s ago; threshold is 3m0s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Two checks writing the same metric on each poll are said, each with
// its value; one writer is not.
func TestSharedRecord(t *testing.T) {
	rec := func(expr string, line int) []answer.CodeStep {
		return []answer.CodeStep{{Expr: expr, Pos: answer.Pos{File: "pleg.go", Line: line}}}
	}
	one := []answer.HealthRule{{Name: "PLEG", Records: rec("metrics.LastSeen.Set(float64(g.done.Unix()))", 83)}}
	if got := sharedRecord(&answer.Health{Checks: one}); got != "" {
		t.Errorf("one writer: %q, want nothing", got)
	}
	two := append(one, answer.HealthRule{Name: "EventedPLEG", Records: rec("metrics.LastSeen.Set(float64(time.Now().Unix()))", 125)})
	want := `checks "PLEG" and "EventedPLEG" both call metrics.LastSeen.Set on each poll, each with its own value: metrics.LastSeen.Set(float64(g.done.Unix())) (pleg.go:83) and metrics.LastSeen.Set(float64(time.Now().Unix())) (pleg.go:125)`
	if got := sharedRecord(&answer.Health{Checks: two}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
