// Package pleg is a look-alike of the PLEG package of v1.26 to v1.36, for
// the health rule: the generic PLEG's limit comes with its period, and the
// evented PLEG is unhealthy when its event channel is full.
package pleg

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"healthshapes/metrics"
)

type Durations struct {
	Period time.Duration
	Limit  time.Duration
}

type Event struct{ Pod string }

type phase int

type Pod struct {
	ID    string
	Phase phase
}

// Runtime lists what runs on the node.
type Runtime interface {
	Pods(all bool) ([]*Pod, error)
}

type PodLifecycleEventGenerator interface {
	Start()
	Stop()
	Healthy() (bool, error)
	Update(d *Durations)
}

type GenericPLEG struct {
	runtime   Runtime
	durations *Durations
	out       chan *Event
	done      time.Time
	before    map[string]phase
}

func NewGenericPLEG(rt Runtime, out chan *Event, d *Durations) PodLifecycleEventGenerator {
	return &GenericPLEG{runtime: rt, out: out, durations: d, before: map[string]phase{}}
}

func (g *GenericPLEG) Start()              { go wait.Until(g.Sweep, g.durations.Period, nil) }
func (g *GenericPLEG) Stop()               {}
func (g *GenericPLEG) Update(d *Durations) { g.durations = d }

// Sweep lists every pod, then sends an event for each whose phase moved.
func (g *GenericPLEG) Sweep() {
	all, err := g.runtime.Pods(true)
	if err != nil {
		return
	}
	g.done = time.Now()
	for _, p := range all {
		for _, ev := range compare(p.ID, p.Phase, g.before[p.ID]) {
			g.out <- ev
		}
		g.before[p.ID] = p.Phase
	}
}

func compare(id string, now, then phase) []*Event {
	if then == now {
		return nil
	}
	return []*Event{{Pod: id}}
}

func (g *GenericPLEG) Healthy() (bool, error) {
	if g.done.IsZero() {
		return false, fmt.Errorf("never swept")
	}
	metrics.LastSeen.Set(float64(g.done.Unix()))
	age := time.Since(g.done)
	if age > g.durations.Limit {
		return false, fmt.Errorf("swept %v ago, over %v", age, g.durations.Limit)
	}
	return true, nil
}

// Stream is the runtime's container event stream.
type Stream interface {
	GetContainerEvents(ch chan string) error
}

type EventedPLEG struct {
	stream   Stream
	generic  PodLifecycleEventGenerator
	out      chan *Event
	tries    int
	fallback *Durations
}

func NewEventedPLEG(s Stream, generic PodLifecycleEventGenerator, out chan *Event, tries int, fallback *Durations) PodLifecycleEventGenerator {
	return &EventedPLEG{stream: s, generic: generic, out: out, tries: tries, fallback: fallback}
}

func (e *EventedPLEG) Start() {
	failed := 0
	for failed < e.tries {
		if err := e.stream.GetContainerEvents(make(chan string)); err != nil {
			failed++
		}
	}
	e.generic.Update(e.fallback)
}

func (e *EventedPLEG) Stop()               {}
func (e *EventedPLEG) Update(d *Durations) { e.generic.Update(d) }

func (e *EventedPLEG) Healthy() (bool, error) {
	if len(e.out) == cap(e.out) {
		return false, fmt.Errorf("event channel holds %d events, its capacity", len(e.out))
	}
	metrics.LastSeen.Set(float64(time.Now().Unix()))
	return true, nil
}
