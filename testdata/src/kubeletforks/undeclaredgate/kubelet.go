// Package undeclaredgate is a prototype that tests a gate its features
// package never declares: the name does not resolve, so no gate decides
// the evented PLEG, and plegvet must name the missing gate.
package undeclaredgate

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func NewMainKubelet(source pleg.EventSource) (pleg.PodLifecycleEventGenerator, pleg.PodLifecycleEventGenerator) {
	if utilfeature.DefaultFeatureGate.Enabled(features.EventPLEG) { // want `the gate test utilfeature.DefaultFeatureGate.Enabled\(features.EventPLEG\) deciding the evented PLEG at kubelet.go:17 could not be followed: utilfeature.DefaultFeatureGate.Enabled\(features.EventPLEG\) tests the gate features.EventPLEG, which is declared nowhere \(kubelet.go:15:44: undefined name EventPLEG\); plegvet cannot say which PLEG runs`
		relist := pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 5 * time.Minute, RelistThreshold: 10 * time.Minute}, time.Now)
		stream, _ := pleg.NewEventedPLEG(source, relist, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
		return relist, stream
	}
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now), nil
}
