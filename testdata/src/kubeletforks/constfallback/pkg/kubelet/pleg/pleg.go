// Package pleg is a fork whose evented PLEG, when its stream gives out,
// hands the generic PLEG a period and threshold written at the call, as
// constants of this package, rather than ones it was built with.
package pleg

import (
	"time"

	"kubeletforks/relisttrigger/cri"
)

const (
	recoveryPeriod    = 2 * time.Second
	recoveryThreshold = 4 * time.Minute
)

type PodLifecycleEvent struct{ PodID string }

type Relister interface {
	Watch() chan *PodLifecycleEvent
	Retune(every, lateAfter time.Duration)
}

type GenericPLEG struct {
	events chan *PodLifecycleEvent
	tick   time.Duration
}

func NewGenericPLEG(events chan *PodLifecycleEvent, period time.Duration) Relister { // want NewGenericPLEG:"generic PLEG, period arg 1, loop Reset"
	return &GenericPLEG{events: events, tick: period}
}

func (g *GenericPLEG) Start() {
	go func() {
		t := time.NewTimer(0)
		for range t.C {
			t.Reset(g.tick)
		}
	}()
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent        { return g.events }
func (g *GenericPLEG) Retune(every, lateAfter time.Duration) { g.tick = every }

type EventedPLEG struct {
	runtime cri.RuntimeService
	generic Relister
	limit   int
}

func NewEventedPLEG(runtime cri.RuntimeService, generic Relister, limit int) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 2, role event-source, emits events, on stream failure restore-generic-relist"
	return &EventedPLEG{runtime: runtime, generic: generic, limit: limit}
}

func (e *EventedPLEG) Start() {
	go func() {
		for lost := 0; ; {
			if lost >= e.limit {
				e.generic.Retune(recoveryPeriod, recoveryThreshold)
				return
			}
			ch := make(chan *cri.ContainerEvent, 8)
			go func() {
				for ev := range ch {
					e.generic.Watch() <- &PodLifecycleEvent{PodID: ev.PodID}
				}
			}()
			if e.runtime.GetContainerEvents(ch) != nil {
				lost++
			}
		}
	}()
}
