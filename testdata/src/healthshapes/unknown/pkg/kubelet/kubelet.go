// Package kubelet registers the fork's PLEG check.
package kubelet

import (
	"time"

	"healthshapes/unknown/pkg/kubelet/pleg"
)

type checks struct {
	all map[string]func() (bool, error)
}

func (c *checks) addHealthCheck(name string, fn func() (bool, error)) { c.all[name] = fn }

func New() *checks {
	c := &checks{all: map[string]func() (bool, error){}}
	p := pleg.NewGenericPLEG(time.Second)
	c.addHealthCheck("PLEG", p.Healthy)
	return c
}
