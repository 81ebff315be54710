package kubelet

import (
	"time"

	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

const cleanupPeriod = 2 * time.Second

// run wakes on PLEG events and on two tickers, as the kubelet's main loop does.
func (kl *Kubelet) run() {
	resync := time.NewTicker(time.Second)
	cleanup := time.NewTicker(cleanupPeriod)
	events := kl.pleg.Watch()
	for kl.iterate(resync.C, cleanup.C, events) {
	}
}

func (kl *Kubelet) iterate(resyncCh, cleanupCh <-chan time.Time, events chan *pleg.PodLifecycleEvent) bool {
	select {
	case e := <-events:
		return e != nil
	case <-resyncCh:
	case <-cleanupCh:
	}
	return true
}
