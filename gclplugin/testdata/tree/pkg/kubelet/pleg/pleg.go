// Package pleg is a small PLEG for plegvet's golangci-lint fixture: a
// relisting one and one that reads the runtime's event stream.
package pleg

import "time"

// RelistDuration is how often a relisting PLEG lists containers, and
// how long without a relist makes it unhealthy.
type RelistDuration struct {
	RelistPeriod    time.Duration
	RelistThreshold time.Duration
}

// Relisting lists the runtime's containers on a timer.
type Relisting struct {
	durations *RelistDuration
	timer     *time.Timer
	last      time.Time
}

// NewRelisting returns a relisting PLEG.
func NewRelisting(d *RelistDuration) *Relisting {
	return &Relisting{durations: d, timer: time.NewTimer(0)}
}

func (r *Relisting) loop() {
	for range r.timer.C {
		r.last = time.Now()
		r.timer.Reset(r.durations.RelistPeriod)
	}
}

// Healthy reports whether the last relist is recent enough.
func (r *Relisting) Healthy() bool {
	return time.Since(r.last) <= r.durations.RelistThreshold
}

// Runtime is the container runtime's event stream.
type Runtime interface {
	GetContainerEvents() error
}

// Streaming follows the runtime's container events.
type Streaming struct {
	runtime Runtime
	retries int
}

// NewStreaming returns a PLEG that follows the event stream and gives up
// after retries failures.
func NewStreaming(rt Runtime, retries int) *Streaming {
	return &Streaming{runtime: rt, retries: retries}
}

func (s *Streaming) watch() {
	for failures := 0; failures < s.retries; failures++ {
		_ = s.runtime.GetContainerEvents()
	}
}
