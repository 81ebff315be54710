package plegvet

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/srcpos"
)

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
		{"featureGate", *rep.FeatureGate, gates.Gates[0]},
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
