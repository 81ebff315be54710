package nodesource_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/nodeverdict"
)

// The real v1.37.2 kubelet whose every CRI call the harness delayed by
// 1s while 100 static pods started at once
// (nodeverdict/testdata/real/v1.37.2/runtime-overload-1s-100pods): far
// below the PLEG's rung with no pod changing (44.75s per call), yet one
// relist inspected 97 pods one after another (moments.json, from the
// kubelet's "PLEG: Write status" lines), the kubelet said its PLEG last
// active 3m17s ago and Ready turned False naming it. The index's ladder
// must predict that: past its threshold with 97 pods changing at 1s per
// call (and from 88 on), not without them; and plegvet node, given the
// Node object naming the PLEG, names the overload.
func TestOverloadPastThePLEGRung(t *testing.T) {
	c := loadLadderCapture(t, "v1.37.2", "runtime-overload-1s-100pods")
	var moments struct {
		Latency     string `json:"latency"`
		Pods        int    `json:"pods"`
		Inspections []struct {
			Pods int `json:"pods"`
		} `json:"inspections"`
	}
	if err := json.Unmarshal(c.file("moments.json"), &moments); err != nil {
		t.Fatal(err)
	}
	lat, err := time.ParseDuration(moments.Latency)
	if err != nil || moments.Pods != 100 {
		t.Fatalf("moments.json: latency %q, %d pods", moments.Latency, moments.Pods)
	}
	busiest := 0
	for _, i := range moments.Inspections {
		busiest = max(busiest, i.Pods)
	}
	// The kubelet's own word: the oldest "last seen active" it logged.
	var oldest time.Duration
	for _, m := range regexp.MustCompile(`last seen active ([0-9.a-zµ]+) ago`).FindAllStringSubmatch(string(c.file("kubelet.log")), -1) {
		if d, err := time.ParseDuration(m[1]); err == nil {
			oldest = max(oldest, d)
		}
	}
	l := ladder.Compute(*c.src.Ladder, busiest)
	threshold := c.src.Ladder.RelistThreshold
	if busiest == 0 || oldest <= threshold {
		t.Fatalf("the capture shows %d pods in one relist and a PLEG last active %s ago; want some, past %s", busiest, oldest, threshold)
	}
	// Within two calls of the latency: the kubelet measures from the
	// relist's start to its health check, the ladder to the next store.
	if got := l.HealthAge(lat, busiest); got < oldest-2*lat || got > oldest+2*lat {
		t.Errorf("the ladder's worst age with %d pods changing at %s per call is %s; the kubelet said %s", busiest, lat, got, oldest)
	}
	if on, _ := l.Place(lat); on == nil || on.Name != ladder.RungPLEG {
		t.Errorf("with %d pods changing at %s per call the ladder places the runtime on %v, want %s", busiest, lat, on, ladder.RungPLEG)
	}
	if on, _ := ladder.Compute(*c.src.Ladder, 0).Place(lat); on != nil {
		t.Errorf("with no pod changing at %s per call the ladder places the runtime on %s, want no rung", lat, on.Name)
	}
	n, ok := l.Overload(lat)
	if !ok || n > busiest {
		t.Errorf("the ladder's overload at %s per call is %d (%t); %d pods passed the threshold", lat, n, ok, busiest)
	}
	h := c.decide(nil, c.file("metrics-error.txt"), c.node("node-pleg.json"), "2026-12-07T11:09:15Z")
	all := strings.Join(h.Evidence, "\n")
	if h.State != nodeverdict.Unhealthy || h.Runtime == nodeverdict.RuntimeHung {
		t.Errorf("Ready False for the PLEG: %s, runtime %s\n%s", h.State, h.Runtime, all)
	}
	if want := "at 1s per call, 88 pods changing at once"; !strings.Contains(all, want) {
		t.Errorf("the evidence does not name the overload (%q):\n%s", want, all)
	}
}
