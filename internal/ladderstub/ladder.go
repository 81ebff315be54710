// Package ladderstub stands in for package ladder (the lead's, landing on
// main) with its documented API, so that nodeverdict builds before it
// lands; it is deleted on the rebase that brings ladder in.
package ladderstub

import (
	"sort"
	"time"
)

type Inputs struct {
	ScrapeCalls, RelistListCalls, PodCalls, StatusCalls, NodeStatusCalls                                   int
	RelistPeriod, RelistThreshold, StatusPeriod, RuntimeDown, NodeStatusFrequency, Deadline, ScrapeTimeout time.Duration
}

const DefaultScrapeTimeout = 10 * time.Second

const (
	RungMetricsDark = "metrics-dark"
	RungRuntimeDown = "runtime-down"
	RungPLEG        = "pleg-unhealthy"
	RungDeadline    = "deadline"
)

type Rung struct {
	Name    string  `json:"name"`
	Latency string  `json:"latency"`
	Seconds float64 `json:"seconds"`
	What    string  `json:"what"`
}

type Ladder struct {
	Inputs       Inputs `json:"inputs"`
	PodsChanging int    `json:"podsChanging"`
	Rungs        []Rung `json:"rungs"`
	Unknown      string `json:"unknown,omitempty"`
}

func Compute(in Inputs, podsChanging int) *Ladder {
	l := &Ladder{Inputs: in, PodsChanging: podsChanging}
	add := func(name string, d time.Duration, what string) {
		l.Rungs = append(l.Rungs, Rung{Name: name, Latency: d.Round(time.Millisecond).String(), Seconds: d.Seconds(), What: what})
	}
	if in.ScrapeCalls > 0 {
		add(RungMetricsDark, in.ScrapeTimeout/time.Duration(in.ScrapeCalls), "/metrics past the scrape timeout")
	}
	if in.StatusCalls > 0 {
		add(RungRuntimeDown, (in.RuntimeDown-in.StatusPeriod)/time.Duration(in.StatusCalls), "Ready False: container runtime is down")
	}
	if n := in.RelistListCalls + podsChanging*in.PodCalls; n > 0 {
		add(RungPLEG, in.RelistThreshold/time.Duration(n), "the PLEG past its threshold")
	}
	add(RungDeadline, in.Deadline, "calls past runtimeRequestTimeout: as hung")
	sort.SliceStable(l.Rungs, func(i, j int) bool { return l.Rungs[i].Seconds < l.Rungs[j].Seconds })
	return l
}

func (l *Ladder) Rung(name string) *Rung {
	for i := range l.Rungs {
		if l.Rungs[i].Name == name {
			return &l.Rungs[i]
		}
	}
	return nil
}

func (l *Ladder) Place(latency time.Duration) (on, next *Rung) {
	for i := range l.Rungs {
		if latency.Seconds() >= l.Rungs[i].Seconds {
			on = &l.Rungs[i]
			continue
		}
		return on, &l.Rungs[i]
	}
	return on, nil
}

func HangNotReady(in Inputs) (lo, hi time.Duration, ok bool) {
	if in.NodeStatusCalls <= 0 || in.Deadline <= 0 || in.RuntimeDown <= 0 || in.NodeStatusFrequency <= 0 {
		return 0, 0, false
	}
	calls := time.Duration(in.NodeStatusCalls) * in.Deadline
	lo = max(in.RuntimeDown-in.StatusPeriod, calls)
	hi = max(in.RuntimeDown, calls) + in.NodeStatusFrequency + calls
	return lo, hi, true
}
