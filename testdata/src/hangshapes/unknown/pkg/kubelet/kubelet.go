// Package kubelet is a look-alike of a kubelet whose shape plegvet does
// not know: its metrics are plain values, nothing is collected at a
// scrape, and the runtime is asked through a function value.
package kubelet

import "context"

// Kubelet is the node agent.
type Kubelet struct {
	status func(ctx context.Context) error
}

func (kl *Kubelet) updateRuntimeUp(ctx context.Context) {
	_ = kl.status(ctx)
}
