package pleg

import (
	"log"

	"kubeletforks/relisttrigger/cri"
)

// relister is what the evented PLEG asks relists of.
type relister interface{ RequestRelist(podID string) }

// EventedPLEG watches the runtime's container events; a stopped container
// makes it ask for its pod to be relisted. It sends no lifecycle event.
type EventedPLEG struct {
	runtime  cri.RuntimeService
	relister relister
	retries  int
}

func NewEventedPLEG(runtime cri.RuntimeService, r relister, retries int) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 2, role relist-trigger, requests relist GenericPLEG.RequestRelist for \\[CONTAINER_STOPPED_EVENT\\] gated RelistOnDemand, on stream failure stop-watching"
	return &EventedPLEG{runtime: runtime, relister: r, retries: retries}
}

func (e *EventedPLEG) Start() { go e.watch() }

func (e *EventedPLEG) watch() {
	ch := make(chan *cri.ContainerEvent, 64)
	go func() {
		defer close(ch)
		for failed := 0; ; {
			if failed >= e.retries {
				log.Printf("container events: %d streams failed, no longer watching", failed)
				return
			}
			if err := e.runtime.GetContainerEvents(ch); err != nil {
				failed++
			}
		}
	}()
	for ev := range ch {
		if ev.ContainerEventType != cri.ContainerEventType_CONTAINER_STOPPED_EVENT {
			continue
		}
		e.relister.RequestRelist(ev.PodID)
	}
}
