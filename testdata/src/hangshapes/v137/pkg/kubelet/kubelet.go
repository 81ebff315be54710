// Package kubelet is a look-alike of a v1.37-shaped kubelet: the CRI
// client built by a builder, the cadvisor provider built first into a
// variable and kept when the legacy stats are used.
package kubelet

import (
	"context"
	"time"

	internalapi "k8s.io/cri-api/pkg/apis"

	"hangshapes/common/pkg/features"
	"hangshapes/common/pkg/kubelet/apis/config"
	"hangshapes/common/pkg/kubelet/collectors"
	kubecontainer "hangshapes/common/pkg/kubelet/container"
	"hangshapes/common/pkg/kubelet/cri/remote"
	"hangshapes/common/pkg/kubelet/metrics"
	"hangshapes/common/pkg/kubelet/nodestatus"
	"hangshapes/common/pkg/kubelet/stats"
)

// Dependencies are what the kubelet is built with.
type Dependencies struct {
	RemoteRuntimeService   internalapi.RuntimeService
	useLegacyCadvisorStats bool
	runtimeCache           kubecontainer.RuntimeCache
	fromCRI                bool
}

// Kubelet is the node agent.
type Kubelet struct {
	StatsProvider    *stats.Provider
	containerRuntime kubecontainer.Runtime
}

func preInitRuntimeService(ctx context.Context, cfg *config.KubeletConfiguration, deps *Dependencies) error {
	var err error
	if deps.RemoteRuntimeService, err = remote.NewRemoteRuntimeServiceBuilder().
		WithEndpoint(cfg.ContainerRuntimeEndpoint).
		WithConnectionTimeout(cfg.RuntimeRequestTimeout.Duration).
		Build(ctx); err != nil {
		return err
	}
	return nil
}

func newKubelet(deps *Dependencies) *Kubelet {
	kl := &Kubelet{}
	cadvisorProvider := stats.NewCadvisorStatsProvider(deps.runtimeCache)
	if deps.useLegacyCadvisorStats {
		kl.StatsProvider = cadvisorProvider
	} else {
		kl.StatsProvider = stats.NewCRIStatsProvider(deps.RemoteRuntimeService, features.DefaultFeatureGate.Enabled(features.PodAndContainerStatsFromCRI))
	}
	return kl
}

// ListPodStats hands the question to the stats provider.
func (kl *Kubelet) ListPodStats(ctx context.Context) ([]stats.PodStats, error) {
	return kl.StatsProvider.ListPodStats(ctx)
}

func (kl *Kubelet) initializeModules() {
	metrics.Register()
	metrics.RegisterCollectors(
		collectors.NewVolumeStatsCollector(kl),
		collectors.NewLogMetricsCollector(kl.StatsProvider.ListPodStats),
	)
}

func untilWithContext(ctx context.Context, f func(context.Context), period time.Duration) {}

func (kl *Kubelet) start(ctx context.Context) {
	go untilWithContext(ctx, kl.updateRuntimeUp, 5*time.Second)
}

func (kl *Kubelet) updateRuntimeUp(ctx context.Context) {
	if _, err := kl.containerRuntime.Status(ctx); err != nil {
		return
	}
}

func (kl *Kubelet) defaultNodeStatusFuncs() []nodestatus.Setter {
	return []nodestatus.Setter{
		nodestatus.VersionInfo(kl.containerRuntime.Type, kl.containerRuntime.Version),
	}
}
