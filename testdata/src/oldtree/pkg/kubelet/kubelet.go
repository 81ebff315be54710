// Package kubelet is a look-alike of pkg/kubelet before v1.26: no gate,
// one generic PLEG.
package kubelet

import (
	"time"

	"oldtree/pkg/kubelet/pleg"
)

const plegRelistPeriod = time.Second * 1

type Kubelet struct {
	pleg pleg.PodLifecycleEventGenerator
}

func New() *Kubelet {
	kl := &Kubelet{}
	kl.pleg = pleg.NewGenericPLEG(1000, plegRelistPeriod)
	return kl
}
