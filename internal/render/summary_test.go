package render

import (
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

func val(v string) *answer.Value { return &answer.Value{Value: v} }

// The closing paragraph is worded from the facts: each case below must
// say what its tree does, and not what another tree does.
func TestSummarize(t *testing.T) {
	five := int64(5)
	ratio := func(f float64) *float64 { return &f }
	gate := &answer.RelistGate{Name: "EventedPLEG"}
	pos := func(file string, line int) *answer.Pos { return &answer.Pos{File: file, Line: line, Column: 1} }
	slow := &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, Ratio: ratio(300),
		GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("5m0s")}, Evented: &answer.Pos{}, Fallback: val("1s"), MaxStreamRetries: &answer.RetryCount{Value: &five}}}
	forced := &answer.ForcedRelist{Pos: *pos("pkg/kubelet/pleg/evented.go", 209), Stream: *pos("pkg/kubelet/pleg/evented.go", 203),
		Relist: "GenericPLEG.Relist", RelistDecl: *pos("pkg/kubelet/pleg/generic.go", 292),
		UpdatesPodCache: *pos("pkg/kubelet/pleg/generic.go", 566), EmitsLifecycleEvents: pos("pkg/kubelet/pleg/generic.go", 396)}
	ticking := &answer.SyncLoop{Func: "syncLoopIteration", Pos: *pos("pkg/kubelet/kubelet.go", 2695), PLEGCase: *pos("pkg/kubelet/kubelet.go", 2733), PLEGChannel: "plegCh",
		Ticks: []answer.Tick{{Channel: "syncCh", Case: *pos("pkg/kubelet/kubelet.go", 2750), Period: val("1s")}, {Channel: "housekeepingCh", Case: *pos("pkg/kubelet/kubelet.go", 2796), Period: val("2s")}}}
	tests := []struct {
		name      string
		relist    *answer.Relist
		evented   *answer.EventedPLEG
		sync      *answer.SyncLoop
		want, not []string
	}{{
		name:   "no evented PLEG",
		relist: &answer.Relist{GateOff: &answer.Mode{Period: val("1s")}},
		want:   []string{"builds no evented PLEG", "relists every 1s", "cannot ground the relist as level-triggered reconciliation"},
		not:    []string{"safety net", "stream fails"},
	}, {
		name: "slower safety net with a fallback",
		relist: &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, Ratio: ratio(300),
			GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("5m0s")}, Evented: &answer.Pos{}, Fallback: val("1s"), MaxStreamRetries: &answer.RetryCount{Value: &five}}},
		want: []string{"keeps relisting beside it", "every 5m0s instead of 1s (x300)", "fails 5 times", "restores a 1s relist"},
		not:  []string{"ratio 1", "restores nothing"},
	}, {
		name: "ratio 1",
		relist: &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, Ratio: ratio(1),
			GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("1s")}, Evented: &answer.Pos{}, MaxStreamRetries: &answer.RetryCount{Value: &five}}},
		want: []string{"ratio 1", "relist never slowed down"},
		not:  []string{"instead of"},
	}, {
		name: "fallback dropped while the relist stayed slow",
		relist: &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, Ratio: ratio(300),
			GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("5m0s")}, Evented: &answer.Pos{}}},
		want: []string{"restores nothing: the kubelet is left relisting every 5m0s"},
	}, {
		name: "gate test unfollowed, period unresolved",
		relist: &answer.Relist{GateOff: &answer.Mode{Period: &answer.Value{Unresolved: "relistPeriod is a flag"}},
			GateUnresolved: &answer.UnresolvedGate{Expr: "enabled(features.EventPLEG)", Test: *pos("pkg/kubelet/kubelet.go", 40), Unresolved: "declared nowhere"}},
		want: []string{"the generic PLEG relists at a period plegvet could not resolve (relistPeriod is a flag)."},
		not:  []string{"every a", "every an", "an unresolved period"},
	}, {
		name:   "safety net gone",
		relist: &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, GateOn: &answer.GateOnMode{Mode: answer.Mode{}, Evented: &answer.Pos{}}},
		want:   []string{"runs no generic relist at all", "nothing it finds relists the runtime"},
		not:    []string{"keeps relisting beside it", "gives up"},
	}, {
		name:    "a relist forced on each stream error, and the sync loop's ticks",
		relist:  slow,
		evented: &answer.EventedPLEG{Role: "event-source", UpdatesPodCache: pos("pkg/kubelet/pleg/evented.go", 266), EmitsLifecycleEvents: pos("pkg/kubelet/pleg/evented.go", 325), RelistOnStreamError: forced},
		sync:    ticking,
		want: []string{
			"writes the pod cache (pkg/kubelet/pleg/evented.go:266) and sends pod lifecycle events (pkg/kubelet/pleg/evented.go:325)",
			"Each time its stream call (pkg/kubelet/pleg/evented.go:203) returns an error, the evented PLEG runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:209); that relist writes the pod cache (pkg/kubelet/pleg/generic.go:566) and sends pod lifecycle events (pkg/kubelet/pleg/generic.go:396)",
			"syncLoopIteration (pkg/kubelet/kubelet.go:2695) receives the pod lifecycle events (line 2733)",
		},
		// The ticks sync the pods whose work is due and clean up; they do
		// not relist, and plegvet reads nothing that says they converge.
		not: []string{"convergence", "converge", "resync", "ticks", "syncCh", "finds no relist"},
	}, {
		name:    "no relist forced on a stream error",
		relist:  slow,
		evented: &answer.EventedPLEG{Role: "event-source", EmitsLifecycleEvents: pos("pkg/kubelet/pleg/evented.go", 325)},
		sync:    ticking,
		want:    []string{"plegvet finds no relist that the evented PLEG forces when its stream call returns an error", "restores a 1s relist"},
		not:     []string{"at once", "convergence"},
	}, {
		name:    "no periodic relist, but one forced on each stream error",
		relist:  &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, GateOn: &answer.GateOnMode{Mode: answer.Mode{}, Evented: &answer.Pos{}, MaxStreamRetries: &answer.RetryCount{Value: &five}}},
		evented: &answer.EventedPLEG{Role: "event-source", RelistOnStreamError: forced},
		want:    []string{"runs no periodic generic relist", "runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:209)", "restores nothing: no generic relist runs after that"},
		not:     []string{"nothing it finds relists", "keeps relisting beside it"},
	}, {
		name:   "a relist trigger that also forces a relist on a stream error",
		relist: &answer.Relist{Gate: gate, GateOff: &answer.Mode{Period: val("1s")}, Ratio: ratio(1), GateOn: &answer.GateOnMode{Mode: answer.Mode{Period: val("1s")}, Evented: &answer.Pos{}}},
		evented: &answer.EventedPLEG{Role: "relist-trigger", RequestsRelist: &answer.RelistRequest{Pos: *pos("pkg/kubelet/pleg/evented.go", 130), EventTypes: []string{"CONTAINER_STOPPED_EVENT"}},
			RelistOnStreamError: forced, OnStreamFailure: answer.StreamFailure{Action: "stop-watching"}},
		want: []string{"it runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:209), which writes the pod cache (pkg/kubelet/pleg/generic.go:566)"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summary(&answer.Report{Relist: tc.relist, EventedPLEG: tc.evented, SyncLoop: tc.sync})
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("summary lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("summary says %q, which this tree does not do:\n%s", n, got)
				}
			}
		})
	}
}
