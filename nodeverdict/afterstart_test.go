package nodeverdict

import (
	"strings"
	"testing"
	"time"
)

// Facts shaped like the releases' own, as plegvet reads them from source:
// v1.36 (pkg/kubelet/kubelet.go: 1s gate off, 300s gate on, 5 retries;
// pkg/kubelet/pleg/evented.go: an event source that relists after each
// stream error and restores the 1s by restarting the generic PLEG), and
// v1.37 (one 1s period; a relist trigger that stops watching).
var (
	period1s  = Period{Duration: time.Second, Known: true, Evidence: "1s = genericPlegRelistPeriod (pkg/kubelet/kubelet.go:215)"}
	period5m  = Period{Duration: 300 * time.Second, Known: true, Evidence: "5m0s = eventedPlegRelistPeriod (pkg/kubelet/kubelet.go:219)"}
	release36 = Periods{
		GateOff: period1s, GateOn: period5m, Fallback: period1s,
		MaxStreamRetries: 5, RetriesKnown: true, MaxStreamRetriesCause: "5 = eventedPlegMaxStreamRetries (pkg/kubelet/kubelet.go:221)",
		Role: RoleEventSource, RoleWhy: "its event loop sends pod lifecycle events", OnStreamFailure: RestoreGenericRelist,
		ForcedRelists: true, ForcedRelistsWhy: "its event loop, from EventedPLEG.Start, calls EventedPLEG.Relist",
	}
	release37 = Periods{
		GateOff: period1s, GateOn: period1s, Fallback: Period{Evidence: "none"},
		MaxStreamRetries: 5, RetriesKnown: true, MaxStreamRetriesCause: "5 = eventedPlegMaxStreamRetries (pkg/kubelet/kubelet.go:219)",
		Role: RoleRelistTrigger, RoleWhy: "its event loop only requests relists of another PLEG", OnStreamFailure: StopWatching,
	}
	// debian16 is Debian's containerd 1.6.20, whose CRI server answers
	// GetContainerEvents with Unimplemented.
	debian16 = &Runtime{ReportedBy: ReportedByCrictl, Name: "containerd", Version: "1.6.20~ds1", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true,
		StreamsEvents: &falseVal, Module: "github.com/containerd/containerd@v1.6.20", Pos: "pkg/cri/server/container_events.go:25",
		StreamsWhy: "GetContainerEvents returns codes.Unimplemented"}
	streaming2 = &Runtime{ReportedBy: ReportedByCrictl, Name: "containerd", Version: "2.1.4", APIVersion: "v1", Known: true,
		StreamsEvents: boolPtr(true), Module: "github.com/containerd/containerd/v2@v2.1.4", Pos: "internal/cri/server/container_events.go:23", StreamsWhy: "it sends on the stream"}
)

// scrape is a kubelet's metrics with the gate on, as the kubelet reports
// it: the stream counters, the events received, and the relist
// histograms (a relist finishes one observation of its duration more
// than of intervals: the first relist has no interval before it).
func scrape(version string, successes, errors float64, events, intervals uint64, sum float64) Metrics {
	m := Metrics{
		KubeletVersion:  version,
		StreamSuccesses: count(successes), StreamErrors: count(errors),
		EventLatency:   hist(events, float64(events)*0.001),
		RelistInterval: hist(intervals, sum), RelistDuration: hist(intervals+1, float64(intervals+1)*0.002),
		DiscardEvents:  count(0),
		FeatureEnabled: map[string]FeatureState{"EventedPLEG": {Enabled: true, Stage: "ALPHA"}},
	}
	if intervals == 0 {
		m.RelistDuration = hist(0, 0)
	}
	return m
}

func gateOnAt(version string) Gate {
	g := gateSet(true)
	g.KubeletVersion = version
	return g
}

