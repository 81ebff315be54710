// Package pleg is a look-alike of the PLEG package after v1.36: the
// generic PLEG relists on a timer, and the evented PLEG only watches the
// stream and asks for relists; it restores no period when the stream fails.
package pleg

import (
	"errors"
	"time"
)

type RelistDuration struct {
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
}

type PodLifecycleEventGenerator interface {
	Start()
	Healthy() (bool, error)
}

type GenericPLEG struct {
	relistDuration *RelistDuration
	timer          *time.Timer
	lastRelist     time.Time
}

func NewGenericPLEG(relistDuration *RelistDuration) PodLifecycleEventGenerator { // want NewGenericPLEG:"generic PLEG, period arg 0.RelistPeriod, threshold arg 0.RelistThreshold, loop Reset"
	return &GenericPLEG{relistDuration: relistDuration}
}

func (g *GenericPLEG) Start() {
	g.timer = time.NewTimer(0)
	go func() {
		for range g.timer.C {
			g.lastRelist = time.Now()
			g.timer.Reset(g.relistDuration.RelistPeriod)
		}
	}()
}

func (g *GenericPLEG) Healthy() (bool, error) {
	if time.Since(g.lastRelist) > g.relistDuration.RelistThreshold {
		return false, errors.New("relist is late")
	}
	return true, nil
}

type EventSource interface {
	GetContainerEvents(ch chan string) error
}

type EventedPLEG struct {
	source     EventSource
	maxRetries int
}

func NewEventedPLEG(source EventSource, maxRetries int) *EventedPLEG { // want NewEventedPLEG:"evented PLEG, retries arg 1"
	return &EventedPLEG{source: source, maxRetries: maxRetries}
}

func (e *EventedPLEG) Start() {
	attempts := 0
	for attempts < e.maxRetries {
		if err := e.source.GetContainerEvents(make(chan string)); err != nil {
			attempts++
		}
	}
}
