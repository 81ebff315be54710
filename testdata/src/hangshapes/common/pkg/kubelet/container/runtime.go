// Package container is a look-alike of the kubelet's runtime interface.
package container

import "context"

// Runtime is the container runtime as the kubelet sees it.
type Runtime interface {
	Type() string
	Version(ctx context.Context) (string, error)
	Status(ctx context.Context) (*RuntimeStatus, error)
	GetPods(ctx context.Context, all bool) ([]string, error)
	// GetPodStatus inspects one pod; GetPod lists one, on demand.
	GetPodStatus(ctx context.Context, pod string) (*PodStatus, error)
	GetPod(ctx context.Context, uid string) (string, error)
}

// PodStatus is what GetPodStatus answers.
type PodStatus struct{ Sandboxes, Containers []string }

// RuntimeStatus is what Status answers.
type RuntimeStatus struct{ Ready bool }

// RuntimeCache caches the runtime's pods; its implementation is not in
// the packages the tests read.
type RuntimeCache interface {
	GetPods(ctx context.Context) ([]string, error)
}
