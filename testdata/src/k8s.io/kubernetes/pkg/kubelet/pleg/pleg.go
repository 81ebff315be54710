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
