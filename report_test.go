package plegvet

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/srcpos"
)

func val(v string) *Value { return &Value{Value: v} }

// The closing paragraph is worded from the facts: each case below must
// say what its tree does, and not what another tree does.
func TestSummarize(t *testing.T) {
	five := int64(5)
	ratio := func(f float64) *float64 { return &f }
	gate := &RelistGate{Name: "EventedPLEG"}
	pos := func(file string, line int) *Pos { return &Pos{File: file, Line: line, Column: 1} }
	slow := &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, Ratio: ratio(300),
		GateOn: &GateOnMode{Mode: Mode{Period: val("5m0s")}, Evented: &Pos{}, Fallback: val("1s"), MaxStreamRetries: &RetryCount{Value: &five}}}
	forced := &ForcedRelist{Pos: *pos("pkg/kubelet/pleg/evented.go", 209), Stream: *pos("pkg/kubelet/pleg/evented.go", 203),
		Relist: "GenericPLEG.Relist", RelistDecl: *pos("pkg/kubelet/pleg/generic.go", 292),
		UpdatesPodCache: *pos("pkg/kubelet/pleg/generic.go", 566), EmitsLifecycleEvents: pos("pkg/kubelet/pleg/generic.go", 396)}
	ticking := &SyncLoop{Func: "syncLoopIteration", Pos: *pos("pkg/kubelet/kubelet.go", 2695), PLEGCase: *pos("pkg/kubelet/kubelet.go", 2733), PLEGChannel: "plegCh",
		Ticks: []Tick{{Channel: "syncCh", Case: *pos("pkg/kubelet/kubelet.go", 2750), Period: val("1s")}, {Channel: "housekeepingCh", Case: *pos("pkg/kubelet/kubelet.go", 2796), Period: val("2s")}}}
	tests := []struct {
		name      string
		relist    *Relist
		evented   *EventedPLEG
		sync      *SyncLoop
		want, not []string
	}{{
		name:   "no evented PLEG",
		relist: &Relist{GateOff: &Mode{Period: val("1s")}},
		want:   []string{"builds no evented PLEG", "relists every 1s", "noticed at the next one"},
		not:    []string{"safety net", "stream fails"},
	}, {
		name: "slower safety net with a fallback",
		relist: &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, Ratio: ratio(300),
			GateOn: &GateOnMode{Mode: Mode{Period: val("5m0s")}, Evented: &Pos{}, Fallback: val("1s"), MaxStreamRetries: &RetryCount{Value: &five}}},
		want: []string{"keeps relisting beside it", "every 5m0s instead of 1s (x300)", "fails 5 times", "restores a 1s relist"},
		not:  []string{"ratio 1", "restores nothing"},
	}, {
		name: "ratio 1",
		relist: &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, Ratio: ratio(1),
			GateOn: &GateOnMode{Mode: Mode{Period: val("1s")}, Evented: &Pos{}, MaxStreamRetries: &RetryCount{Value: &five}}},
		want: []string{"ratio 1", "relist never slowed down"},
		not:  []string{"instead of"},
	}, {
		name: "fallback dropped while the relist stayed slow",
		relist: &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, Ratio: ratio(300),
			GateOn: &GateOnMode{Mode: Mode{Period: val("5m0s")}, Evented: &Pos{}}},
		want: []string{"restores nothing: the kubelet is left relisting every 5m0s"},
	}, {
		name:   "safety net gone",
		relist: &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, GateOn: &GateOnMode{Mode: Mode{}, Evented: &Pos{}}},
		want:   []string{"runs no generic relist at all", "nothing it finds relists the runtime"},
		not:    []string{"keeps relisting beside it", "gives up"},
	}, {
		name:    "a relist forced on each stream error, and the sync loop's ticks",
		relist:  slow,
		evented: &EventedPLEG{Role: "event-source", UpdatesPodCache: pos("pkg/kubelet/pleg/evented.go", 266), EmitsLifecycleEvents: pos("pkg/kubelet/pleg/evented.go", 325), RelistOnStreamError: forced},
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
		evented: &EventedPLEG{Role: "event-source", EmitsLifecycleEvents: pos("pkg/kubelet/pleg/evented.go", 325)},
		sync:    ticking,
		want:    []string{"plegvet finds no relist that the evented PLEG forces when its stream call returns an error", "restores a 1s relist"},
		not:     []string{"at once", "convergence"},
	}, {
		name:    "no periodic relist, but one forced on each stream error",
		relist:  &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, GateOn: &GateOnMode{Mode: Mode{}, Evented: &Pos{}, MaxStreamRetries: &RetryCount{Value: &five}}},
		evented: &EventedPLEG{Role: "event-source", RelistOnStreamError: forced},
		want:    []string{"runs no periodic generic relist", "runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:209)", "restores nothing: no generic relist runs after that"},
		not:     []string{"nothing it finds relists", "keeps relisting beside it"},
	}, {
		name:   "a relist trigger that also forces a relist on a stream error",
		relist: &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, Ratio: ratio(1), GateOn: &GateOnMode{Mode: Mode{Period: val("1s")}, Evented: &Pos{}}},
		evented: &EventedPLEG{Role: "relist-trigger", RequestsRelist: &RelistRequest{Pos: *pos("pkg/kubelet/pleg/evented.go", 130), EventTypes: []string{"CONTAINER_STOPPED_EVENT"}},
			RelistOnStreamError: forced, OnStreamFailure: StreamFailure{Action: "stop-watching"}},
		want: []string{"it runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:209), which writes the pod cache (pkg/kubelet/pleg/generic.go:566)"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(&Report{Relist: tc.relist, EventedPLEG: tc.evented, SyncLoop: tc.sync})
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

// Inspect on the look-alike checkout: every part found, nothing missing.
func TestInspectLookAlike(t *testing.T) {
	rep, err := Inspect(context.Background(), Options{Dir: "testdata/src/k8s.io/kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) != 0 || len(rep.Diagnostics) != 0 {
		t.Errorf("missing %+v, diagnostics %+v", rep.Missing, rep.Diagnostics)
	}
	if rep.FeatureGate == nil || rep.FeatureGate.Name != "EventedPLEG" || rep.FeatureGate.Effective != nil {
		t.Errorf("feature gate %+v (no version is known for a checkout, so no effective spec)", rep.FeatureGate)
	}
	if rep.DefaultPLEG != "generic" || rep.Relist == nil || rep.Relist.Ratio == nil || *rep.Relist.Ratio != 300 {
		t.Errorf("default %s, relist %+v", rep.DefaultPLEG, rep.Relist)
	}
	if rep.RPC == nil || len(rep.RPC.GoCalls) != 1 {
		t.Errorf("rpc %+v", rep.RPC)
	}
	sl := rep.SyncLoop
	if sl == nil || sl.Func != "iterate" || sl.PLEGChannel != "events" || len(sl.Ticks) != 2 {
		t.Fatalf("sync loop %+v", sl)
	}
	if p := sl.Ticks[0].Period; sl.Ticks[0].Channel != "resyncCh" || p == nil || p.Value != "1s" || p.Const != "" {
		t.Errorf("first tick %+v, period %+v", sl.Ticks[0], p)
	}
	if p := sl.Ticks[1].Period; p == nil || p.Value != "2s" || p.Const != "cleanupPeriod" {
		t.Errorf("second tick period %+v", p)
	}
	// The relist the evented PLEG forces when its stream call fails
	// (evented.go:38-40), and what that relist writes (generic.go).
	f := rep.EventedPLEG.RelistOnStreamError
	if f == nil || f.Relist != "GenericPLEG.Relist" || srcpos.Line(&f.Pos) != "pkg/kubelet/pleg/evented.go:40" || srcpos.Line(&f.Stream) != "pkg/kubelet/pleg/evented.go:38" ||
		srcpos.Line(&f.RelistDecl) != "pkg/kubelet/pleg/generic.go:32" || srcpos.Line(&f.UpdatesPodCache) != "pkg/kubelet/pleg/generic.go:48" || srcpos.Line(f.EmitsLifecycleEvents) != "pkg/kubelet/pleg/generic.go:49" {
		t.Errorf("relist on a stream error: %+v", f)
	}
	for _, w := range []string{
		"runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:40); that relist writes the pod cache (pkg/kubelet/pleg/generic.go:48)",
		"iterate (pkg/kubelet/sync.go:20) receives the pod lifecycle events (line 22).",
	} {
		if !strings.Contains(rep.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, rep.Summary)
		}
	}
	if strings.Contains(rep.Summary, "convergence") || strings.Contains(rep.Summary, "resync") {
		t.Errorf("summary says the sync loop's ticks converge: %s", rep.Summary)
	}
}

// The report's featureGate, relist and rpc are exactly what gates, periods
// and rpc print: users pipe one into tools written for the other.
func TestReportEmbedsTheSubcommandsJSON(t *testing.T) {
	ctx := context.Background()
	opts := Options{Dir: "testdata/src/k8s.io/kubernetes"}
	rep, err := Inspect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	gates, err := Gates(ctx, opts, "EventedPLEG")
	if err != nil {
		t.Fatal(err)
	}
	periods, err := Periods(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := EventStream(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		report, sub any
	}{
		{"featureGate", rep.FeatureGate.Gate, gates.Gates[0]},
		{"relist", rep.Relist, periods.Relist},
		{"rpc", rep.RPC, stream.RPC},
	} {
		a, _ := json.Marshal(c.report)
		b, _ := json.Marshal(c.sub)
		if string(a) != string(b) {
			t.Errorf("%s differs:\nreport %s\nsub    %s", c.name, a, b)
		}
	}
}
