package render

import (
	"testing"

	"github.com/plegvet/plegvet/answer"
)

// The hang's consequence is worded from the values read: the collectors'
// CRI calls, the deadline (or its default), the node status call, the
// runtime-down and PLEG thresholds.
func TestHangConsequence(t *testing.T) {
	reach := []answer.Reach{{Method: "RuntimeService.ListPodSandbox"}}
	hang := func(endpoint string, reaches []answer.Reach, deflt string) *answer.RuntimeHang {
		h := &answer.RuntimeHang{RuntimeDown: &answer.Value{Value: "30s"}, NodeStatus: &answer.NodeStatusCall{Method: "Runtime.Version"}}
		h.Collectors = append(h.Collectors, answer.HangCollector{Endpoint: endpoint, Reaches: reaches})
		h.Deadline = &answer.Deadline{Setting: "runtimeRequestTimeout", Value: &answer.Value{Unresolved: "a field"}, Default: &answer.Value{Value: deflt}}
		return h
	}
	pleg := []answer.HealthRule{{Name: "PLEG", Threshold: threshold("3m0s", "", "")}}
	tests := []struct {
		name string
		hang *answer.RuntimeHang
		want string
	}{{
		name: "dark, NotReady at the deadline",
		hang: hang("/metrics", reach, "2m0s"),
		want: "A runtime that stops answering: /metrics goes dark from the first scrape, its collectors waiting on the runtime; the node turns NotReady after about 2m0s (the CRI deadline, runtimeRequestTimeout), the time the node status update waits on Runtime.Version, not 30s (the runtime-down threshold); the PLEG is unhealthy at 3m0s.",
	}, {
		name: "another deadline, no CRI call at a scrape",
		hang: hang("/metrics", nil, "1m30s"),
		want: "A runtime that stops answering: plegvet found no collector of /metrics that calls the runtime; the node turns NotReady after about 1m30s (the CRI deadline, runtimeRequestTimeout), the time the node status update waits on Runtime.Version, not 30s (the runtime-down threshold); the PLEG is unhealthy at 3m0s.",
	}, {
		name: "a call the client does not bound",
		hang: func() *answer.RuntimeHang {
			h := hang("/metrics", reach, "2m0s")
			h.Deadline.PerCall = []answer.PerCall{{Method: "RuntimeService.ListContainerStats"}, {Method: "RuntimeService.ListPodSandbox", Timeout: "r.timeout"}}
			return h
		}(),
		want: "A runtime that stops answering: /metrics goes dark from the first scrape, its collectors waiting on the runtime (the CRI client puts no timeout on RuntimeService.ListContainerStats: a scrape reaching it waits as long as the runtime hangs); the node turns NotReady after about 2m0s (the CRI deadline, runtimeRequestTimeout), the time the node status update waits on Runtime.Version, not 30s (the runtime-down threshold); the PLEG is unhealthy at 3m0s.",
	}, {
		name: "calls not followed",
		hang: func() *answer.RuntimeHang {
			h := hang("/metrics", nil, "2m0s")
			h.Collectors[0].Unresolved = []answer.HangUnresolved{{Why: "not read"}}
			return h
		}(),
		want: "A runtime that stops answering: plegvet could not tell whether /metrics waits on the runtime: no collector's calls reached a CRI call, and 1 call was not followed; the node turns NotReady after about 2m0s (the CRI deadline, runtimeRequestTimeout), the time the node status update waits on Runtime.Version, not 30s (the runtime-down threshold); the PLEG is unhealthy at 3m0s.",
	}, {
		name: "another registry, no default read",
		hang: hang("", reach, ""),
		want: "A runtime that stops answering: plegvet found no collector of /metrics that calls the runtime; the runtime is declared down after 30s; the PLEG is unhealthy at 3m0s.",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &answer.Report{Health: &answer.Health{Checks: pleg, RuntimeHang: tc.hang}}
			if got := HangConsequence(r); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	if got := HangConsequence(&answer.Report{Health: &answer.Health{}}); got != "" {
		t.Errorf("no hang read: %q", got)
	}
}
