package plegvet

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func val(v string) *Value { return &Value{Value: v} }

// The closing paragraph is worded from the facts: each case below must
// say what its tree does, and not what another tree does.
func TestSummarize(t *testing.T) {
	five := int64(5)
	ratio := func(f float64) *float64 { return &f }
	gate := &RelistGate{Name: "EventedPLEG"}
	tests := []struct {
		name      string
		relist    *Relist
		want, not []string
	}{{
		name:   "no evented PLEG",
		relist: &Relist{GateOff: &Mode{Period: val("1s")}},
		want:   []string{"builds no evented PLEG", "relists every 1s", "level-triggered reconciliation"},
		not:    []string{"safety net", "stream fails"},
	}, {
		name: "slower safety net with a fallback",
		relist: &Relist{Gate: gate, GateOff: &Mode{Period: val("1s")}, Ratio: ratio(300),
			GateOn: &GateOnMode{Mode: Mode{Period: val("5m0s")}, Evented: &Pos{}, Fallback: val("1s"), MaxStreamRetries: &RetryCount{Value: &five}}},
		want: []string{"safety net", "every 5m0s instead of 1s (x300)", "fails 5 times", "restores a 1s relist"},
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
		want:   []string{"runs no generic relist at all", "Nothing resynchronises"},
		not:    []string{"safety net:"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(&Report{Relist: tc.relist}, nil)
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
	if !strings.Contains(rep.Summary, "iterate consumes PLEG events, yet also wakes on ticks (resyncCh every 1s, cleanupCh every 2s)") {
		t.Errorf("summary: %s", rep.Summary)
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
