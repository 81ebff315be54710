// Package kubelet is a look-alike of pkg/kubelet after v1.36, for the
// health rule: one generic PLEG in both modes, one check.
package kubelet

import (
	"errors"
	"fmt"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"

	"healthshapes/nodestatus"
	"healthshapes/watcher/pkg/kubelet/pleg"
)

const (
	period      = 2 * time.Second
	threshold   = 5 * time.Minute
	streamTries = 3
	upWithin    = time.Minute
)

type Kubelet struct {
	pleg    pleg.PodLifecycleEventGenerator
	watcher *pleg.EventedPLEG
	health  *health
	status  []func() (bool, string)
}

type health struct {
	seen   time.Time
	within time.Duration
	fns    map[string]func() (bool, error)
}

func newHealth(within time.Duration) *health {
	return &health{within: within, fns: map[string]func() (bool, error){}}
}

func (h *health) addHealthCheck(name string, fn func() (bool, error)) { h.fns[name] = fn }

func (h *health) runtimeErrors() error {
	var errs []error
	if h.seen.Add(h.within).Before(time.Now()) {
		errs = append(errs, fmt.Errorf("runtime status stale"))
	}
	for name, fn := range h.fns {
		if ok, err := fn(); !ok {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
		}
	}
	return errors.Join(errs...)
}

func New(l pleg.Lister, s pleg.Source) *Kubelet {
	kl := &Kubelet{health: newHealth(upWithin)}
	kl.pleg = pleg.NewGenericPLEG(l, make(chan *pleg.Event, 100), &pleg.RelistDuration{RelistPeriod: period, RelistThreshold: threshold})
	if utilfeature.DefaultFeatureGate.Enabled(features.EventedPLEG) {
		kl.watcher = pleg.NewEventedPLEG(s, kl.pleg, streamTries)
	}
	kl.health.addHealthCheck("PLEG", kl.pleg.Healthy)
	kl.status = append(kl.status, nodestatus.ReadyCondition(time.Now, kl.health.runtimeErrors))
	return kl
}

func (kl *Kubelet) syncLoop(each func()) {
	for {
		if err := kl.health.runtimeErrors(); err != nil {
			fmt.Println("sync held back:", err)
			continue
		}
		each()
	}
}
