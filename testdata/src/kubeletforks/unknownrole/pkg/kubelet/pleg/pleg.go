// Package pleg is a fork whose evented PLEG only logs the runtime's
// container events: it sends no lifecycle event and asks for no relist,
// a design plegvet knows no word for. When the stream fails for good it
// gives the generic PLEG back its fast relist.
package pleg

import (
	"errors"
	"log"
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
	Update(d *RelistDuration)
	RequestRelist(podID string)
}

type GenericPLEG struct {
	events         chan *PodLifecycleEvent
	relistDuration *RelistDuration
	asked          chan string
	lastRelist     time.Time
}

func NewGenericPLEG(events chan *PodLifecycleEvent, relistDuration *RelistDuration) PodLifecycleEventGenerator { // want NewGenericPLEG:"generic PLEG, period arg 1.RelistPeriod, threshold arg 1.RelistThreshold, loop Reset"
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
func (g *GenericPLEG) Update(d *RelistDuration)       { g.relistDuration = d }
func (g *GenericPLEG) RequestRelist(podID string)     { g.asked <- podID }

func (g *GenericPLEG) Healthy() (bool, error) {
	if time.Since(g.lastRelist) > g.relistDuration.RelistThreshold {
		return false, errors.New("the relist is late")
	}
	return true, nil
}

type EventedPLEG struct {
	runtime  cri.RuntimeService
	generic  PodLifecycleEventGenerator
	retries  int
	fallback *RelistDuration
}

func NewEventedPLEG(runtime cri.RuntimeService, generic PodLifecycleEventGenerator, retries int, fallback *RelistDuration) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 2, fallback arg 3, role unknown, on stream failure restore-generic-relist"
	return &EventedPLEG{runtime: runtime, generic: generic, retries: retries, fallback: fallback}
}

func (e *EventedPLEG) Start() {
	ch := make(chan *cri.ContainerEvent)
	go func() {
		for ev := range ch {
			log.Printf("container %s of pod %s: event %d", ev.ContainerID, ev.PodID, ev.ContainerEventType)
		}
	}()
	go func() {
		failed := 0
		for {
			if e.retries <= failed {
				e.generic.Update(e.fallback)
				return
			}
			if e.runtime.GetContainerEvents(ch) != nil {
				failed++
			}
		}
	}()
}

// RequestRelist is never called from Start: it is not what the event
// loop does.
func (e *EventedPLEG) RequestRelist(podID string) { e.generic.RequestRelist(podID) }
