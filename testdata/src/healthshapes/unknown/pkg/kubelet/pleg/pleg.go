// Package pleg is a fork's PLEG whose health method counts failed relists
// rather than timing them: a shape plegvet does not know.
package pleg

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

type PodLifecycleEventGenerator interface {
	Start()
	Healthy() (bool, error)
}

type GenericPLEG struct {
	every    time.Duration
	failures int
}

func NewGenericPLEG(every time.Duration) PodLifecycleEventGenerator {
	return &GenericPLEG{every: every}
}

func (g *GenericPLEG) Start() { go wait.Until(g.relist, g.every, nil) }

func (g *GenericPLEG) relist() { g.failures = 0 }

func (g *GenericPLEG) Healthy() (bool, error) {
	if g.failures > 3 {
		return false, errors.New("relist failed too often")
	}
	return true, nil
}
