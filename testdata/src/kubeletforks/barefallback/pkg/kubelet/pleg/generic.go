// Package pleg is a fork whose PLEGs take their relist period and health
// threshold as two bare durations, and whose evented PLEG, once its
// stream has failed too often, hands the generic PLEG's own period back
// through a method taking both.
package pleg

import (
	"errors"
	"time"

	"kubeletforks/relisttrigger/cri"
)

type PodLifecycleEvent struct{ PodID string }

type PodLifecycleEventGenerator interface {
	Start()
	Watch() chan *PodLifecycleEvent
	Healthy() (bool, error)
	Relist()
	Update(period, threshold time.Duration)
}

type podCache struct{ seen map[string]bool }

func (c *podCache) Set(podID string) { c.seen[podID] = true }

type GenericPLEG struct {
	runtime    cri.RuntimeService
	events     chan *PodLifecycleEvent
	cache      *podCache
	every      time.Duration
	lateAfter  time.Duration
	lastRelist time.Time
}

func NewGenericPLEG(runtime cri.RuntimeService, events chan *PodLifecycleEvent, period, threshold time.Duration) PodLifecycleEventGenerator { // want NewGenericPLEG:"generic PLEG, period arg 2, threshold arg 3, loop Reset"
	return &GenericPLEG{runtime: runtime, events: events, cache: &podCache{seen: map[string]bool{}}, every: period, lateAfter: threshold}
}

func (g *GenericPLEG) Start() {
	go func() {
		t := time.NewTimer(0)
		for range t.C {
			g.Relist()
			t.Reset(g.every)
		}
	}()
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }

// Relist lists the runtime's pods and records each in the cache.
func (g *GenericPLEG) Relist() {
	g.lastRelist = time.Now()
	pods, err := g.runtime.ListPods()
	if err != nil {
		return
	}
	for _, id := range pods {
		g.cache.Set(id)
	}
}

// Update changes how often the PLEG relists, and how late a relist may
// be before the PLEG is unhealthy.
func (g *GenericPLEG) Update(period, threshold time.Duration) {
	g.every = period
	g.lateAfter = threshold
}

func (g *GenericPLEG) Healthy() (bool, error) {
	if time.Since(g.lastRelist) > g.lateAfter {
		return false, errors.New("relist is late")
	}
	return true, nil
}
