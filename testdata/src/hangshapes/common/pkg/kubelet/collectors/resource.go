package collectors

import (
	"context"

	serverstats "hangshapes/common/pkg/kubelet/server/stats"
)

// NewResourceMetricsCollector reports CPU and memory from the summary.
func NewResourceMetricsCollector(p serverstats.SummaryProvider) Collector {
	return &resourceMetricsCollector{summary: p}
}

type resourceMetricsCollector struct {
	summary serverstats.SummaryProvider
}

func (c *resourceMetricsCollector) CollectWithStability(ch chan<- string) {
	s, err := c.summary.GetCPUAndMemoryStats(context.Background())
	if err != nil {
		return
	}
	for _, p := range s.Pods {
		ch <- p.Name
	}
}
