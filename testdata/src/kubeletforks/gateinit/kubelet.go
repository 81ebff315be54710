// Package gateinit is a fork that turns the evented PLEG's gate on in
// its init: a node that sets no gate runs the evented PLEG, whatever the
// gate's default says. A second write names its gates from a variable.
package gateinit

import (
	"os"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

func init() {
	_ = utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{string(features.EventedPLEG): true})
	_ = utilfeature.DefaultMutableFeatureGate.Set("EventedPLEG=true")
}

func extraGates() {
	_ = utilfeature.DefaultMutableFeatureGate.Set(os.Getenv("KUBELET_GATES")) // want `extraGates sets feature gates in code, but plegvet could not read what: Set's argument os.Getenv\("KUBELET_GATES"\) is not a constant string; plegvet cannot say what a node that sets no gate runs`
}

func NewMainKubelet(source pleg.EventSource) (pleg.PodLifecycleEventGenerator, pleg.PodLifecycleEventGenerator) {
	extraGates()
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		relist := pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 5 * time.Minute, RelistThreshold: 10 * time.Minute}, time.Now)
		stream, _ := pleg.NewEventedPLEG(source, relist, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
		return relist, stream
	}
	return pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now), nil
}
