package plegvet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

// TestResultsRoundTrip: every result type is plain data. A result decoded
// from its JSON encodes to the same bytes, and its methods answer as the
// one returned, on real releases of each design.
func TestResultsRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	ctx := context.Background()
	for _, v := range []string{"v1.25.16", "v1.30.14", "v1.36.1", "v1.37.2"} {
		t.Run(v, func(t *testing.T) {
			opts := plegvet.Options{Kubernetes: v}
			rep, err := plegvet.Inspect(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			back := roundTrip(t, rep)
			sameAnswers(t, rep, back)

			gates, err := plegvet.Gates(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			gatesBack := roundTrip(t, gates)
			for i := range gates.Gates {
				for _, at := range []string{"1.20", "1.26", "1.30", v} {
					a, aok := gates.Gates[i].At(at)
					b, bok := gatesBack.Gates[i].At(at)
					if aok != bok || !reflect.DeepEqual(a, b) {
						t.Errorf("%s.At(%s) = %+v, %t; after a round trip %+v, %t", gates.Gates[i].Name, at, a, aok, b, bok)
					}
				}
			}
			periods, err := plegvet.Periods(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, periods)
			stream, err := plegvet.EventStream(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, stream)
		})
	}
	t.Run("node", func(t *testing.T) {
		rep, err := plegvet.Node(ctx, plegvet.NodeOptions{
			Options: plegvet.Options{Dir: "testdata/src/k8s.io/kubernetes"},
			NodeFiles: plegvet.NodeFiles{Configz: "nodeverdict/testdata/configz/on.json", Metrics: "nodeverdict/testdata/metrics/evented.txt",
				Crictl: "nodeverdict/testdata/crictl/containerd.json"},
		})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, rep)
	})
}

// roundTrip encodes v, decodes it into a new value of its type, and
// requires the second encoding to be the same bytes.
func roundTrip[T any](t *testing.T, v *T) *T {
	t.Helper()
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	back := new(T)
	dec := json.NewDecoder(bytes.NewReader(first))
	dec.DisallowUnknownFields() // every key is a field: nothing is only written
	if err := dec.Decode(back); err != nil {
		t.Fatalf("decoding %T: %v", v, err)
	}
	second, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("%T changes over a JSON round trip:\nfirst  %s\nsecond %s", v, first, second)
	}
	return back
}

// sameAnswers compares what the methods of a report's parts say.
func sameAnswers(t *testing.T, a, b *answer.Report) {
	t.Helper()
	values := func(r *answer.Report) []*answer.Value {
		var vs []*answer.Value
		if rl := r.Relist; rl != nil {
			vs = append(vs, rl.GateOff.Period, rl.GateOff.Threshold)
			if rl.GateOn != nil {
				vs = append(vs, rl.GateOn.Period, rl.GateOn.Threshold, rl.GateOn.Fallback)
			}
		}
		if r.SyncLoop != nil {
			for _, tick := range r.SyncLoop.Ticks {
				vs = append(vs, tick.Period)
			}
		}
		return vs
	}
	va, vb := values(a), values(b)
	resolved := 0
	for i := range va {
		da, aok := va[i].Duration()
		db, bok := vb[i].Duration()
		if da != db || aok != bok {
			t.Errorf("value %d: Duration() = %v, %t; after a round trip %v, %t", i, da, aok, db, bok)
		}
		if aok {
			resolved++
		}
	}
	if resolved == 0 {
		t.Errorf("no resolved duration to compare: the test would pass on anything")
	}
	if a.FeatureGate != nil {
		for _, at := range []string{"1.26", "1.29", a.Source.KubernetesVersion} {
			sa, aok := a.FeatureGate.At(at)
			sb, bok := b.FeatureGate.At(at)
			if aok != bok || !reflect.DeepEqual(sa, sb) {
				t.Errorf("featureGate.At(%s) = %+v, %t; after a round trip %+v, %t", at, sa, aok, sb, bok)
			}
		}
	}
}