// A v1.36 kubelet with the gate on against a runtime that cannot stream:
// each failed stream forces a relist (evented.go, after
// EventedPLEGConnErr.Inc()), and giving the stream up restarts the generic
// PLEG, which relists at once. Right after the fallback the lifetime mean
// is milliseconds (6 relists in 0.035s, measured); the verdict must be
// fell-back at every scrape from then on, with a period of 1s, and no
// reason may disagree.
func TestFellBackAtEveryScrape(t *testing.T) {
	for _, s := range []struct {
		name      string
		intervals uint64
		sum       float64
		note      string // a note the scrape must have, in part
	}{
		{"at the fallback: only forced relists", 6, 0.035, "too few relist intervals to compare"},
		{"one relist at the restored period", 7, 1.038, ""},
		{"two", 8, 2.04, ""},
		{"six seconds on", 12, 6.05, ""},
		{"a minute on", 66, 60.4, ""},
		{"an hour on", 3606, 3600.9, ""},
	} {
		for _, rt := range []*Runtime{nil, debian16} {
			name := s.name
			if rt != nil {
				name += ", runtime judged"
			}
			t.Run(name, func(t *testing.T) {
				d := Decide(Input{Gate: gateOnAt("v1.36.5"), Periods: release36, Metrics: scrape("v1.36.5", 5, 5, 0, s.intervals, s.sum), Runtime: rt})
				if d.Verdict != FellBack || d.Expected != FellBack || d.Configured != Evented || d.Relist.Expected != "1s" {
					t.Errorf("verdict %q, expected %q, configured %q, relist expected %q; want fell-back, fell-back, evented, 1s", d.Verdict, d.Expected, d.Configured, d.Relist.Expected)
				}
				if d.Relist.ForcedRelists != 6 {
					t.Errorf("forced relists %d; want 6: 5 stream errors and the generic PLEG's restart", d.Relist.ForcedRelists)
				}
				checkSays(t, d, s.note)
				checkNoClaim(t, d, "arrived over the stream yet", "should run the evented PLEG", "obtained event streams")
				if t.Failed() {
					logReasons(t, d)
				}
			})
		}
	}
}

// The v1.37 kubelet has no fallback: the evented PLEG is a relist-trigger
// watcher that stops after its retries, and the generic PLEG keeps its
// period. Shaped like the scrapes of a real v1.37.2 kubelet on Debian's
// containerd 1.6.20 (success 5, error 5, no event ever delivered).
func TestStoppedWatcherWords(t *testing.T) {
	for _, s := range []struct {
		intervals uint64
		sum       float64
	}{{0, 0}, {1, 1.0078}, {2, 2.0101}, {7, 7.0256}} {
		for _, rt := range []*Runtime{nil, debian16} {
			m := scrape("v1.37.2", 5, 5, 0, s.intervals, s.sum)
			m.RelistDuration = hist(s.intervals+1, 0.01)
			d := Decide(Input{Gate: gateOnAt("v1.37.2"), Periods: release37, Metrics: m, Runtime: rt})
			if d.Verdict != FellBack || d.Relist.Expected != "1s" {
				t.Errorf("%d intervals, runtime %v: verdict %q, period %q; want fell-back at 1s", s.intervals, rt != nil, d.Verdict, d.Relist.Expected)
			}
			checkNoClaim(t, d, "fall back", "falls back", "should run the evented PLEG", "arrived over the stream yet", "obtained event streams", "restores")
			found := false
			for _, r := range d.Reasons {
				found = found || strings.Contains(r.Evidence, "the watcher stops, and the generic PLEG keeps relisting every 1s") || strings.Contains(r.Claim, "the watcher stops, and the generic PLEG keeps relisting every 1s")
			}
			if !found {
				t.Errorf("%d intervals: no reason says the watcher stops and the generic PLEG keeps its 1s", s.intervals)
			}
			if t.Failed() {
				logReasons(t, d)
				return
			}
		}
	}
}

// The fallback is known before the relist period is compared: with the
// runtime's source saying it cannot stream, the period the kubelet ends up
// at is the restored 1s, not the gate-on 5m; and events received over a
// stream from a runtime that cannot stream contradict it.
func TestRuntimeThatCannotStreamDecidesThePeriod(t *testing.T) {
	m := scrape("v1.36.1", 2, 1, 42, 12, 3310) // a mean of 4m36s, with events
	d := Decide(Input{Gate: gateSet(true), Periods: release36, Metrics: m, Runtime: debian16})
	if d.Expected != FellBack || d.Relist.Expected != "1s" || d.Verdict != Inconsistent {
		t.Errorf("expected %q at %q, verdict %q; want fell-back at 1s, inconsistent", d.Expected, d.Relist.Expected, d.Verdict)
	}
	var disagree []Reason
	for _, r := range d.Reasons {
		if r.Agrees != nil && !*r.Agrees {
			disagree = append(disagree, r)
		}
	}
	checkClaims(t, "disagreeing", disagree, []string{
		"an event stream to the runtime is open",
		"received 42 container events over an event stream, but containerd 1.6.20~ds1 cannot stream",
		"far from the 1s the kubelet relists at once the stream is given up",
	})
	// The same scrape without the runtime: a stream is open, the events
	// came, the relist is at 5m: evented.
	d = Decide(Input{Gate: gateSet(true), Periods: release36, Metrics: m})
	if d.Verdict != Evented || d.Relist.Expected != "5m0s" {
		t.Errorf("without the runtime: verdict %q at %q; want evented at 5m0s", d.Verdict, d.Relist.Expected)
	}
	if t.Failed() {
		logReasons(t, d)
	}
}

