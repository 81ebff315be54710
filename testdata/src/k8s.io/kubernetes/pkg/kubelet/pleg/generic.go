package pleg

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

type GenericPLEG struct { // lists every container on a period and diffs
	events         chan *PodLifecycleEvent
	relistDuration *RelistDuration
	lastRelist     time.Time
	stopCh         chan struct{}
	cache          PodCache
}

// NewGenericPLEG builds a relisting PLEG.
func NewGenericPLEG(events chan *PodLifecycleEvent, relistDuration *RelistDuration, now func() time.Time) PodLifecycleEventGenerator { // want NewGenericPLEG:"generic PLEG, period arg 1.RelistPeriod, threshold arg 1.RelistThreshold, loop wait.Until"
	return &GenericPLEG{events: events, relistDuration: relistDuration, lastRelist: now(), cache: newPodCache()}
}

func (g *GenericPLEG) Start() {
	g.stopCh = make(chan struct{})
	go wait.Until(g.Relist, g.relistDuration.RelistPeriod, g.stopCh)
}

func (g *GenericPLEG) Stop() { close(g.stopCh) }

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }

func (g *GenericPLEG) Relist() { g.lastRelist = time.Now(); g.relistPod("") }

// Update must not be called while the PLEG runs: Start reads the period once.
func (g *GenericPLEG) Update(d *RelistDuration) { g.relistDuration = d }

func (g *GenericPLEG) Healthy() (bool, error) {
	elapsed := time.Since(g.lastRelist)
	if elapsed > g.relistDuration.RelistThreshold {
		return false, fmt.Errorf("relist is late: last relist %v ago; threshold is %v", elapsed, g.relistDuration.RelistThreshold)
	}
	return true, nil
}

// relistPod records what the relist found of a pod, and tells the kubelet
// when it changed.
func (g *GenericPLEG) relistPod(podID string) {
	if g.cache.Set(podID, "seen") {
		g.events <- &PodLifecycleEvent{ID: podID}
	}
}
