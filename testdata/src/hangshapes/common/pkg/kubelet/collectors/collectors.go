// Package collectors is a look-alike of the kubelet's metric collectors.
package collectors

import (
	"context"

	serverstats "hangshapes/common/pkg/kubelet/server/stats"
	kstats "hangshapes/common/pkg/kubelet/stats"
)

// Collector is what a registry takes.
type Collector interface{ CollectWithStability(ch chan<- string) }

// NewLogMetricsCollector reports log sizes from the pod stats podStats lists.
func NewLogMetricsCollector(podStats func(ctx context.Context) ([]kstats.PodStats, error)) Collector {
	return &logMetricsCollector{podStats: podStats}
}

type logMetricsCollector struct {
	podStats func(ctx context.Context) ([]kstats.PodStats, error)
}

func (c *logMetricsCollector) CollectWithStability(ch chan<- string) {
	ps, _ := c.podStats(context.Background())
	for _, p := range ps {
		ch <- p.Name
	}
}

// NewVolumeStatsCollector reports volume usage from the provider's pod stats.
func NewVolumeStatsCollector(p serverstats.Provider) Collector {
	return &volumeStatsCollector{statsProvider: p}
}

type volumeStatsCollector struct {
	statsProvider serverstats.Provider
}

func (c *volumeStatsCollector) CollectWithStability(ch chan<- string) {
	ps, _ := c.statsProvider.ListPodStats(context.Background())
	for _, p := range ps {
		ch <- p.Name
	}
}
