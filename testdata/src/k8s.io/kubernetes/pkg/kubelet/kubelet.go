// Package kubelet is a look-alike of pkg/kubelet's PLEG wiring in the
// shape of v1.26 to v1.36: the generic PLEG built in both branches of the
// gate, slower when the evented PLEG runs beside it.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const (
	genericPlegRelistPeriod    = time.Second * 1
	genericPlegRelistThreshold = time.Minute * 3

	eventedPlegRelistPeriod     = time.Second * 300
	eventedPlegRelistThreshold  = time.Minute * 10
	eventedPlegMaxStreamRetries = 5
)

type Kubelet struct {
	pleg, eventedPleg pleg.PodLifecycleEventGenerator
	runtime           pleg.EventSource
}

func NewMainKubelet(runtime pleg.EventSource) (*Kubelet, error) {
	kl := &Kubelet{runtime: runtime}
	events := make(chan *pleg.PodLifecycleEvent, 1000)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		genericRelistDuration := &pleg.RelistDuration{RelistPeriod: eventedPlegRelistPeriod, RelistThreshold: eventedPlegRelistThreshold}
		kl.pleg = pleg.NewGenericPLEG(events, genericRelistDuration, time.Now)
		eventedRelistDuration := &pleg.RelistDuration{RelistPeriod: genericPlegRelistPeriod, RelistThreshold: genericPlegRelistThreshold}
		var err error
		kl.eventedPleg, err = pleg.NewEventedPLEG(kl.runtime, kl.pleg, eventedPlegMaxStreamRetries, eventedRelistDuration)
		if err != nil {
			return nil, err
		}
	} else {
		genericRelistDuration := &pleg.RelistDuration{RelistPeriod: genericPlegRelistPeriod, RelistThreshold: genericPlegRelistThreshold}
		kl.pleg = pleg.NewGenericPLEG(events, genericRelistDuration, time.Now)
	}
	return kl, nil
}

// runtimeState holds the health checks the kubelet's readiness depends on.
type runtimeState struct {
	checks map[string]func() (bool, error)
}

func (s *runtimeState) addHealthCheck(name string, check func() (bool, error)) {
	s.checks[name] = check
}

// registerHealthChecks registers each PLEG's health: the evented PLEG's
// only when it is built.
func (kl *Kubelet) registerHealthChecks(s *runtimeState) {
	s.addHealthCheck("PLEG", kl.pleg.Healthy)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		s.addHealthCheck("EventedPLEG", kl.eventedPleg.Healthy)
	}
}
