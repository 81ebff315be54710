// Package netgone is a fork that stopped building the generic PLEG when
// the evented one runs.
package netgone

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func New(source pleg.EventSource) pleg.PodLifecycleEventGenerator {
	events := make(chan *pleg.PodLifecycleEvent)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) { // want `with EventedPLEG on, no generic PLEG relists`
		p, _ := pleg.NewEventedPLEG(source, nil, 5, nil)
		return p
	}
	return pleg.NewGenericPLEG(events, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now)
}
