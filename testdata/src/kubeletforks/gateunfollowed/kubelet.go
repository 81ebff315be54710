// Package gateunfollowed decides the evented PLEG on a field its caller
// sets: no gate test can be found behind it, and plegvet must say so
// rather than answer that no evented PLEG is built.
package gateunfollowed

import (
	"time"

	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

type Kubelet struct {
	streamEvents bool
	relist       pleg.PodLifecycleEventGenerator
	stream       pleg.PodLifecycleEventGenerator
}

func NewMainKubelet(source pleg.EventSource, streamEvents bool) *Kubelet {
	klet := &Kubelet{}
	klet.streamEvents = streamEvents
	klet.setupPLEG(source)
	return klet
}

func (kl *Kubelet) setupPLEG(source pleg.EventSource) {
	if kl.streamEvents { // want `the gate test kl.streamEvents deciding the evented PLEG at kubelet.go:28 could not be followed: field streamEvents is assigned streamEvents, and streamEvents is a parameter of NewMainKubelet: its callers decide it; plegvet cannot say which PLEG runs`
		kl.relist = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 5 * time.Minute, RelistThreshold: 10 * time.Minute}, time.Now)
		kl.stream, _ = pleg.NewEventedPLEG(source, kl.relist, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
		return
	}
	kl.relist = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now)
}
