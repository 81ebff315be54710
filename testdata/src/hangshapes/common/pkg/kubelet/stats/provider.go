// Package stats is a look-alike of the kubelet's stats providers.
package stats

import (
	"context"

	internalapi "k8s.io/cri-api/pkg/apis"

	kubecontainer "hangshapes/common/pkg/kubelet/container"
)

// PodStats is one pod's numbers.
type PodStats struct{ Name string }

type containerStatsProvider interface {
	ListPodStats(ctx context.Context) ([]PodStats, error)
}

// Provider hands out stats from the provider it was built with.
type Provider struct {
	containerStatsProvider
}

// NewCRIStatsProvider asks the runtime over the CRI; fromCRI asks it for
// the sandboxes' stats first.
func NewCRIStatsProvider(rs internalapi.RuntimeService, fromCRI bool) *Provider {
	return &Provider{containerStatsProvider: newCRIStatsProvider(rs, fromCRI)}
}

// newCRIStatsProvider is where the flag lands in the provider's field.
func newCRIStatsProvider(rs internalapi.RuntimeService, fromCRI bool) containerStatsProvider {
	return &criStatsProvider{runtimeService: rs, fromCRI: fromCRI}
}

// NewCadvisorStatsProvider asks cadvisor, and the runtime cache for pods.
func NewCadvisorStatsProvider(rc kubecontainer.RuntimeCache) *Provider {
	return &Provider{containerStatsProvider: &cadvisorStatsProvider{runtimeCache: rc}}
}

type criStatsProvider struct {
	runtimeService internalapi.RuntimeService
	fromCRI        bool
}

func (p *criStatsProvider) ListPodStats(ctx context.Context) ([]PodStats, error) {
	if p.fromCRI {
		return p.fromSandboxStats(ctx)
	}
	return p.listAll(ctx)
}

func (p *criStatsProvider) listAll(ctx context.Context) ([]PodStats, error) {
	if _, err := p.runtimeService.ListContainers(ctx, ""); err != nil {
		return nil, err
	}
	if _, err := p.runtimeService.ListPodSandbox(ctx, ""); err != nil {
		return nil, err
	}
	_, err := p.runtimeService.ListContainerStats(ctx, "")
	return nil, err
}

func (p *criStatsProvider) fromSandboxStats(ctx context.Context) ([]PodStats, error) {
	_, err := p.runtimeService.ListPodSandboxStats(ctx, "")
	return nil, err
}

type cadvisorStatsProvider struct {
	runtimeCache kubecontainer.RuntimeCache
}

func (p *cadvisorStatsProvider) ListPodStats(ctx context.Context) ([]PodStats, error) {
	_, err := p.runtimeCache.GetPods(ctx)
	return nil, err
}
