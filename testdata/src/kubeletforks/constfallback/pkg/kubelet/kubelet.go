// Package kubelet builds the constfallback fork's PLEGs.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/constfallback/pkg/kubelet/pleg"
	"kubeletforks/relisttrigger/cri"
)

func NewMainKubelet(runtime cri.RuntimeService) (pleg.Relister, *pleg.EventedPLEG) {
	events := make(chan *pleg.PodLifecycleEvent, 10)
	if !utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		return pleg.NewGenericPLEG(events, time.Second), nil
	}
	generic := pleg.NewGenericPLEG(events, time.Minute)
	return generic, pleg.NewEventedPLEG(runtime, generic, 3) // want `with EventedPLEG on, after the event stream fails for good the relist stays at 2s \(recoveryPeriod\), the period the evented PLEG restores, slower than the gate-off 1s`
}