// Before the kubelet's PLEGs have relisted once, no stream has been tried:
// that is not a contradiction of the gate.
func TestBeforeThePLEGsStart(t *testing.T) {
	m := scrape("v1.36.5", 0, 0, 0, 0, 0)
	for _, tc := range []struct {
		rt   *Runtime
		want string
	}{{nil, Evented}, {streaming2, Evented}, {debian16, FellBack}} {
		d := Decide(Input{Gate: gateOnAt("v1.36.5"), Periods: release36, Metrics: m, Runtime: tc.rt})
		if d.Verdict != tc.want {
			t.Errorf("runtime %v: verdict %q; want %q", tc.rt != nil, d.Verdict, tc.want)
			logReasons(t, d)
		}
	}
	// Once a relist has finished, a stream that was never tried is.
	m.RelistDuration = hist(1, 0.002)
	if d := Decide(Input{Gate: gateOnAt("v1.36.5"), Periods: release36, Metrics: m, Runtime: streaming2}); d.Verdict != Inconsistent {
		t.Errorf("after a relist, no stream tried: verdict %q; want inconsistent", d.Verdict)
	}
}

// What the success counter counts: stream clients obtained, not streams
// that worked. No claim reads it as streams obtained from the runtime.
func TestSuccessCounterWords(t *testing.T) {
	d := Decide(Input{Gate: gateSet(true), Periods: release36, Metrics: scrape("v1.36.1", 5, 5, 0, 3000, 3010)})
	checkNoClaim(t, d, "obtained event streams")
	said := false
	for _, r := range d.Reasons {
		said = said || strings.Contains(r.Evidence, "counts the stream clients the kubelet obtained, before any event is received")
	}
	if !said {
		t.Error("no evidence says what kubelet_evented_pleg_connection_success_count counts")
		logReasons(t, d)
	}
}

// configured, expected, points and agrees mean what their doc says: a
// fell-back report is configured evented, expects fell-back, and its
// reasons about what the kubelet does point to the generic PLEG and agree.
func TestReasonMeaning(t *testing.T) {
	d := Decide(Input{Gate: gateSet(true), Periods: release36, Metrics: scrape("v1.36.5", 5, 5, 0, 66, 60.4), Runtime: debian16})
	if d.Configured != Evented || d.Expected != FellBack || d.Verdict != FellBack {
		t.Fatalf("configured %q, expected %q, verdict %q", d.Configured, d.Expected, d.Verdict)
	}
	for _, r := range d.Reasons {
		switch {
		case r.Agrees == nil:
		case !*r.Agrees:
			t.Errorf("a reason disagrees with fell-back: %s", r.Claim)
		case strings.HasPrefix(r.Claim, "EventedPLEG is on") || strings.HasPrefix(r.Claim, "the kubelet reports EventedPLEG"):
			if r.Points != Evented {
				t.Errorf("the gate's reason %q points to %q; want evented, the mode it configures", r.Claim, r.Points)
			}
		default:
			if r.Points != Generic {
				t.Errorf("%q points to %q; want generic, the PLEG at work once the stream is given up", r.Claim, r.Points)
			}
		}
	}
}

// A kubelet that does not say its release (built without version
// ldflags) is read at the source's version, and the report says so.
func TestVersionUnknown(t *testing.T) {
	g := gateOnAt("v1.37.2")
	g.VersionUnknown = `kubernetes_build_info{git_version="v0.0.0-master+$Format:%H$"}: not a release`
	m := scrape("v0.0.0-master+$Format:%H$", 5, 5, 0, 7, 7.02)
	d := Decide(Input{Gate: g, Periods: release37, Metrics: m})
	checkSays(t, d, "the kubelet does not say which release it was built from: the gate's default is read at v1.37.2")
	checkNoClaim(t, d, "not at the v0.0.0")
}

// checkSays requires a note whose claim says want (nothing when "").
func checkSays(t *testing.T, d Decision, want string) {
	t.Helper()
	if want == "" {
		return
	}
	for _, r := range d.Reasons {
		if r.Agrees == nil && strings.Contains(r.Claim, want) {
			return
		}
	}
	t.Errorf("no note says %q", want)
}

// checkNoClaim requires that no claim says any of words.
func checkNoClaim(t *testing.T, d Decision, words ...string) {
	t.Helper()
	for _, r := range d.Reasons {
		for _, w := range words {
			if strings.Contains(r.Claim, w) {
				t.Errorf("a claim says %q: %s", w, r.Claim)
			}
		}
	}
}

func logReasons(t *testing.T, d Decision) {
	t.Helper()
	for _, r := range d.Reasons {
		t.Logf("%s [%s] %s: %s", agreesText(r.Agrees), r.Points, r.Claim, r.Evidence)
	}
}
