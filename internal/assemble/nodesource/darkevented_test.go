package nodesource_test

import (
	"strings"
	"testing"

	"github.com/plegvet/plegvet/nodeverdict"
)

// The real v1.36.5 kubelet with EventedPLEG on whose containerd was
// frozen 25s after its start (nodeverdict/testdata/real/v1.36.5/
// runtime-hung-eventedpleg), decided from plegvet's index at three
// moments of the hang: Ready True a minute in (at-risk, the runtime not
// yet told hung, and the last-seen gauge not read as the relist's: the
// evented PLEG's check overwrites it); Ready False for the runtime 2m6s
// after the last scrape that answered (hung, in the kubelet's words);
// Ready naming the PLEG at the gate-on threshold, 10m (hung, the
// kubelet's message with its 10m threshold). These pass on the code that
// first read them: they pin the gate-on dark path to a real kubelet.
func TestDarkHungWithEventedPLEG(t *testing.T) {
	capture := loadCapture(t, "v1.36.5", "runtime-hung-eventedpleg")
	failure := capture.file("metrics-error.txt")
	for _, c := range []struct {
		node, at, state, runtime, message string
		says                              []string
	}{
		{"node-ready.json", "2026-12-07T07:56:53Z", nodeverdict.AtRisk, nodeverdict.RuntimeUnanswered, "",
			[]string{"kubelet_pleg_last_seen_seconds proves nothing about the relist with EventedPLEG on", "slow and hung are not yet told apart"}},
		{"node-false.json", "2026-12-07T08:00:00Z", nodeverdict.Unhealthy, nodeverdict.RuntimeHung, "container runtime is down",
			[]string{"2m6.238s after the last scrape that answered", "a hung runtime turns Ready False 2m0s to 2m10s after the hang began"}},
		{"node-pleg.json", "2026-12-07T08:06:40Z", nodeverdict.Unhealthy, nodeverdict.RuntimeHung, "[container runtime is down, PLEG is not healthy: pleg was last seen active 11m11.333616063s ago; threshold is 10m0s]",
			[]string{"the kubelet declared its PLEG unhealthy"}},
	} {
		h := capture.decide(nil, failure, capture.node(c.node), c.at)
		all := strings.Join(h.Evidence, "\n")
		if h.State != c.state || h.Runtime != c.runtime || h.Message != c.message {
			t.Errorf("%s at %s: %s, runtime %s, message %q; want %s, %s, %q\n%s", c.node, c.at, h.State, h.Runtime, h.Message, c.state, c.runtime, c.message, all)
		}
		for _, s := range c.says {
			if !strings.Contains(all, s) {
				t.Errorf("%s at %s: the evidence does not say %q:\n%s", c.node, c.at, s, all)
			}
		}
	}
}
