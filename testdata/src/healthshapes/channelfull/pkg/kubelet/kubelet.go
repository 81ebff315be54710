// Package kubelet is a look-alike of pkg/kubelet of v1.26 to v1.36, for
// the health rule: a slower limit with the gate on, and a second check on
// the evented PLEG under the gate.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"

	"healthshapes/channelfull/pkg/kubelet/pleg"
	"healthshapes/nodestatus"
)

const (
	eventBuffer = 640

	fastPeriod = time.Second
	fastLimit  = 2 * time.Minute
	slowPeriod = 4 * time.Minute
	slowLimit  = 8 * time.Minute
	tries      = 6

	statusGrace = 20 * time.Second
)

type Kubelet struct {
	generic, evented pleg.PodLifecycleEventGenerator
	state            *runtimeState
	ready            func() (bool, string)
}

func New(rt pleg.Runtime, s pleg.Stream) *Kubelet {
	kl := &Kubelet{}
	events := make(chan *pleg.Event, eventBuffer)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		kl.generic = pleg.NewGenericPLEG(rt, events, &pleg.Durations{Period: slowPeriod, Limit: slowLimit})
		restore := &pleg.Durations{Period: fastPeriod, Limit: fastLimit}
		kl.evented = pleg.NewEventedPLEG(s, kl.generic, events, tries, restore)
	} else {
		kl.generic = pleg.NewGenericPLEG(rt, events, &pleg.Durations{Period: fastPeriod, Limit: fastLimit})
	}
	kl.state = startState(statusGrace)
	kl.state.addHealthCheck("PLEG", kl.generic.Healthy)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		kl.state.addHealthCheck("EventedPLEG", kl.evented.Healthy)
	}
	kl.ready = nodestatus.ReadyCondition(time.Now, kl.state.runtimeErrors)
	return kl
}

func (kl *Kubelet) run(sync func()) {
	for {
		if err := kl.state.runtimeErrors(); err != nil {
			note("Skipping a sync: unhealthy", err)
			time.Sleep(time.Second)
			continue
		}
		sync()
	}
}

func note(msg string, err error) {}
