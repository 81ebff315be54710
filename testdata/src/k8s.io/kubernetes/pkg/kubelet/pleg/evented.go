package pleg

// ContainerEvent is one event of the runtime's stream.
type ContainerEvent struct{ ContainerID string }

// EventSource is the runtime side of the stream.
type EventSource interface {
	GetContainerEvents(ch chan *ContainerEvent) error
}

// EventedPLEG turns the runtime's event stream into pod events.
type EventedPLEG struct {
	source     EventSource
	generic    PodLifecycleEventGenerator
	maxRetries int
	fallback   *RelistDuration
	events     chan *PodLifecycleEvent
}

// NewEventedPLEG builds a PLEG on the event stream; after maxRetries
// failed streams it gives the generic PLEG back its fallback period.
func NewEventedPLEG(source EventSource, generic PodLifecycleEventGenerator, maxRetries int, fallback *RelistDuration) (PodLifecycleEventGenerator, error) { // want NewEventedPLEG:"evented PLEG, retries arg 2, fallback arg 3"
	return &EventedPLEG{source: source, generic: generic, maxRetries: maxRetries, fallback: fallback}, nil
}

func (e *EventedPLEG) Start() { go e.watch() }

func (e *EventedPLEG) watch() {
	ch := make(chan *ContainerEvent)
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
