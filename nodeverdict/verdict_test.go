package nodeverdict

import (
	"strings"
	"testing"
	"time"
)

// Facts shaped like v1.26 to v1.36: 1s off, 5m beside the evented PLEG,
// 5 stream retries, 1s restored after the stream fails.
var (
	off      = Period{Duration: time.Second, Known: true, Evidence: "1s = offPeriod (kubelet.go:1)"}
	on       = Period{Duration: 5 * time.Minute, Known: true, Evidence: "5m0s = onPeriod (kubelet.go:2)"}
	shipped  = Periods{GateOff: off, GateOn: on, Fallback: off, MaxStreamRetries: 5, RetriesKnown: true, MaxStreamRetriesCause: "5 = retries (kubelet.go:3)"}
	falseVal = false
)

func gateUnset() Gate {
	return Gate{Name: "EventedPLEG", KubeletVersion: "v1.36.1", Default: &falseVal, SpecWords: "Alpha, default false", Built: true, TestWords: "tested at kubelet.go:9"}
}

func gateSet(v bool) Gate {
	g := gateUnset()
	g.Explicit, g.Value = true, v
	return g
}

func count(v float64) *float64 { return &v }

func hist(count uint64, sum float64) *Histogram {
	h := &Histogram{Count: count, Sum: sum}
	if count > 0 {
		m := sum / float64(count)
		h.Mean = &m
	}
	return h
}

// relisting is a kubelet's metrics with the given stream counters and
// relist intervals.
func relisting(successes, errors float64, intervals uint64, sum float64) Metrics {
	return Metrics{
		KubeletVersion:  "v1.36.1",
		StreamSuccesses: count(successes), StreamErrors: count(errors),
		RelistInterval: hist(intervals, sum), RelistDuration: hist(intervals, float64(intervals)*0.01),
		DiscardEvents: count(0),
	}
}

