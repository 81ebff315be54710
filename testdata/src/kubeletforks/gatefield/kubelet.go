// Package gatefield keeps the gate's answer in a field of the kubelet,
// set where the kubelet is made (and again on reload), and tests the
// field in a method.
package gatefield

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

type Kubelet struct {
	streamEvents bool
	relist       pleg.PodLifecycleEventGenerator
	stream       pleg.PodLifecycleEventGenerator
}

func NewMainKubelet(source pleg.EventSource) *Kubelet {
	klet := &Kubelet{streamEvents: utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG)}
	klet.setupPLEG(source)
	return klet
}

func (kl *Kubelet) reloadGates() {
	kl.streamEvents = utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG)
}

func (kl *Kubelet) setupPLEG(source pleg.EventSource) {
	if !kl.streamEvents {
		kl.relist = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now)
		return
	}
	slow := &pleg.RelistDuration{RelistPeriod: 90 * time.Second, RelistThreshold: 5 * time.Minute}
	kl.relist = pleg.NewGenericPLEG(nil, slow, time.Now)
	kl.stream, _ = pleg.NewEventedPLEG(source, kl.relist, 5, slow) // want `after the event stream fails for good the relist stays at 1m30s, the period the evented PLEG restores, slower than the gate-off 1s`
}
