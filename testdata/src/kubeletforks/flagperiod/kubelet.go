// Package flagperiod takes the gate-on period from configuration: it
// cannot be resolved statically and must be reported so, not guessed.
package flagperiod

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

type Config struct{ RelistPeriod time.Duration }

func New(cfg Config, source pleg.EventSource, retries func() int) (g, e pleg.PodLifecycleEventGenerator) {
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		g = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: cfg.RelistPeriod, RelistThreshold: 10 * time.Minute}, time.Now)
		e, _ = pleg.NewEventedPLEG(source, g, retries(), &pleg.RelistDuration{RelistPeriod: cfg.RelistPeriod * 100})
		return g, e
	}
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now), nil
}
