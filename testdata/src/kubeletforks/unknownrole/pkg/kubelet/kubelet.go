// Package kubelet builds the unknownrole fork's PLEGs.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/relisttrigger/cri"
	"kubeletforks/unknownrole/pkg/kubelet/pleg"
)

func NewMainKubelet(runtime cri.RuntimeService) (pleg.PodLifecycleEventGenerator, *pleg.EventedPLEG) {
	fast := &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}
	if !utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		return pleg.NewGenericPLEG(make(chan *pleg.PodLifecycleEvent, 10), fast), nil
	}
	generic := pleg.NewGenericPLEG(make(chan *pleg.PodLifecycleEvent, 10), &pleg.RelistDuration{RelistPeriod: time.Minute, RelistThreshold: 5 * time.Minute})
	return generic, pleg.NewEventedPLEG(runtime, generic, 4, fast)
}
