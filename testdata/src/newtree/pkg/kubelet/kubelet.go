// Package kubelet is a look-alike of pkg/kubelet after v1.36: one generic
// PLEG built unconditionally, the evented watcher only when the gate is on.
package kubelet

import (
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"newtree/pkg/kubelet/pleg"
)

const (
	genericPlegRelistPeriod     = time.Second * 1
	genericPlegRelistThreshold  = time.Minute * 3
	eventedPlegMaxStreamRetries = 5
)

type Kubelet struct {
	pleg    pleg.PodLifecycleEventGenerator
	watcher *pleg.EventedPLEG
}

func New(source pleg.EventSource) *Kubelet {
	kl := &Kubelet{}
	relist := &pleg.RelistDuration{RelistPeriod: genericPlegRelistPeriod, RelistThreshold: genericPlegRelistThreshold}
	kl.pleg = pleg.NewGenericPLEG(relist)
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		kl.watcher = pleg.NewEventedPLEG(source, eventedPlegMaxStreamRetries)
	}
	return kl
}
