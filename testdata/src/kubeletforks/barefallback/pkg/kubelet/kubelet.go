// Package kubelet builds the barefallback fork's PLEGs from bare durations.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/barefallback/pkg/kubelet/pleg"
	"kubeletforks/relisttrigger/cri"
)

const (
	quickRelist = time.Second
	quickLate   = 3 * time.Minute
	slowRelist  = 5 * time.Minute
	slowLate    = 10 * time.Minute
)

func NewMainKubelet(runtime cri.RuntimeService) (pleg.PodLifecycleEventGenerator, pleg.PodLifecycleEventGenerator) {
	events := make(chan *pleg.PodLifecycleEvent, 10)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		generic := pleg.NewGenericPLEG(runtime, events, slowRelist, slowLate)
		return generic, pleg.NewEventedPLEG(runtime, generic, events, quickRelist, quickLate)
	}
	return pleg.NewGenericPLEG(runtime, events, quickRelist, quickLate), nil
}
