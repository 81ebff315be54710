// Package gatenegated stores the negated test and tests its negation.
package gatenegated

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func New(source pleg.EventSource) (g, e pleg.PodLifecycleEventGenerator) {
	disabled := !utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG)
	if !disabled {
		g = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 0, RelistThreshold: time.Hour}, time.Now) // want `with EventedPLEG on, the generic relist period is 0s`
		e, _ = pleg.NewEventedPLEG(source, g, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
	} else {
		g = pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now)
	}
	return g, e
}
