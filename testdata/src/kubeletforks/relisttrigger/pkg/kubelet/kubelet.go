// Package kubelet builds a fork's PLEGs in the shape of v1.37: the generic
// PLEG always, the evented watcher beside it when the gate is on, and a
// health check for the generic PLEG only.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/relisttrigger/cri"
	"kubeletforks/relisttrigger/pkg/kubelet/pleg"
	"kubeletforks/relisttrigger/podcache"
)

const (
	relistPeriod    = time.Second
	relistThreshold = 3 * time.Minute
	streamRetries   = 5
)

type healthChecks map[string]func() (bool, error)

func (h healthChecks) add(name string, check func() (bool, error)) { h[name] = check }

type Kubelet struct {
	pleg    pleg.PodLifecycleEventGenerator
	watcher *pleg.EventedPLEG
	health  healthChecks
}

func NewMainKubelet(runtime cri.RuntimeService) *Kubelet {
	kl := &Kubelet{health: healthChecks{}}
	events := make(chan *pleg.PodLifecycleEvent, 100)
	kl.pleg = pleg.NewGenericPLEG(runtime, events, &pleg.RelistDuration{RelistPeriod: relistPeriod, RelistThreshold: relistThreshold}, podcache.New())
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		kl.watcher = pleg.NewEventedPLEG(runtime, kl.pleg, streamRetries)
	}
	kl.health.add("PLEG", kl.pleg.Healthy)
	return kl
}
