// Package pleg is a look-alike of the PLEG package before v1.26, for the
// health rule: one generic PLEG, its staleness limit a constant here.
package pleg

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// staleAfter is how long the PLEG may go without a finished pass.
const staleAfter = 4 * time.Minute

type Event struct{ Pod string }

type state string

type Pod struct {
	ID    string
	State state
}

// Runtime lists what runs on the node.
type Runtime interface {
	ListAll(all bool) ([]*Pod, error)
}

type PodLifecycleEventGenerator interface {
	Start()
	Healthy() (bool, error)
}

type GenericPLEG struct {
	runtime Runtime
	every   time.Duration
	last    time.Time
	seen    map[string]state
	out     chan *Event
}

func NewGenericPLEG(rt Runtime, capacity int, every time.Duration) PodLifecycleEventGenerator {
	return &GenericPLEG{runtime: rt, every: every, seen: map[string]state{}, out: make(chan *Event, capacity)}
}

func (g *GenericPLEG) Start() { go wait.Until(g.pass, g.every, nil) }

// pass reads every pod and reports what changed since the last pass.
func (g *GenericPLEG) pass() {
	pods, err := g.runtime.ListAll(true)
	if err != nil {
		return
	}
	g.last = time.Now()
	for _, p := range pods {
		for _, ev := range diff(p.ID, g.seen[p.ID], p.State) {
			g.out <- ev
		}
		g.seen[p.ID] = p.State
	}
}

func diff(id string, before, after state) []*Event {
	if after == before {
		return nil
	}
	return []*Event{{Pod: id}}
}

func (g *GenericPLEG) Healthy() (bool, error) {
	if g.last.IsZero() {
		return false, errors.New("no pass has finished yet")
	}
	if since := time.Since(g.last); since > staleAfter {
		return false, fmt.Errorf("last pass finished %v ago, limit %v", since, staleAfter)
	}
	return true, nil
}
