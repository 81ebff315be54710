// Package droppedfallback keeps the slow safety-net period when the gate
// is on but builds the newer evented PLEG, which restores no period.
package droppedfallback

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"newtree/pkg/kubelet/pleg"
)

func New(source pleg.EventSource) (pleg.PodLifecycleEventGenerator, *pleg.EventedPLEG) {
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		g := pleg.NewGenericPLEG(&pleg.RelistDuration{RelistPeriod: 300 * time.Second, RelistThreshold: 10 * time.Minute})
		return g, pleg.NewEventedPLEG(source, 5) // want `the relist stays at 5m0s, the safety-net period \(the evented PLEG restores no faster relist\), slower than the gate-off 1s`
	}
	return pleg.NewGenericPLEG(&pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}), nil
}
