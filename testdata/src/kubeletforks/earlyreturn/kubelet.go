// Package earlyreturn decides the gate with an early return and a negated
// test, and tests another gate too.
package earlyreturn

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const (
	offPeriod = time.Second * 2
	onPeriod  = time.Minute
)

func New(source pleg.EventSource) (g, e pleg.PodLifecycleEventGenerator) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: offPeriod, RelistThreshold: time.Minute}, time.Now), nil
	}
	g = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: onPeriod, RelistThreshold: 10 * time.Minute}, time.Now)
	if utilfeature.DefaultFeatureGate.Enabled(features.QuotaPeriod) && source != nil {
		e, _ = pleg.NewEventedPLEG(source, g, 3, &pleg.RelistDuration{RelistPeriod: offPeriod, RelistThreshold: time.Minute})
	}
	return g, e
}
