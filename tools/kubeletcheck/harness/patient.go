package harness

import (
	"context"
	"time"
)

// Patient is a patient /metrics request, with the relist's counter and
// gauge its answer gave (0 without one).
type Patient struct {
	Answer
	Relists  float64 `json:"relists,omitempty"`
	LastSeen float64 `json:"kubeletPlegLastSeenSeconds,omitempty"`
}

// PatientServedPaths are the kubelet server's paths besides /metrics
// whose requests wait on the runtime, each asked patiently through a
// fault (FaultRun.PatientPaths).
var PatientServedPaths = []string{"/metrics/resource", "/stats/summary"}

// patient asks /metrics, and each of PatientServedPaths, with no timeout
// short of 5m, one request after another per path (Every apart), from
// the fault on until a request starts after it ended: how long a
// request that waits waits.
func (h *FaultScenario) patient(ctx context.Context, n *Node, run *FaultRun, watched *rounds[Round]) {
	for _, path := range append([]string{"/metrics"}, PatientServedPaths...) {
		watched.goLoop(func(done <-chan struct{}) {
			for {
				a := n.Kubelet.Get(ctx, path, 5*time.Minute)
				watched.Lock()
				if path == "/metrics" {
					p := Patient{Answer: a}
					if a.OK() {
						p.Relists = metricValue(a.Body, MetricRelists)
						p.LastSeen = metricValue(a.Body, "kubelet_pleg_last_seen_seconds")
					}
					p.Body = nil
					run.Patient = append(run.Patient, p)
				} else {
					a.Body = nil
					run.PatientPaths = append(run.PatientPaths, a)
				}
				over := !run.Thawed.IsZero() && a.Start.After(run.Thawed)
				watched.Unlock()
				select {
				case <-done:
					return
				default:
				}
				if over {
					return
				}
				time.Sleep(h.Every)
			}
		})
	}
}
