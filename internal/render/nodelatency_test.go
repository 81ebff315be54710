package render

import (
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

// A slow runtime's answer names its latency per call, the ladder's rung
// it stands on and the next, with its latency; the runtime's state
// follows the health's.
func TestNodeSlowRuntime(t *testing.T) {
	for _, tc := range []struct {
		latency answer.NodeLatency
		want    string
	}{
		{answer.NodeLatency{MinSeconds: 3.0517578125, MaxSeconds: 7.62939453125, Rung: &answer.LadderRung{Name: "metrics-dark", Latency: "2.5s", Seconds: 2.5}, Next: &answer.LadderRung{Name: "runtime-down", Latency: "25s", Seconds: 25}},
			"latency      3.052s to 7.629s per CRI call; on the ladder's metrics-dark rung (from 2.5s), next runtime-down from 25s\n"},
		{answer.NodeLatency{MaxSeconds: 25, Next: &answer.LadderRung{Name: "runtime-down", Latency: "25s", Seconds: 25}},
			"latency      at most 25s per CRI call; below every rung of the ladder, next runtime-down from 25s\n"},
		{answer.NodeLatency{MinSeconds: 25},
			"latency      at least 25s per CRI call; the ladder is not known\n"},
	} {
		l := tc.latency
		rep := &answer.NodeReport{Verdict: answer.Generic, Gate: answer.NodeGate{Name: "EventedPLEG"},
			Health: answer.NodeHealth{State: answer.AtRisk, Runtime: answer.RuntimeStateSlow, Latency: &l, Evidence: []string{}}}
		var b strings.Builder
		if err := Node(&b, rep); err != nil {
			t.Fatal(err)
		}
		// Wrapped to the width: compared word by word.
		words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		if out := b.String(); !strings.Contains(out, "health       at-risk (runtime slow)\n") || !strings.Contains(words(out), words(tc.want)) {
			t.Errorf("want %q in:\n%s", tc.want, out)
		}
	}
}
