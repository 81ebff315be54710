// Package pleg is a fork whose evented PLEG, once its stream has failed
// too often, hands its durations to a callback the kubelet installs:
// where they end is decided at run time, and plegvet must say so.
package pleg

import (
	"time"

	"kubeletforks/relisttrigger/cri"
)

type PodLifecycleEvent struct{ PodID string }

type GenericPLEG struct {
	events chan *PodLifecycleEvent
	every  time.Duration
}

func NewGenericPLEG(events chan *PodLifecycleEvent, period time.Duration) *GenericPLEG { // want NewGenericPLEG:"generic PLEG, period arg 1, loop Reset"
	return &GenericPLEG{events: events, every: period}
}

func (g *GenericPLEG) Start() {
	go func() {
		t := time.NewTimer(0)
		for range t.C {
			t.Reset(g.every)
		}
	}()
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }

type EventedPLEG struct {
	runtime  cri.RuntimeService
	events   chan *PodLifecycleEvent
	onGiveUp func(period, threshold time.Duration)
	period   time.Duration
	late     time.Duration
	retries  int
}

func NewEventedPLEG(runtime cri.RuntimeService, events chan *PodLifecycleEvent, onGiveUp func(period, threshold time.Duration), period, threshold time.Duration, retries int) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 5, role event-source, emits events, on stream failure unknown"
	return &EventedPLEG{runtime: runtime, events: events, onGiveUp: onGiveUp, period: period, late: threshold, retries: retries}
}

func (e *EventedPLEG) Start() { go e.watch() }

func (e *EventedPLEG) watch() {
	for failed := 0; failed < e.retries; {
		ch := make(chan *cri.ContainerEvent, 8)
		go e.forward(ch)
		if e.runtime.GetContainerEvents(ch) != nil {
			failed++
		}
	}
	e.onGiveUp(e.period, e.late) // want `what NewEventedPLEG hands the generic PLEG once its stream has failed for good could not be followed: e.onGiveUp at pleg.go:57 hands over e.period, which plegvet could not follow to a field of GenericPLEG: it is a call of a function value; plegvet cannot say which relist remains`
}

func (e *EventedPLEG) forward(ch chan *cri.ContainerEvent) {
	for ev := range ch {
		e.events <- &PodLifecycleEvent{PodID: ev.PodID}
	}
}
