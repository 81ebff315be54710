// Package kuberuntime is a look-alike of the kubelet's runtime manager:
// the kubelet's runtime interface answered with CRI calls.
package kuberuntime

import (
	"context"

	kubecontainer "hangshapes/common/pkg/kubelet/container"
	internalapi "k8s.io/cri-api/pkg/apis"
)

type manager struct {
	runtimeService internalapi.RuntimeService
}

var _ kubecontainer.Runtime = (*manager)(nil)

func (m *manager) Type() string { return "look-alike" }

func (m *manager) Version(ctx context.Context) (string, error) {
	return m.runtimeService.Version(ctx, "v1")
}

func (m *manager) Status(ctx context.Context) (*kubecontainer.RuntimeStatus, error) {
	_, err := m.runtimeService.Status(ctx, false)
	return &kubecontainer.RuntimeStatus{Ready: err == nil}, err
}

// GetPods lists sandboxes, then containers: two calls, one after the other.
func (m *manager) GetPods(ctx context.Context, all bool) ([]string, error) {
	sandboxes, err := m.sandboxes(ctx)
	if err != nil {
		return nil, err
	}
	containers, err := m.runtimeService.ListContainers(ctx, "")
	return append(sandboxes, containers...), err
}

func (m *manager) sandboxes(ctx context.Context) ([]string, error) {
	return m.runtimeService.ListPodSandbox(ctx, "")
}

// GetPodStatus asks each sandbox's status, then each container's.
func (m *manager) GetPodStatus(ctx context.Context, pod string) (*kubecontainer.PodStatus, error) {
	st := &kubecontainer.PodStatus{}
	s, err := m.runtimeService.PodSandboxStatus(ctx, pod)
	if err != nil {
		return nil, err
	}
	st.Sandboxes = append(st.Sandboxes, s)
	c, err := m.runtimeService.ContainerStatus(ctx, pod)
	st.Containers = append(st.Containers, c)
	return st, err
}

// GetPod lists one pod's sandboxes, on demand.
func (m *manager) GetPod(ctx context.Context, uid string) (string, error) {
	s, err := m.runtimeService.ListPodSandbox(ctx, uid)
	if len(s) == 0 {
		return "", err
	}
	return s[0], err
}