func TestDecide(t *testing.T) {
	generic := relisting(0, 0, 3600, 3636)
	evented := relisting(1, 0, 12, 3600)
	evented.EventLatency = hist(40, 0.2)
	for _, tc := range []struct {
		name string
		in   Input
		// want is the verdict, configured the gate's mode, matches the
		// relist check's; disagree are words of each disagreeing claim,
		// in order, and notes of each note.
		want, configured, matches string
		disagree, notes           []string
	}{
		{
			name: "gate unset, default off, relisting every second",
			in:   Input{Gate: gateUnset(), Periods: shipped, Metrics: generic},
			want: Generic, configured: Generic, matches: Generic,
		},
		{
			name: "gate set off",
			in:   Input{Gate: gateSet(false), Periods: shipped, Metrics: generic},
			want: Generic, configured: Generic, matches: Generic,
		},
		{
			name: "gate on, streaming, relisting every 5m",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: evented},
			want: Evented, configured: Evented, matches: Evented,
		},
		{
			name: "gate on by default at a later version",
			in: func() Input {
				g := gateUnset()
				tr := true
				g.Default = &tr
				return Input{Gate: g, Periods: shipped, Metrics: evented}
			}(),
			want: Evented, configured: Evented, matches: Evented,
		},
		{
			name: "gate on, but no stream was ever opened",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(0, 0, 12, 3600)},
			want: Inconsistent, configured: Evented, matches: Evented,
			disagree: []string{"no event stream"},
			notes:    []string{},
		},
		{
			name: "gate on, the stream failed for good and the kubelet fell back",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(5, 5, 3000, 3040)},
			want: FellBack, configured: Evented, matches: Generic,
		},
		{
			// The mean covers the kubelet's life: a stream that lasted
			// hours at 5m before it was given up keeps the mean near 5m
			// long after. It cannot tell, and says so.
			name: "gate on, fell back, the mean still near the safety-net period the stream ran at",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(5, 5, 12, 3600)},
			want: FellBack, configured: Evented, matches: Evented,
			notes: []string{"lies between the 1s the kubelet relists at once the stream is given up and the 5m0s it relisted at while the stream lasted"},
		},
		{
			name: "gate on, fell back, relisting far outside both periods",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(5, 5, 3000, 30)},
			want: Inconsistent, configured: Evented, matches: "neither",
			disagree: []string{"far from the 1s the kubelet relists at once the stream is given up"},
		},
		{
			name: "gate on in a release whose evented PLEG is a relist trigger",
			in: func() Input {
				p := shipped
				p.Role, p.RoleWhy, p.OnStreamFailure = RoleRelistTrigger, "requests relists at evented.go:130", StopWatching
				p.GateOn = p.GateOff // one construction: the relist keeps its period
				return Input{Gate: gateSet(true), Periods: p, Metrics: relisting(1, 0, 3600, 3636)}
			}(),
			want: GenericWithEventHints, configured: Evented, matches: "both",
			notes: []string{"only asks the generic PLEG to relist"},
		},
		{
			name: "a relist trigger that gave up its stream: stop watching, the relist unchanged",
			in: func() Input {
				p := shipped
				p.Role, p.OnStreamFailure = RoleRelistTrigger, StopWatching
				p.GateOn, p.Fallback = p.GateOff, Period{}
				return Input{Gate: gateSet(true), Periods: p, Metrics: relisting(0, 5, 3600, 3636)}
			}(),
			want: FellBack, configured: Evented, matches: "both",
			notes: []string{"only asks the generic PLEG to relist"},
		},
		{
			name: "gate on, only connection errors, fewer than the retries",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(0, 3, 12, 3600)},
			want: Inconsistent, configured: Evented, matches: Evented,
			disagree: []string{"never connected"},
		},
		{
			name: "gate on, errors below the retries, a stream client still open",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(3, 2, 12, 3600)},
			want: Evented, configured: Evented, matches: Evented,
		},
		{
			// The success counter counts stream clients obtained, before
			// the runtime answers: as many errors as successes is no
			// stream at all.
			name: "gate on, every stream client obtained ended in an error, below the retries",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(3, 3, 12, 3600)},
			want: Inconsistent, configured: Evented, matches: Evented,
			disagree: []string{"no event stream is open: every stream client the kubelet obtained ended in an error"},
		},
		{
			name: "gate off, but streams were opened",
			in:   Input{Gate: gateSet(false), Periods: shipped, Metrics: relisting(1, 0, 3600, 3636)},
			want: Inconsistent, configured: Generic, matches: Generic,
			disagree: []string{"only the evented PLEG does"},
		},
		{
			name: "gate off, but events arrived over a stream",
			in: func() Input {
				m := generic
				m.EventLatency = hist(3, 0.01)
				return Input{Gate: gateSet(false), Periods: shipped, Metrics: m}
			}(),
			want: Inconsistent, configured: Generic, matches: Generic,
			disagree: []string{"received 3 container events"},
		},
		{
			name: "gate off, but relisting every 5m",
			in:   Input{Gate: gateUnset(), Periods: shipped, Metrics: relisting(0, 0, 12, 3600)},
			want: Inconsistent, configured: Generic, matches: Evented,
			disagree: []string{"generic PLEG keeps beside the evented PLEG"},
		},
		{
			name: "relisting every 30s matches no period",
			in:   Input{Gate: gateUnset(), Periods: shipped, Metrics: relisting(0, 0, 100, 3000)},
			want: Inconsistent, configured: Generic, matches: "neither",
			disagree: []string{"from every period in the source"},
		},
		{
			name: "one period for both modes, as in v1.37: the counters decide",
			in: func() Input {
				p := shipped
				p.GateOn, p.Fallback = off, Period{Evidence: "none"}
				return Input{Gate: gateSet(true), Periods: p, Metrics: relisting(1, 0, 3600, 3636)}
			}(),
			want: Evented, configured: Evented, matches: "both",
		},
		{
			name: "a v1.26 kubelet exports no stream counters",
			in: func() Input {
				m := relisting(0, 0, 12, 3600)
				m.StreamSuccesses, m.StreamErrors = nil, nil
				return Input{Gate: gateSet(true), Periods: shipped, Metrics: m}
			}(),
			want: Evented, configured: Evented, matches: Evented,
			notes: []string{"no evented-PLEG connection counters"},
		},
		{
			name: "a source without an evented PLEG, as v1.25",
			in: Input{
				Gate:    Gate{Name: "EventedPLEG", KubeletVersion: "v1.25.16", SpecWords: "declares no EventedPLEG", TestWords: "one generic PLEG"},
				Periods: Periods{GateOff: off},
				Metrics: Metrics{RelistInterval: hist(3600, 3636), LastSeen: count(1.7e9)},
			},
			want: Generic, configured: Generic, matches: Generic,
		},
		{
			name: "configz sets a gate the source has no spec of",
			in: Input{
				Gate:    Gate{Name: "EventedPLEG", KubeletVersion: "v1.25.16", Explicit: true, Value: true, SpecWords: "declares no EventedPLEG", TestWords: "one generic PLEG"},
				Periods: Periods{GateOff: off},
				Metrics: Metrics{RelistInterval: hist(3600, 3636)},
			},
			want: Inconsistent, configured: Generic, matches: Generic,
			disagree: []string{"refuses gates it does not know"},
		},
		{
			name: "a fork that builds no evented PLEG, with the gate declared and set",
			in: Input{
				Gate:    Gate{Name: "EventedPLEG", KubeletVersion: "v1.36.1", Explicit: true, Value: true, Default: &falseVal, SpecWords: "Alpha", TestWords: "one generic PLEG"},
				Periods: Periods{GateOff: off},
				Metrics: Metrics{RelistInterval: hist(3600, 3636)},
			},
			want: Generic, configured: Generic, matches: Generic,
			notes: []string{"does not act on"},
		},
		{
			name: "no relist observed yet",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: func() Metrics { m := evented; m.RelistInterval = hist(0, 0); return m }()},
			want: Evented, configured: Evented,
			notes: []string{"no relist interval was observed yet"},
		},
		{
			name: "no relist-interval histogram",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: func() Metrics { m := evented; m.RelistInterval = nil; return m }()},
			want: Evented, configured: Evented,
			notes: []string{"no relist-interval histogram"},
		},
		{
			name: "a period the source computes at run time",
			in: func() Input {
				p := shipped
				p.GateOn = Period{Evidence: "unresolved: cfg.Period is a field"}
				return Input{Gate: gateSet(true), Periods: p, Metrics: evented}
			}(),
			want: Evented, configured: Evented,
			notes: []string{"not a constant in the source"},
		},
		{
			name: "dropped events and an unknown runtime are notes",
			in: func() Input {
				m := generic
				m.DiscardEvents = count(12)
				return Input{Gate: gateUnset(), Periods: shipped, Metrics: m, Runtime: &Runtime{Name: "isulad", Version: "2.1", APIVersion: "v1"}}
			}(),
			want: Generic, configured: Generic, matches: Generic,
			notes: []string{"12 PLEG events were dropped", `"isulad" is not one plegvet recognises`},
		},
		{
			name: "gate on with a runtime on CRI v1alpha2",
			in:   Input{Gate: gateSet(true), Periods: shipped, Metrics: evented, Runtime: &Runtime{Name: "containerd", Version: "1.5.0", APIVersion: "v1alpha2", Known: true}},
			want: Inconsistent, configured: Evented, matches: Evented,
			disagree: []string{"has no GetContainerEvents"},
			notes:    []string{"the container runtime is containerd 1.5.0"},
		},
		{
			name: "the kubelet version given differs from the metrics'",
			in: func() Input {
				g := gateUnset()
				g.KubeletVersion = "v1.35.0"
				return Input{Gate: g, Periods: shipped, Metrics: generic}
			}(),
			want: Generic, configured: Generic, matches: Generic,
			notes: []string{"not at the v1.36.1 the metrics report"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in)
			if d.Verdict != tc.want || d.Configured != tc.configured || d.Relist.Matches != tc.matches {
				t.Errorf("verdict %q, configured %q, matches %q; want %q, %q, %q", d.Verdict, d.Configured, d.Relist.Matches, tc.want, tc.configured, tc.matches)
			}
			var disagree, notes []Reason
			for _, r := range d.Reasons {
				if r.Claim == "" || r.Evidence == "" {
					t.Errorf("a reason without a claim or evidence: %+v", r)
				}
				switch {
				case r.Agrees == nil && strings.Contains(r.Claim, "metrics do not say whether"):
					// Every case without kubernetes_feature_enabled has it;
					// TestFeatureMetric checks it.
				case r.Agrees == nil:
					notes = append(notes, r)
				case !*r.Agrees:
					disagree = append(disagree, r)
				}
			}
			checkClaims(t, "disagreeing", disagree, tc.disagree)
			if tc.notes != nil {
				checkClaims(t, "note", notes, tc.notes)
			}
			if len(d.Reasons) == 0 || d.Reasons[0].Agrees == nil || !*d.Reasons[0].Agrees && len(tc.disagree) == 0 {
				t.Errorf("the first reason is not the gate's: %+v", d.Reasons)
			}
			if t.Failed() {
				for _, r := range d.Reasons {
					t.Logf("%v %s: %s", agreesText(r.Agrees), r.Claim, r.Evidence)
				}
			}
		})
	}
}

