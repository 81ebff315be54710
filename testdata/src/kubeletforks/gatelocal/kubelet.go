// Package gatelocal keeps the gate's answer in a local variable and tests
// the variable: the gate must be followed through it.
package gatelocal

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func New(source pleg.EventSource) (g, e pleg.PodLifecycleEventGenerator) {
	useEvents := utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG)
	if useEvents {
		slow := &pleg.RelistDuration{RelistPeriod: 2 * time.Minute, RelistThreshold: 6 * time.Minute}
		g = pleg.NewGenericPLEG(nil, slow, time.Now)
		e, _ = pleg.NewEventedPLEG(source, g, 4, slow) // want `after the event stream fails for good the relist stays at 2m0s, the period the evented PLEG restores, slower than the gate-off 1s`
		return g, e
	}
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now), nil
}
