// Package testonly builds its PLEG with sane values; its test does not.
package testonly

import (
	"time"

	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func New() pleg.PodLifecycleEventGenerator {
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: time.Minute}, time.Now)
}
