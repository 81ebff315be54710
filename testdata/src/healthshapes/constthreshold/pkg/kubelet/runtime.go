package kubelet

import (
	"errors"
	"fmt"
	"time"
)

type checkFn func() (bool, error)

type namedCheck struct {
	name string
	fn   checkFn
}

// runtimeState is what the kubelet knows of the runtime's health.
type runtimeState struct {
	lastSync  time.Time
	syncGrace time.Duration
	checks    []namedCheck
}

func newRuntimeState(grace time.Duration) *runtimeState {
	return &runtimeState{syncGrace: grace}
}

func (s *runtimeState) addHealthCheck(name string, fn checkFn) {
	s.checks = append(s.checks, namedCheck{name: name, fn: fn})
}

func (s *runtimeState) runtimeErrors() error {
	var errs []error
	if s.lastSync.IsZero() {
		errs = append(errs, errors.New("runtime not asked yet"))
	} else if !s.lastSync.Add(s.syncGrace).After(time.Now()) {
		errs = append(errs, errors.New("runtime unreachable"))
	}
	for _, c := range s.checks {
		if ok, err := c.fn(); !ok {
			errs = append(errs, fmt.Errorf("check %s failed: %v", c.name, err))
		}
	}
	return errors.Join(errs...)
}
