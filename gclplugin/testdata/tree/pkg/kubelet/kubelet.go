// Package kubelet wires the fixture's PLEGs the way a kubelet does, with
// a mistake: when the event stream is gone, nothing relists faster.
package kubelet

import (
	"time"

	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const (
	relistEverySecond = time.Second
	relistRarely      = 10 * time.Minute
	streamRetries     = 3
)

type gateChecker interface {
	Enabled(featuregate.Feature) bool
}

// StartPLEG starts the PLEGs the gates ask for.
func StartPLEG(gates gateChecker, rt pleg.Runtime) {
	if !gates.Enabled(features.EventedPLEG) {
		pleg.NewRelisting(&pleg.RelistDuration{RelistPeriod: relistEverySecond, RelistThreshold: 3 * time.Minute})
		return
	}
	pleg.NewRelisting(&pleg.RelistDuration{RelistPeriod: relistRarely, RelistThreshold: time.Hour})
	pleg.NewStreaming(rt, streamRetries)
}
