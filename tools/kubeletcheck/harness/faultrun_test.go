package harness

import (
	"testing"
	"time"
)

// TestReadySettled holds the lag CI met on a real run (TestRuntimeSlow,
// 40s): Ready turned True between two rounds and KubeletRuntimeHung was
// still firing when the next round read the alerts, since the rule had
// not yet been evaluated on kube-state-metrics' new sample.
func TestReadySettled(t *testing.T) {
	run := &FaultRun{Every: 10 * time.Second}
	lag := run.AlertsLag()
	if lag != 21*time.Second {
		t.Fatalf("AlertsLag() = %v, want a scrape, an evaluation and the transition's rounding: 21s", lag)
	}
	turned := time.Date(2026, 12, 7, 10, 26, 6, 0, time.UTC)
	round := func(status string, after time.Duration) *Round {
		r := &Round{}
		r.Ready = Condition{Status: status, Transition: turned, At: turned.Add(after)}
		r.AlertsAt = turned.Add(after)
		return r
	}
	for _, c := range []struct {
		status string
		after  time.Duration
		want   bool
	}{
		{"True", 5 * time.Second, false},
		{"True", 21 * time.Second, false},
		{"True", 22 * time.Second, true},
		{"False", time.Minute, false},
		{"Unknown", time.Minute, false},
	} {
		if got := round(c.status, c.after).ReadySettled(lag); got != c.want {
			t.Errorf("Ready %s for %v: settled %v, want %v", c.status, c.after, got, c.want)
		}
	}
	untimed := &Round{}
	untimed.Ready = Condition{Status: "True"}
	if !untimed.ReadySettled(lag) {
		t.Errorf("Ready True with no transition time: not settled, want settled (no time to excuse an alert by)")
	}
}
