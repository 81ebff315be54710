// Package zeroperiod is a fork whose safety-net relist has period zero.
package zeroperiod

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const disabledPeriod time.Duration = 0

func New(source pleg.EventSource) (g, e pleg.PodLifecycleEventGenerator) {
	events := make(chan *pleg.PodLifecycleEvent)
	if !utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		return pleg.NewGenericPLEG(events, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now), nil
	}
	g = pleg.NewGenericPLEG(events, &pleg.RelistDuration{RelistPeriod: disabledPeriod, RelistThreshold: time.Hour}, time.Now) // want `with EventedPLEG on, the generic relist period is 0s \(disabledPeriod\)`
	e, _ = pleg.NewEventedPLEG(source, g, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
	return g, e
}
