// Package pleg is a look-alike of the kubelet's PLEG package in the shape
// of v1.26 to v1.36: a generic PLEG relisting on a period held in a
// RelistDuration, and an evented PLEG that falls back to it.
package pleg

import "time"

// RelistDuration holds how often to relist and when to call it unhealthy.
type RelistDuration struct {
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
}

// PodLifecycleEvent says something happened to a pod.
type PodLifecycleEvent struct{ ID string }

// PodLifecycleEventGenerator is what the kubelet needs of a PLEG.
type PodLifecycleEventGenerator interface {
	Start()
	Stop()
	Watch() chan *PodLifecycleEvent
	Healthy() (bool, error)
	Relist()
	Update(d *RelistDuration)
}

// PodCache keeps the newest state seen of each pod, for the pod workers.
type PodCache interface {
	// Set records a pod's state and reports whether it changed.
	Set(podID, state string) bool
}

type podCache struct{ states map[string]string }

func newPodCache() PodCache { return &podCache{states: map[string]string{}} }

func (c *podCache) Set(podID, state string) bool {
	changed := c.states[podID] != state
	c.states[podID] = state
	return changed
}
