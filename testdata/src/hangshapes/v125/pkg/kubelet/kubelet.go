// Package kubelet is a look-alike of a v1.25-shaped kubelet: the
// collectors passed to metrics.Register, the CRI client built by a
// constructor taking the timeout, the stats provider chosen in an if.
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

const runtimeStatusPeriod = 5 * time.Second

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

func preInitRuntimeService(cfg *config.KubeletConfiguration, deps *Dependencies) error {
	var err error
	deps.useLegacyCadvisorStats = usingLegacyCadvisorStats(cfg.ContainerRuntimeEndpoint)
	if deps.RemoteRuntimeService, err = remote.NewRemoteRuntimeService(cfg.ContainerRuntimeEndpoint, cfg.RuntimeRequestTimeout.Duration); err != nil {
		return err
	}
	return nil
}

func newKubelet(deps *Dependencies) *Kubelet {
	kl := &Kubelet{}
	if deps.useLegacyCadvisorStats {
		kl.StatsProvider = stats.NewCadvisorStatsProvider(deps.runtimeCache)
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
	metrics.Register(
		collectors.NewVolumeStatsCollector(kl),
		collectors.NewLogMetricsCollector(kl.StatsProvider.ListPodStats),
	)
}

func until(f func(), period time.Duration) {}

// usingLegacyCadvisorStats: the runtime's endpoint decides.
func usingLegacyCadvisorStats(endpoint string) bool { return endpoint == "" }

func (kl *Kubelet) start() {
	go until(kl.updateRuntimeUp, runtimeStatusPeriod)
}

func (kl *Kubelet) updateRuntimeUp() {
	if _, err := kl.containerRuntime.Status(context.Background()); err != nil {
		return
	}
}

func (kl *Kubelet) defaultNodeStatusFuncs() []nodestatus.Setter {
	return []nodestatus.Setter{
		nodestatus.VersionInfo(kl.containerRuntime.Type, kl.containerRuntime.Version),
	}
}
