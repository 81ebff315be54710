// Package pleg is a fork whose evented PLEG asks for a relist on every
// container event, whatever its type, and whose generic PLEG tests no gate
// before it queues the request. The evented PLEG watches while retries
// remain, then stops.
package pleg

import (
	"errors"
	"time"

	"kubeletforks/relisttrigger/cri"
)

type RelistDuration struct {
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
}

type PodLifecycleEvent struct{ PodID string }

type PodLifecycleEventGenerator interface {
	Start()
	Watch() chan *PodLifecycleEvent
	Healthy() (bool, error)
}

type GenericPLEG struct {
	events         chan *PodLifecycleEvent
	relistDuration *RelistDuration
	asked          chan string
	lastRelist     time.Time
}

func NewGenericPLEG(events chan *PodLifecycleEvent, relistDuration *RelistDuration) *GenericPLEG { // want NewGenericPLEG:"generic PLEG, period arg 1.RelistPeriod, threshold arg 1.RelistThreshold, loop Reset"
	return &GenericPLEG{events: events, relistDuration: relistDuration, asked: make(chan string, 8)}
}

func (g *GenericPLEG) Start() {
	go func() {
		tick := time.NewTimer(0)
		for {
			select {
			case <-tick.C:
				g.lastRelist = time.Now()
				tick.Reset(g.relistDuration.RelistPeriod)
			case id := <-g.asked:
				g.events <- &PodLifecycleEvent{PodID: id}
			}
		}
	}()
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }

func (g *GenericPLEG) Healthy() (bool, error) {
	if time.Since(g.lastRelist) > g.relistDuration.RelistThreshold {
		return false, errors.New("the relist is late")
	}
	return true, nil
}

// Reconsider queues a pod for an early relist.
func (g *GenericPLEG) Reconsider(podID string) { g.asked <- podID }

// EventedPLEG holds the generic PLEG itself, not through an interface.
type EventedPLEG struct {
	runtime cri.RuntimeService
	generic *GenericPLEG
	retries int
}

func NewEventedPLEG(runtime cri.RuntimeService, generic *GenericPLEG, retries int) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 2, role relist-trigger, requests relist GenericPLEG.Reconsider for \\[all\\], on stream failure stop-watching"
	return &EventedPLEG{runtime: runtime, generic: generic, retries: retries}
}

func (e *EventedPLEG) Start() {
	ch := make(chan *cri.ContainerEvent)
	go e.forward(ch)
	go func() {
		for attempts := 0; attempts < e.retries; attempts++ {
			_ = e.runtime.GetContainerEvents(ch)
		}
	}()
}

func (e *EventedPLEG) forward(ch chan *cri.ContainerEvent) {
	for ev := range ch {
		e.generic.Reconsider(ev.PodID)
	}
}

// Healthy reports whether events still arrive; the fork checks nothing.
func (e *EventedPLEG) Healthy() (bool, error) { return true, nil }
