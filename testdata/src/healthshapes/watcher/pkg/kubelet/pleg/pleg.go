// Package pleg is a look-alike of the PLEG package after v1.36, for the
// health rule: the generic PLEG alone is checked; the evented watcher
// only asks it to relist, and has no health method.
package pleg

import (
	"fmt"
	"time"
)

type RelistDuration struct {
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
}

type Event struct{ ID string }

type status string

type Container struct {
	ID     string
	Status status
}

type Lister interface {
	Containers(ctx string, all bool) ([]*Container, error)
}

type PodLifecycleEventGenerator interface {
	Start()
	Healthy() (bool, error)
	RequestRelist(id string)
}

type GenericPLEG struct {
	lister   Lister
	duration *RelistDuration
	timer    *time.Timer
	lastOK   time.Time
	known    map[string]status
	events   chan *Event
	requests chan string
}

func NewGenericPLEG(l Lister, events chan *Event, d *RelistDuration) PodLifecycleEventGenerator {
	return &GenericPLEG{lister: l, events: events, duration: d, known: map[string]status{}, requests: make(chan string, 10)}
}

func (g *GenericPLEG) Start() {
	g.timer = time.NewTimer(0)
	go func() {
		for g.iterate() {
		}
	}()
}

func (g *GenericPLEG) iterate() bool {
	select {
	case <-g.timer.C:
		g.Relist()
		g.timer.Reset(g.duration.RelistPeriod)
	case id := <-g.requests:
		_ = id
	}
	return true
}

func (g *GenericPLEG) RequestRelist(id string) { g.requests <- id }

func (g *GenericPLEG) Relist() {
	cs, err := g.lister.Containers("", true)
	if err != nil {
		return
	}
	g.lastOK = time.Now()
	for _, c := range cs {
		for _, ev := range events(c.ID, g.known[c.ID], c.Status) {
			g.events <- ev
		}
		g.known[c.ID] = c.Status
	}
}

func events(id string, was, is status) []*Event {
	if is == was {
		return nil
	}
	return []*Event{{ID: id}}
}

func (g *GenericPLEG) Healthy() (bool, error) {
	if g.lastOK.IsZero() {
		return false, fmt.Errorf("not relisted once")
	}
	if late := time.Since(g.lastOK); late > g.duration.RelistThreshold {
		return false, fmt.Errorf("relisted %v ago; allowed %v", late, g.duration.RelistThreshold)
	}
	return true, nil
}

type Source interface {
	GetContainerEvents(ch chan string) error
}

type EventedPLEG struct {
	source   Source
	relister PodLifecycleEventGenerator
	retries  int
}

func NewEventedPLEG(s Source, r PodLifecycleEventGenerator, retries int) *EventedPLEG {
	return &EventedPLEG{source: s, relister: r, retries: retries}
}

func (e *EventedPLEG) Start() {
	for n := 0; n < e.retries; n++ {
		ch := make(chan string, 1)
		if err := e.source.GetContainerEvents(ch); err == nil {
			e.relister.RequestRelist(<-ch)
		}
	}
}
