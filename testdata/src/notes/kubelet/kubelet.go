// Package kubelet is the v1.26 shape again, to see the gate's note.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func New(source pleg.EventSource) (g, e pleg.PodLifecycleEventGenerator) {
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) { // want `EventedPLEG \(Alpha, default false\): generic relist 1s -> 5m0s when on \(x300\)`
		g = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 300 * time.Second, RelistThreshold: 10 * time.Minute}, time.Now)
		e, _ = pleg.NewEventedPLEG(source, g, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
		return g, e
	}
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now), nil
}
