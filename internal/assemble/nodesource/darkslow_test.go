package nodesource_test

import (
	"strings"
	"testing"

	"github.com/plegvet/plegvet/nodeverdict"
)

// The real v1.37.2 kubelet whose every CRI call the harness delayed by
// 1m0s (nodeverdict/testdata/real/v1.37.2/runtime-slow-1m0s): past the
// ladder's pleg-unhealthy rung (44.75s per call) and short of its
// deadline. /metrics timed out from +8.9s; Ready stayed True until
// +209s, then turned False naming the PLEG alone ("pleg was last seen
// active 3m23s ago"), its runtime-up check passing then. Decided from
// plegvet's index: unhealthy in the kubelet's words, the runtime not
// called hung (its status calls answered), and the evidence placing the
// PLEG's failure on the ladder's rung, every call slow past it, beside
// the one call held; while Ready is True, at-risk.
func TestDarkSlowPastThePLEGRung(t *testing.T) {
	c := loadLadderCapture(t, "v1.37.2", "runtime-slow-1m0s")
	decide := func(failureFile, nodeFile, at string) nodeverdict.Health {
		t.Helper()
		return c.decide(nil, c.file(failureFile), c.node(nodeFile), at)
	}
	// Round 22 (+199s): /metrics timed out, Ready still True.
	h := decide("rounds/022/metrics-error.txt", "rounds/022/node.json", "2026-12-07T07:40:19.306769565Z")
	if h.State != nodeverdict.AtRisk || h.Runtime == nodeverdict.RuntimeHung {
		t.Errorf("Ready True 3m19s into the dark: %s, runtime %s\n%s", h.State, h.Runtime, strings.Join(h.Evidence, "\n"))
	}
	// +209s: Ready False, naming the PLEG alone.
	h = decide("rounds/022/metrics-error.txt", "node-pleg.json", "2026-12-07T07:40:29.35Z")
	all := strings.Join(h.Evidence, "\n")
	if h.State != nodeverdict.Unhealthy || !strings.HasPrefix(h.Message, "PLEG is not healthy: pleg was last seen active") || h.Runtime == nodeverdict.RuntimeHung {
		t.Errorf("Ready False for the PLEG: %s, runtime %s, message %q\n%s", h.State, h.Runtime, h.Message, all)
	}
	for _, want := range []string{"not hung whole", "pleg-unhealthy rung (from 44.75s per call"} {
		if !strings.Contains(all, want) {
			t.Errorf("Ready False for the PLEG: the evidence does not say %q:\n%s", want, all)
		}
	}
}
