// Package kubelet is a look-alike of pkg/kubelet before v1.26, for the
// health rule: one check, on the generic PLEG.
package kubelet

import (
	"time"

	"healthshapes/constthreshold/pkg/kubelet/pleg"
	"healthshapes/nodestatus"
)

const (
	relistEvery  = 2 * time.Second
	runtimeGrace = 45 * time.Second
)

type Kubelet struct {
	pleg    pleg.PodLifecycleEventGenerator
	state   *runtimeState
	setters []func() (bool, string)
}

func New(rt pleg.Runtime) *Kubelet {
	kl := &Kubelet{}
	kl.pleg = pleg.NewGenericPLEG(rt, 500, relistEvery)
	kl.state = newRuntimeState(runtimeGrace)
	kl.state.addHealthCheck("PLEG", kl.pleg.Healthy)
	kl.setters = append(kl.setters, nodestatus.ReadyCondition(time.Now, kl.state.runtimeErrors))
	return kl
}

// loop waits, longer each time, while the runtime state reports errors.
func (kl *Kubelet) loop(work func()) {
	pause := 10 * time.Millisecond
	for {
		if err := kl.state.runtimeErrors(); err != nil {
			report(err, "Pods left unsynced: runtime unhealthy")
			time.Sleep(pause)
			pause *= 2
			continue
		}
		pause = 10 * time.Millisecond
		work()
	}
}

func report(err error, msg string) {}