func checkClaims(t *testing.T, kind string, got []Reason, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d %s reasons, want %d", len(got), kind, len(want))
		return
	}
	for i, w := range want {
		if !strings.Contains(got[i].Claim, w) {
			t.Errorf("%s reason %d: %q does not say %q", kind, i, got[i].Claim, w)
		}
	}
}

func agreesText(a *bool) string {
	switch {
	case a == nil:
		return "note"
	case *a:
		return "agrees"
	}
	return "DISAGREES"
}

func TestDecideRelistCheck(t *testing.T) {
	d := Decide(Input{Gate: gateSet(true), Periods: shipped, Metrics: relisting(1, 0, 10, 3000)})
	c := d.Relist
	if c.Expected != "5m0s" || c.GateOff != "1s" || c.GateOn != "5m0s" || c.Fallback != "1s" || c.Observations != 10 ||
		c.MeanIntervalSeconds == nil || *c.MeanIntervalSeconds != 300 || c.MeanRelistSeconds == nil || *c.MeanRelistSeconds != 0.01 || c.Tolerance != Tolerance {
		t.Errorf("relist check %+v", c)
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		observed, expected float64
		want               bool
	}{
		{1, 1, true},
		{2, 1, true},
		{2.01, 1, false},
		{0.5, 1, true},
		{0.49, 1, false},
		{300, 1, false},
		{0, 0, true},
		{1, 0, false},
	} {
		if got := within(tc.observed, tc.expected); got != tc.want {
			t.Errorf("within(%v, %v) = %t, want %t", tc.observed, tc.expected, got, tc.want)
		}
	}
}

