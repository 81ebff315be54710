package pleg

import (
	"time"

	"kubeletforks/relisttrigger/cri"
)

// streamRetries is how many failed streams the evented PLEG takes.
const streamRetries = 5

type EventedPLEG struct {
	runtime         cri.RuntimeService
	generic         PodLifecycleEventGenerator
	events          chan *PodLifecycleEvent
	restorePeriod   time.Duration
	restoreLateness time.Duration
	retries         int
}

// NewEventedPLEG keeps the generic PLEG's usual period and threshold, to
// give them back when the stream cannot be read.
func NewEventedPLEG(runtime cri.RuntimeService, generic PodLifecycleEventGenerator, events chan *PodLifecycleEvent, period, threshold time.Duration) PodLifecycleEventGenerator { // want NewEventedPLEG:"evented PLEG, fallback arg 3, fallback threshold arg 4, role event-source, emits events, on stream failure restore-generic-relist"
	return &EventedPLEG{runtime: runtime, generic: generic, events: events, restorePeriod: period, restoreLateness: threshold, retries: streamRetries}
}

func (e *EventedPLEG) Start() { go e.watch() }

func (e *EventedPLEG) watch() {
	failed := 0
	for {
		if failed >= e.retries {
			e.Update(e.restorePeriod, e.restoreLateness)
			break
		}
		ch := make(chan *cri.ContainerEvent, 8)
		go e.forward(ch)
		if err := e.runtime.GetContainerEvents(ch); err != nil {
			failed++
			e.Relist()
		}
	}
}

func (e *EventedPLEG) forward(ch chan *cri.ContainerEvent) {
	for ev := range ch {
		e.events <- &PodLifecycleEvent{PodID: ev.PodID}
	}
}

func (e *EventedPLEG) Watch() chan *PodLifecycleEvent { return e.events }
func (e *EventedPLEG) Healthy() (bool, error)         { return true, nil }
func (e *EventedPLEG) Relist()                        { e.generic.Relist() }

// Update passes the durations on to the generic PLEG, whose loop uses them.
func (e *EventedPLEG) Update(period, threshold time.Duration) {
	e.generic.Update(period, threshold)
}
