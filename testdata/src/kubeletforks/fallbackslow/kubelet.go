// Package fallbackslow is a fork whose evented PLEG restores the slow
// safety-net period, not the gate-off one, when the stream fails.
package fallbackslow

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const (
	fast = time.Second
	slow = 300 * time.Second
)

func New(source pleg.EventSource) (g, e pleg.PodLifecycleEventGenerator) {
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		safetyNet := &pleg.RelistDuration{RelistPeriod: slow, RelistThreshold: 10 * time.Minute}
		g = pleg.NewGenericPLEG(nil, safetyNet, time.Now)
		e, _ = pleg.NewEventedPLEG(source, g, 5, safetyNet) // want `after the event stream fails for good the relist stays at 5m0s \(slow\), the period the evented PLEG restores, slower than the gate-off 1s \(fast\)`
		return g, e
	}
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: fast, RelistThreshold: 3 * time.Minute}, time.Now), nil
}
