// Package pleg is a fork whose evented PLEG restores a period it works
// out itself, not one it is built with: plegvet must not say it restores
// none.
package pleg

import (
	"os"
	"time"

	"kubeletforks/relisttrigger/cri"
)

type PodLifecycleEvent struct{ PodID string }

type GenericPLEG struct {
	events chan *PodLifecycleEvent
	pause  time.Duration
}

func NewGenericPLEG(events chan *PodLifecycleEvent, period time.Duration) *GenericPLEG { // want NewGenericPLEG:"generic PLEG, period arg 1, loop Reset"
	return &GenericPLEG{events: events, pause: period}
}

func (g *GenericPLEG) Start() {
	go func() {
		t := time.NewTimer(0)
		for range t.C {
			t.Reset(g.pause)
		}
	}()
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }
func (g *GenericPLEG) SetPause(d time.Duration)       { g.pause = d }

type EventedPLEG struct {
	runtime cri.RuntimeService
	generic *GenericPLEG
	backTo  time.Duration
	most    int
}

// backToFromEnv is the period to go back to, from the environment.
func backToFromEnv() time.Duration {
	d, _ := time.ParseDuration(os.Getenv("PLEG_BACK_TO"))
	return d
}

func NewEventedPLEG(runtime cri.RuntimeService, generic *GenericPLEG, most int) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 2, role event-source, emits events, on stream failure restore-generic-relist"
	return &EventedPLEG{runtime: runtime, generic: generic, backTo: backToFromEnv(), most: most}
}

func (e *EventedPLEG) Start() { go e.run() }

func (e *EventedPLEG) run() {
	for failures := 0; failures < e.most; {
		ch := make(chan *cri.ContainerEvent, 4)
		go e.send(ch)
		if e.runtime.GetContainerEvents(ch) != nil {
			failures++
		}
	}
	e.generic.SetPause(e.backTo) // want `NewEventedPLEG restores a relist period on the generic PLEG once its stream has failed for good, but plegvet could not follow it back to a parameter of NewEventedPLEG or a constant; plegvet cannot say which relist remains`
}

func (e *EventedPLEG) send(ch chan *cri.ContainerEvent) {
	for ev := range ch {
		e.generic.events <- &PodLifecycleEvent{PodID: ev.PodID}
	}
}
