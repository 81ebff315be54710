// Package gatehelper moves the gate's test into helper functions of the
// package, one negating the other, and returns early on the negation.
package gatehelper

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func eventsWanted() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG)
}

func pollOnly() bool { return !eventsWanted() }

func New(source pleg.EventSource) pleg.PodLifecycleEventGenerator {
	if pollOnly() { // want `with EventedPLEG on, no generic PLEG relists`
		return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 3 * time.Second, RelistThreshold: 2 * time.Minute}, time.Now)
	}
	e, _ := pleg.NewEventedPLEG(source, nil, 2, nil)
	return e
}
