package render

import (
	"testing"
	"time"

	"github.com/plegvet/plegvet/answer"
)

// The hang's consequence is worded from the values read: the collectors'
// CRI calls and the conditions they are registered under, the deadline
// (or its default), the node status call, the runtime-down and PLEG
// thresholds, and the ladder's window for when Ready turns False.
func TestHangConsequence(t *testing.T) {
	reach := []answer.Reach{{Method: "RuntimeService.ListPodSandbox"}}
	hang := func(endpoint string, reaches []answer.Reach, deflt string) *answer.RuntimeHang {
		h := &answer.RuntimeHang{RuntimeDown: &answer.Value{Value: "30s"}, NodeStatus: &answer.NodeStatusCall{Method: "Runtime.Version"}}
		h.Collectors = append(h.Collectors, answer.HangCollector{Endpoint: endpoint, Reaches: reaches})
		h.Deadline = &answer.Deadline{Setting: "runtimeRequestTimeout", Value: &answer.Value{Unresolved: "a field"}, Default: &answer.Value{Value: deflt}}
		return h
	}
	// inputs are the ladder's as the report reads them from hang.
	inputs := func(deadline time.Duration, nodeStatusCalls int) *answer.Ladder {
		return &answer.Ladder{Inputs: answer.LadderInputs{StatusCalls: 1, NodeStatusCalls: nodeStatusCalls, StatusPeriod: 5 * time.Second, RuntimeDown: 30 * time.Second, NodeStatusFrequency: 10 * time.Second, Deadline: deadline}}
	}
	const dark = "A runtime that stops answering: /metrics goes dark from the first scrape, its collectors waiting on the runtime; "
	pleg := []answer.HealthRule{{Name: "PLEG", Threshold: threshold("3m0s", "", "")}}
	tests := []struct {
		name   string
		hang   *answer.RuntimeHang
		ladder *answer.Ladder
		want   string
	}{{
		name: "dark, NotReady once the node status update's wait ends", hang: hang("/metrics", reach, "2m0s"), ladder: inputs(2*time.Minute, 1),
		want: dark + "the node turns NotReady 2m0s to 2m10s after the hang began: the node status update waits 2m0s (the CRI deadline, runtimeRequestTimeout) on Runtime.Version before its Ready condition reads the runtime's errors, declared after 30s; the PLEG is unhealthy at 3m0s.",
	}, {
		// A fork's short deadline: the runtime-down threshold decides, not the deadline.
		name: "a 10s deadline", hang: hang("/metrics", reach, "10s"), ladder: inputs(10*time.Second, 1),
		want: dark + "the node turns NotReady 25s to 50s after the hang began: the runtime is declared down 30s (the runtime-down threshold) after its status was last refreshed, and the node status update, which waits up to 10s (runtimeRequestTimeout) on Runtime.Version, reads it; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "another deadline, no CRI call at a scrape", hang: hang("/metrics", nil, "1m30s"), ladder: inputs(90*time.Second, 1),
		want: "A runtime that stops answering: plegvet found no collector of /metrics that calls the runtime; the node turns NotReady 1m30s to 1m40s after the hang began: the node status update waits 1m30s (the CRI deadline, runtimeRequestTimeout) on Runtime.Version before its Ready condition reads the runtime's errors, declared after 30s; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "a node status update that asks the runtime nothing",
		hang: func() *answer.RuntimeHang { h := hang("/metrics", reach, "2m0s"); h.NodeStatus = nil; return h }(), ladder: inputs(2*time.Minute, 0),
		want: dark + "the node turns NotReady 25s to 40s after the hang began: the runtime is declared down 30s (the runtime-down threshold) after its status was last refreshed, and the node status update, which waits on no runtime call plegvet found, reads it every 10s; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "no runtime-down threshold",
		hang: func() *answer.RuntimeHang { h := hang("/metrics", reach, "2m0s"); h.RuntimeDown = nil; return h }(), ladder: inputs(2*time.Minute, 1),
		want: dark + "plegvet read no runtime-down threshold the Ready condition holds the runtime's status to: when the runtime's errors turn the node NotReady is not known, only the PLEG's threshold below; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "a collector registered under a gate",
		hang: func() *answer.RuntimeHang {
			h := hang("/metrics", reach, "2m0s")
			h.Collectors[0].When = "utilfeature.DefaultFeatureGate.Enabled(features.X)"
			return h
		}(), ladder: inputs(2*time.Minute, 1),
		want: "A runtime that stops answering: /metrics goes dark from the first scrape when utilfeature.DefaultFeatureGate.Enabled(features.X) holds (the only registrations of collectors that call the runtime run under it); the node turns NotReady 2m0s to 2m10s after the hang began: the node status update waits 2m0s (the CRI deadline, runtimeRequestTimeout) on Runtime.Version before its Ready condition reads the runtime's errors, declared after 30s; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "a collector never registered",
		hang: func() *answer.RuntimeHang {
			h := hang("/metrics", reach, "2m0s")
			h.Collectors[0].When, h.Collectors[0].Never = "false", true
			return h
		}(), ladder: inputs(2*time.Minute, 1),
		want: "A runtime that stops answering: /metrics does not wait on the runtime: the 1 collector(s) that call it are registered under a condition that is always false; the node turns NotReady 2m0s to 2m10s after the hang began: the node status update waits 2m0s (the CRI deadline, runtimeRequestTimeout) on Runtime.Version before its Ready condition reads the runtime's errors, declared after 30s; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "a call the client does not bound",
		hang: func() *answer.RuntimeHang {
			h := hang("/metrics", reach, "2m0s")
			h.Deadline.PerCall = []answer.PerCall{{Method: "RuntimeService.ListContainerStats"}, {Method: "RuntimeService.ListPodSandbox", Timeout: "r.timeout"}}
			return h
		}(), ladder: inputs(2*time.Minute, 1),
		want: "A runtime that stops answering: /metrics goes dark from the first scrape, its collectors waiting on the runtime (the CRI client puts no timeout on RuntimeService.ListContainerStats: a scrape reaching it waits as long as the runtime hangs); the node turns NotReady 2m0s to 2m10s after the hang began: the node status update waits 2m0s (the CRI deadline, runtimeRequestTimeout) on Runtime.Version before its Ready condition reads the runtime's errors, declared after 30s; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "calls not followed",
		hang: func() *answer.RuntimeHang {
			h := hang("/metrics", nil, "2m0s")
			h.Collectors[0].Unresolved = []answer.HangUnresolved{{Why: "not read"}}
			return h
		}(), ladder: inputs(2*time.Minute, 1),
		want: "A runtime that stops answering: plegvet could not tell whether /metrics waits on the runtime: no collector's calls reached a CRI call, and 1 call was not followed; the node turns NotReady 2m0s to 2m10s after the hang began: the node status update waits 2m0s (the CRI deadline, runtimeRequestTimeout) on Runtime.Version before its Ready condition reads the runtime's errors, declared after 30s; the PLEG is unhealthy at 3m0s.",
	}, {
		name: "another registry, no default read", hang: hang("", reach, ""), ladder: inputs(0, 1),
		want: "A runtime that stops answering: plegvet found no collector of /metrics that calls the runtime; the runtime is declared down after 30s; when the node status update reads it is not known (the CRI deadline not read); the PLEG is unhealthy at 3m0s.",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &answer.Report{Health: &answer.Health{Checks: pleg, RuntimeHang: tc.hang, Ladder: tc.ladder}}
			if got := HangConsequence(r); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if got := HangConsequence(&answer.Report{Health: &answer.Health{}}); got != "" {
		t.Errorf("no hang read: %q", got)
	}
}
