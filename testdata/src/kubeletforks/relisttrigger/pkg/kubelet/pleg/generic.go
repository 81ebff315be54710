// Package pleg is a fork's PLEG package in the shape of v1.37: the generic
// PLEG alone writes the pod store and sends lifecycle events; it relists
// a pod early on request, when a gate allows; the evented PLEG only asks.
package pleg

import (
	"errors"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/relisttrigger/cri"
	"kubeletforks/relisttrigger/podcache"
)

// RelistDuration is how often to relist, and how late a relist may be.
type RelistDuration struct {
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
}

// PodLifecycleEvent tells the kubelet a pod changed.
type PodLifecycleEvent struct {
	PodID string
	What  string
}

// PodLifecycleEventGenerator is what the kubelet holds a PLEG by.
type PodLifecycleEventGenerator interface {
	Start()
	Watch() chan *PodLifecycleEvent
	Healthy() (bool, error)
	RequestRelist(podID string)
}

// GenericPLEG lists the runtime's pods on a timer, and one pod at a time
// when asked.
type GenericPLEG struct {
	runtime        cri.RuntimeService
	events         chan *PodLifecycleEvent
	relistDuration *RelistDuration
	pods           *podcache.Store
	asked          chan string
	lastRelist     time.Time
}

func NewGenericPLEG(runtime cri.RuntimeService, events chan *PodLifecycleEvent, relistDuration *RelistDuration, pods *podcache.Store) PodLifecycleEventGenerator { // want NewGenericPLEG:"generic PLEG, period arg 2.RelistPeriod, threshold arg 2.RelistThreshold, loop Reset"
	return &GenericPLEG{runtime: runtime, events: events, relistDuration: relistDuration, pods: pods, asked: make(chan string, 32)}
}

func (g *GenericPLEG) Start() { go g.run() }

func (g *GenericPLEG) run() {
	tick := time.NewTimer(0)
	for {
		select {
		case <-tick.C:
			g.relistAll()
			tick.Reset(g.relistDuration.RelistPeriod)
		case podID := <-g.asked:
			g.relistPod(podID)
		}
	}
}

func (g *GenericPLEG) relistAll() {
	ids, err := g.runtime.ListPods()
	if err != nil {
		return
	}
	for _, id := range ids {
		g.relistPod(id)
	}
	g.lastRelist = time.Now()
}

func (g *GenericPLEG) relistPod(podID string) {
	if g.pods.Set(podID, "seen") {
		g.events <- &PodLifecycleEvent{PodID: podID, What: "changed"}
	}
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }

func (g *GenericPLEG) Healthy() (bool, error) {
	if time.Since(g.lastRelist) > g.relistDuration.RelistThreshold {
		return false, errors.New("the relist is late")
	}
	return true, nil
}

// RequestRelist queues a pod for a relist before the next period, when
// the gate allows; a full queue drops the request.
func (g *GenericPLEG) RequestRelist(podID string) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.RelistOnDemand) {
		return
	}
	select {
	case g.asked <- podID:
	default:
	}
}
