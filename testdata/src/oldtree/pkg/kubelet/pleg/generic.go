// Package pleg is a look-alike of the PLEG package before v1.26: one
// generic PLEG, its period a bare duration, its threshold a constant.
package pleg

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

const relistThreshold = 3 * time.Minute

type PodLifecycleEvent struct{ ID string }

type PodLifecycleEventGenerator interface {
	Start()
	Healthy() (bool, error)
}

type GenericPLEG struct {
	relistPeriod time.Duration
	events       chan *PodLifecycleEvent
	lastRelist   time.Time
}

func NewGenericPLEG(capacity int, relistPeriod time.Duration) PodLifecycleEventGenerator { // want NewGenericPLEG:"generic PLEG, period arg 1, threshold const relistThreshold, loop wait.Until"
	return &GenericPLEG{relistPeriod: relistPeriod, events: make(chan *PodLifecycleEvent, capacity)}
}

func (g *GenericPLEG) Start() { go wait.Until(g.relist, g.relistPeriod, nil) }

func (g *GenericPLEG) relist() { g.lastRelist = time.Now() }

func (g *GenericPLEG) Healthy() (bool, error) {
	if elapsed := time.Since(g.lastRelist); elapsed > relistThreshold {
		return false, errors.New("relist is late")
	}
	return true, nil
}
