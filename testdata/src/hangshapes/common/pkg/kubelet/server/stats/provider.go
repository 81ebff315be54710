// Package stats is a look-alike of what the kubelet's stats handlers ask.
package stats

import (
	"context"

	kstats "hangshapes/common/pkg/kubelet/stats"
)

// Provider lists pod stats.
type Provider interface {
	ListPodStats(ctx context.Context) ([]kstats.PodStats, error)
}