// The kubelet's own word on the gate comes first; it decides nothing alone,
// but a disagreement with configz and the source is inconsistent, naming
// both, and its absence is said.
func TestFeatureMetric(t *testing.T) {
	generic := relisting(0, 0, 3600, 3636)
	evented := relisting(1, 0, 12, 3600)
	withMetric := func(m Metrics, on bool) Metrics {
		m.FeatureEnabled = map[string]FeatureState{"EventedPLEG": {Enabled: on, Stage: "ALPHA"}}
		return m
	}
	for _, tc := range []struct {
		name    string
		in      Input
		verdict string
		first   string // the first reason's claim, in part
		agrees  *bool
		note    string // a note's claim, in part, when the metric is absent
	}{
		{"unset, default false, the kubelet says off", Input{Gate: gateUnset(), Periods: shipped, Metrics: withMetric(generic, false)},
			Generic, "the kubelet reports EventedPLEG off", boolPtr(true), ""},
		{"configz on, the kubelet says on", Input{Gate: gateSet(true), Periods: shipped, Metrics: withMetric(evented, true)},
			Evented, "the kubelet reports EventedPLEG on", boolPtr(true), ""},
		{"unset, default false, but the kubelet says on: not this source's default", Input{Gate: gateUnset(), Periods: shipped, Metrics: withMetric(generic, true)},
			Inconsistent, "the kubelet reports EventedPLEG on, but configz leaves it unset and the source's default at v1.36.1 is false", boolPtr(false), ""},
		{"no metric: said, and configz with the source decide", Input{Gate: gateUnset(), Periods: shipped, Metrics: generic},
			Generic, "EventedPLEG is off: configz leaves it unset", boolPtr(true), "metrics do not say whether EventedPLEG is on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in)
			if d.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", d.Verdict, tc.verdict)
			}
			first := d.Reasons[0]
			if !strings.Contains(first.Claim, tc.first) || (first.Agrees == nil) != (tc.agrees == nil) || (first.Agrees != nil && *first.Agrees != *tc.agrees) {
				t.Errorf("first reason %q (agrees %v); want %q (agrees %v)", first.Claim, agreesText(first.Agrees), tc.first, agreesText(tc.agrees))
			}
			found := tc.note == ""
			for _, r := range d.Reasons {
				found = found || (r.Agrees == nil && strings.Contains(r.Claim, tc.note))
			}
			if !found {
				t.Errorf("no note saying %q", tc.note)
			}
		})
	}
}
