package pleg

// ContainerEvent is one event of the runtime's stream.
type ContainerEvent struct{ ContainerID string }

// EventSource is the runtime side of the stream.
type EventSource interface {
	GetContainerEvents(ch chan *ContainerEvent) error
}

type EventedPLEG struct { // turns the runtime's event stream into pod events
	source     EventSource
	generic    PodLifecycleEventGenerator
	maxRetries int
	fallback   *RelistDuration
	events     chan *PodLifecycleEvent
	cache      PodCache
}

// NewEventedPLEG builds a PLEG on the event stream; after maxRetries
// failed streams it gives the generic PLEG back its fallback period.
func NewEventedPLEG(source EventSource, generic PodLifecycleEventGenerator, maxRetries int, fallback *RelistDuration) (PodLifecycleEventGenerator, error) { // want NewEventedPLEG:"evented PLEG, retries arg 2, fallback arg 3, role event-source, emits events, updates pod cache, on stream failure restore-generic-relist"
	return &EventedPLEG{source: source, generic: generic, maxRetries: maxRetries, fallback: fallback, cache: cacheOf(generic)}, nil
}

func (e *EventedPLEG) Start() { go e.watch() }

func (e *EventedPLEG) watch() {
	ch := e.consume()
	failures := 0
	for {
		if failures >= e.maxRetries {
			e.generic.Stop()
			e.Update(e.fallback)
			e.generic.Start()
			return
		}
		if err := e.source.GetContainerEvents(ch); err != nil {
			failures++
			e.Relist()
		}
	}
}

func (e *EventedPLEG) Stop()                          {}
func (e *EventedPLEG) Watch() chan *PodLifecycleEvent { return e.events }
func (e *EventedPLEG) Relist()                        { e.generic.Relist() }
func (e *EventedPLEG) Update(d *RelistDuration)       { e.generic.Update(d) }
func (e *EventedPLEG) Healthy() (bool, error)         { return true, nil }

// consume starts the loop that turns the stream's events into pod
// lifecycle events, and returns the channel it reads them from.
func (e *EventedPLEG) consume() chan *ContainerEvent {
	ch := make(chan *ContainerEvent, cap(e.events))
	go func() {
		for ev := range ch {
			if e.cache.Set(ev.ContainerID, "running") {
				e.emit(&PodLifecycleEvent{ID: ev.ContainerID})
			}
		}
	}()
	return ch
}

// emit hands an event to the kubelet, or drops it when the channel is
// full: the next relist catches up.
func (e *EventedPLEG) emit(ev *PodLifecycleEvent) {
	select {
	case e.events <- ev:
	default:
	}
}

// cacheOf is the pod cache of the generic PLEG, which both PLEGs write.
func cacheOf(generic PodLifecycleEventGenerator) PodCache {
	if g, ok := generic.(*GenericPLEG); ok {
		return g.cache
	}
	return newPodCache()
}
