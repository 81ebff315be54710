// Package pleg is a look-alike of the generic PLEG's relist: list every
// pod, store the relist time, inspect each pod that changed.
package pleg

import (
	"context"
	"time"

	kubecontainer "hangshapes/common/pkg/kubelet/container"
)

// GenericPLEG relists.
type GenericPLEG struct {
	runtime    kubecontainer.Runtime
	relistTime time.Time
	old        map[string]bool
}

// Relist lists every pod, stores its time, and inspects what changed.
func (g *GenericPLEG) Relist(ctx context.Context) {
	start := time.Now()
	pods, err := g.runtime.GetPods(ctx, true)
	if err != nil {
		return
	}
	g.relistTime = start
	for _, p := range pods {
		if !g.old[p] {
			g.updateCache(ctx, p)
		}
	}
}

func (g *GenericPLEG) updateCache(ctx context.Context, pod string) {
	if _, err := g.runtime.GetPodStatus(ctx, pod); err == nil {
		g.old[pod] = true
	}
}

// RelistPod is the on-demand relist of one pod: not the periodic relist's.
func (g *GenericPLEG) RelistPod(ctx context.Context, uid string) {
	_, _ = g.runtime.GetPod(ctx, uid)
}
