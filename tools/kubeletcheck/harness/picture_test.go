package harness

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// syntheticRun is a hung run of 200 s in 10 s rounds, from 20 s before
// to 60 s after: /metrics times out from +10 s, Ready turns False with
// the runtime down at +50 s and names the PLEG at +190 s, PLEGUnhealthy
// pending at +120 s and firing at +150 s; the kubelet logs the runtime
// down at +45.5 s and the PLEG unhealthy at +181.25 s.
func syntheticRun() *FaultRun {
	t0 := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	run := &FaultRun{Release: "v1.37.2", Fault: FrozenPast(PLEGThreshold), Every: 10 * time.Second, Took: 5 * time.Minute,
		Frozen: t0, Thawed: at(200), Rules: "groups: []\n"}
	for i, s := 0, -20.0; s <= 260; i, s = i+1, s+10 {
		r := Round{Series: map[string][]Sample{}}
		r.Index, r.Start, r.AlertsAt = i, at(s), at(s+0.002)
		r.MetricsAnswer = Answer{Path: "/metrics", Start: r.Start, Took: 100 * time.Millisecond, Timeout: 10 * time.Second, Status: 200}
		up := "1"
		if s >= 10 && s < 200 {
			r.MetricsAnswer = Answer{Path: "/metrics", Start: r.Start, Took: 10 * time.Second, Timeout: 10 * time.Second, Err: "context deadline exceeded", TimedOut: true}
			r.Err = errors.New(r.MetricsAnswer.Err)
			up = "0"
		} else {
			seen := min(s, 3) - 2
			if s >= 200 {
				seen = s - 1
			}
			r.Metrics = []byte(fmt.Sprintf("kubelet_pleg_last_seen_seconds %d\n%s %d\n", at(seen).Unix(), MetricRelists, 30+i))
		}
		r.End = r.Start.Add(r.MetricsAnswer.Took)
		r.Answers = []Answer{{Path: "/metrics/cadvisor", Start: r.Start, Took: 50 * time.Millisecond, Timeout: 10 * time.Second, Status: 200}}
		r.Series[Queries[0]] = []Sample{{Metric: map[string]string{"metrics_path": "/metrics"}, Value: [2]any{1.0, up}}}
		r.Series[Queries[1]] = []Sample{{Metric: map[string]string{"metrics_path": "/metrics"}, Value: [2]any{1.0, "0.1"}}}
		r.Ready = Condition{At: at(s + 0.001), Status: "True", Reason: "KubeletReady", Message: "kubelet is posting ready status"}
		switch {
		case s >= 190 && s < 210:
			r.Ready = Condition{At: at(s + 0.001), Status: "False", Reason: "KubeletNotReady", Message: "PLEG is not healthy: pleg was last seen active 3m10s ago; threshold is 3m0s"}
		case s >= 50 && s < 210:
			r.Ready = Condition{At: at(s + 0.001), Status: "False", Reason: "KubeletNotReady", Message: "container runtime is down"}
		}
		switch {
		case s >= 120 && s < 150:
			r.Alerts = []Alert{{Name: "PLEGUnhealthy", State: "pending", ActiveAt: at(115)}}
		case s >= 150 && s < 220:
			r.Alerts = []Alert{{Name: "PLEGUnhealthy", State: "firing", ActiveAt: at(115)}}
		}
		run.Rounds = append(run.Rounds, r)
	}
	logged := func(s float64, text string) LogLine {
		t := at(s)
		raw := fmt.Sprintf("E%s %d kubelet.go:2697] %s", t.Format("0102 15:04:05.000000"), 1234, text)
		return LogLine{Time: t, Severity: "E", Source: "kubelet.go:2697", Text: text, Raw: raw}
	}
	run.Log = []LogLine{
		logged(45.5, `"Skipping pod synchronization" err="container runtime is down"`),
		logged(181.25, `"Skipping pod synchronization" err="[container runtime is down, PLEG is not healthy: pleg was last seen active 3m1.25s ago; threshold is 3m0s]"`),
	}
	return run
}

// svgPath is one path of a picture: its points' x, its style.
type svgPath struct {
	xs    []float64
	style string
}

var pathPoint = regexp.MustCompile(`[MLQC]([-0-9.e]+),([-0-9.e]+)`)

