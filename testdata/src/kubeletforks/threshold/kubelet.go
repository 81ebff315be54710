// Package threshold is a fork whose gate-off relist period outgrew its
// health threshold.
package threshold

import (
	"time"

	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const (
	relistPeriod    = 5 * time.Minute
	relistThreshold = 3 * time.Minute
)

func New() pleg.PodLifecycleEventGenerator {
	d := pleg.RelistDuration{RelistPeriod: relistPeriod, RelistThreshold: relistThreshold} // want `relist threshold 3m0s \(relistThreshold\) is not greater than its period 5m0s \(relistPeriod\)`
	return pleg.NewGenericPLEG(nil, &d, time.Now)
}
