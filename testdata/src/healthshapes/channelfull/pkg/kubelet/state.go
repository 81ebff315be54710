package kubelet

import (
	"errors"
	"fmt"
	"time"
)

type probe struct {
	label string
	check func() (bool, error)
}

type runtimeState struct {
	grace  time.Duration
	synced time.Time
	probes []*probe
}

func startState(grace time.Duration) *runtimeState { return &runtimeState{grace: grace} }

func (s *runtimeState) addHealthCheck(label string, check func() (bool, error)) {
	s.probes = append(s.probes, &probe{label: label, check: check})
}

func (s *runtimeState) runtimeErrors() error {
	var all []error
	if !s.synced.IsZero() && !s.synced.Add(s.grace).After(time.Now()) {
		all = append(all, errors.New("runtime silent too long"))
	}
	for _, p := range s.probes {
		if ok, err := p.check(); !ok {
			all = append(all, fmt.Errorf("%s unhealthy: %v", p.label, err))
		}
	}
	return errors.Join(all...)
}