// pictureMarks parses a picture as XML and returns the x extents of the
// fault's shade, one per part, and the x of each moment mark.
func pictureMarks(t *testing.T, svg []byte) (shades [][2]float64, marks []float64) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var paths []svgPath
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the picture does not parse as XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok || el.Name.Local != "path" {
			continue
		}
		var p svgPath
		for _, a := range el.Attr {
			switch a.Name.Local {
			case "style":
				p.style = a.Value
			case "d":
				for _, m := range pathPoint.FindAllStringSubmatch(a.Value, -1) {
					x, _ := strconv.ParseFloat(m[1], 64)
					p.xs = append(p.xs, x)
				}
			}
		}
		paths = append(paths, p)
	}
	hex := func(c [3]uint8) string { return fmt.Sprintf("#%02X%02X%02X", c[0], c[1], c[2]) }
	shade := "fill:" + hex([3]uint8{ColorFaultShade.R, ColorFaultShade.G, ColorFaultShade.B})
	mark := "stroke:" + hex([3]uint8{ColorMoment.R, ColorMoment.G, ColorMoment.B})
	for _, p := range paths {
		switch {
		case strings.Contains(p.style, shade):
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, x := range p.xs {
				lo, hi = min(lo, x), max(hi, x)
			}
			shades = append(shades, [2]float64{lo, hi})
		case strings.Contains(p.style, mark):
			// A lane's marks are one path, a move and a line each.
			if len(p.xs)%2 != 0 {
				t.Errorf("the moments' marks are no pairs of points: %v", p.xs)
			}
			for i := 0; i+1 < len(p.xs); i += 2 {
				if p.xs[i] != p.xs[i+1] {
					t.Errorf("a moment's mark is not upright: %v", p.xs[i:i+2])
				}
				marks = append(marks, p.xs[i])
			}
		}
	}
	return shades, marks
}

// checkMarks checks that the picture's marks are the table's times: the
// fault's shade, in both parts alike, gives where 0 s and the fault's
// end are on the x axis; each row of the moment-by-moment table with a
// time has a mark where that axis puts its seconds, and no mark stands
// elsewhere.
func checkMarks(t *testing.T, run *FaultRun, tl *FaultTimeline) {
	t.Helper()
	svg, err := Picture(run, tl)
	if err != nil {
		t.Fatal(err)
	}
	shades, marks := pictureMarks(t, svg)
	if len(shades) != 2 || shades[0] != shades[1] {
		t.Fatalf("the fault's shade: %v, want one per part, at the same x", shades)
	}
	x0, x1 := shades[0][0], shades[0][1]
	length := run.Thawed.Sub(run.Frozen).Seconds()
	xOf := func(s float64) float64 { return x0 + s/length*(x1-x0) }
	const within = 0.02 // points: the SVG's five digits
	want := map[float64]string{}
	for _, r := range tl.Rows(run.Fault.Describe()) {
		if r.At.IsZero() {
			continue
		}
		s := r.At.Sub(run.Frozen).Seconds()
		found := false
		for _, m := range marks {
			found = found || math.Abs(m-xOf(s)) <= within
		}
		if !found {
			t.Errorf("the row %q at %+.1fs has no mark at x %.2f (marks at %v)", r.What, s, xOf(s), marks)
		}
		want[s] = r.What
	}
	for _, m := range marks {
		ok := false
		for s := range want {
			ok = ok || math.Abs(m-xOf(s)) <= within
		}
		if !ok {
			t.Errorf("a mark at x %.2f (%+.1fs) is no row's", m, (m-x0)/(x1-x0)*length)
		}
	}
	if len(marks) != len(want) {
		t.Errorf("%d marks for %d rows' times", len(marks), len(want))
	}
}

// Each moment of the table is a mark at its seconds on the picture's
// axis: a run built here.
func TestPictureMarksTheTable(t *testing.T) {
	run := syntheticRun()
	tl := run.Timeline([]string{AlertUnhealthy})
	if tl.ReadyPLEG == nil || tl.Logged[PLEGUnhealthy] == nil || tl.Alerts[0].Firing == nil {
		t.Fatalf("the synthetic run lacks a moment: %+v", tl)
	}
	checkMarks(t, run, tl)
}

