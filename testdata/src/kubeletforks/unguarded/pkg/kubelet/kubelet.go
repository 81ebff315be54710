// Package kubelet builds the unguarded fork's PLEGs, the evented one under
// the gate, and registers both PLEGs' health.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/relisttrigger/cri"
	"kubeletforks/unguarded/pkg/kubelet/pleg"
)

type Kubelet struct {
	generic *pleg.GenericPLEG
	evented *pleg.EventedPLEG
	checks  map[string]func() (bool, error)
}

func (kl *Kubelet) register(name string, check func() (bool, error)) { kl.checks[name] = check }

func NewMainKubelet(runtime cri.RuntimeService) *Kubelet {
	kl := &Kubelet{checks: map[string]func() (bool, error){}}
	kl.generic = pleg.NewGenericPLEG(make(chan *pleg.PodLifecycleEvent, 10), &pleg.RelistDuration{RelistPeriod: 2 * time.Second, RelistThreshold: time.Minute})
	kl.register("relist", kl.generic.Healthy)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		kl.evented = pleg.NewEventedPLEG(runtime, kl.generic, 3)
		kl.register("stream", kl.evented.Healthy)
	}
	return kl
}