// A saved real run, trimmed (testdata/saved/runtime-slow-1m0s: v1.37.2,
// every CRI call delayed by 1m0s, saved by an older Save without
// run.json), loads back with the moments docs/runtime-slow.md measured,
// and its picture marks them.
func TestPictureOfASavedRun(t *testing.T) {
	run, lost, err := LoadRun(filepath.Join("testdata", "saved", "runtime-slow-1m0s"))
	if err != nil {
		t.Fatal(err)
	}
	if run.Fault.Kind != FaultLatency || run.Fault.Latency != time.Minute || run.Fault.Least != 6*time.Minute+30*time.Second || run.Every != 10*time.Second {
		t.Errorf("the fault %+v, round %s: want 1m0s for 6m30s, 10s rounds", run.Fault, run.Every)
	}
	if len(lost) == 0 || !strings.HasPrefix(lost[0], savedRunFile) {
		t.Errorf("lost %q: want run.json first", lost)
	}
	tl := run.Timeline([]string{AlertUnhealthy, "KubeletMetricsDark", AlertRuntimeHung})
	after := func(at time.Time) string { return fmt.Sprintf("%+.1fs", at.Sub(run.Frozen).Seconds()) }
	if tl.ReadyFalse == nil || after(tl.ReadyFalse.Ready.At) != "+209.1s" || tl.Logged[PLEGUnhealthy] == nil || after(tl.Logged[PLEGUnhealthy].Time) != "+203.9s" {
		t.Errorf("Ready False %v, PLEG logged %v: want +209.1s and +203.9s, as docs/runtime-slow.md measured", tl.ReadyFalse, tl.Logged[PLEGUnhealthy])
	}
	if age, lines := run.LongestPLEGAge(); age.Round(100*time.Millisecond) != 4*time.Minute+600*time.Millisecond || lines == 0 {
		t.Errorf("LongestPLEGAge %s (%d lines): want 240.6s", age, lines)
	}
	checkMarks(t, run, tl)
}

// What Save writes, LoadRun reads back: the same timeline, nothing lost.
func TestLoadRunReadsSave(t *testing.T) {
	run := syntheticRun()
	dir := t.TempDir()
	if err := run.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, lost, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) > 0 {
		t.Errorf("lost %q", lost)
	}
	if back.Release != run.Release || back.Fault != run.Fault || back.Every != run.Every || back.Took != run.Took || back.Rules != run.Rules {
		t.Errorf("loaded %s %+v %s %s, want %s %+v %s %s", back.Release, back.Fault, back.Every, back.Took, run.Release, run.Fault, run.Every, run.Took)
	}
	names := []string{AlertUnhealthy}
	if got, want := back.Timeline(names).Rows(back.Fault.Describe()), run.Timeline(names).Rows(run.Fault.Describe()); !reflect.DeepEqual(got, want) {
		t.Errorf("the loaded run's rows:\n%v\nwant:\n%v", got, want)
	}
	a, b := run.Endpoints(), back.Endpoints()
	if !reflect.DeepEqual(a, b) {
		t.Errorf("the loaded run's endpoints %+v, want %+v", b, a)
	}
	if _, err := os.Stat(filepath.Join(dir, savedRunFile)); err != nil {
		t.Error(err)
	}
}

// An older save has no run.json: its directory's name (Name) says the
// fault and the gates set on.
func TestFaultNamed(t *testing.T) {
	for name, want := range map[string]struct {
		kind    FaultKind
		latency time.Duration
		gates   map[string]bool
	}{
		"runtime-hung":                {FaultFrozen, 0, nil},
		"runtime-hung-eventedpleg":    {FaultFrozen, 0, map[string]bool{"EventedPLEG": true}},
		"pleg-unhealthy":              {FaultStopped, 0, nil},
		"runtime-slow-call":           {FaultHeld, 0, nil},
		"runtime-slow-1m0s":           {FaultLatency, time.Minute, nil},
		"runtime-slow-6s-eventedpleg": {FaultLatency, 6 * time.Second, map[string]bool{"EventedPLEG": true}},
	} {
		f, gates := faultNamed(name, 391*time.Second)
		if f.Kind != want.kind || f.Latency != want.latency || !reflect.DeepEqual(gates, want.gates) {
			t.Errorf("faultNamed(%q) = %+v %v, want %s %s %v", name, f, gates, want.kind, want.latency, want.gates)
		}
		if f.Kind == FaultLatency && f.Least != 390*time.Second {
			t.Errorf("faultNamed(%q): lasts %s, want 6m30s", name, f.Least)
		}
	}
}
