package nodesource_test

import (
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
)

// The real v1.37.2 kubelet whose containerd was frozen, decided from
// plegvet's index alone: the answer names, itself, what its /metrics
// waits on (the collector, the stats provider, the CRI method, each call
// with its line) and the CRI calls' deadline (configz's, where the source
// gives it to the CRI client, and the source's default), for a runtime
// told hung and for one the failed request says nothing of while the
// kubelet says it is down. An entry without the chain says so, and
// points to no other command.
func TestDarkNamesTheChain(t *testing.T) {
	c := loadCapture(t, "v1.37.2", "runtime-hung")
	src, down := c.src, c.node("node-false.json")
	decide := func(s *plegvet.NodeSource, failure string) nodeverdict.Health {
		t.Helper()
		return c.decide(s, []byte(failure), down, "2026-12-03T23:17:28.572555208Z")
	}
	const (
		chain     = "collectors.NewVolumeStatsCollector, through the stats provider criStatsProvider, to RuntimeService.ListContainerStats"
		given     = "given to the CRI client at pkg/kubelet/kubelet.go:416"
		byDefault = "default 2m0s (pkg/kubelet/apis/config/v1beta1/defaults.go:188)"
		calls     = "metrics.RegisterCollectors(collectors.NewVolumeStatsCollector) (pkg/kubelet/kubelet.go:1776) > "
		lastCall  = "RuntimeService.ListContainerStats (pkg/kubelet/stats/cri_stats_provider.go:167); each CRI call waits at most its deadline, runtimeRequestTimeout, " + byDefault + ", " + given
	)
	hung := string(c.file("metrics-error.txt"))
	proxied := "# scraped at 2026-12-03T23:15:25.208109715Z\n# waited 1s\nmetrics: timed out after 1s (--metrics-timeout): no answer came through the API server's node proxy\n"
	for name, failure := range map[string]string{"hung": hung, "through the node proxy": proxied} {
		h := decide(src, failure)
		all := strings.Join(h.Evidence, "\n")
		if h.State != nodeverdict.Unhealthy || !strings.Contains(h.Cause, chain) || !strings.Contains(h.Cause, given) || !strings.Contains(h.Cause, "2m0s (pkg/kubelet/apis/config/v1beta1/defaults.go:188)") ||
			!strings.Contains(all, calls) || !strings.Contains(all, lastCall) || strings.Contains(h.Cause, "plegvet report") {
			t.Errorf("%s: %s, runtime %s\ncause: %s\n%s", name, h.State, h.Runtime, h.Cause, all)
		}
	}
	if h := decide(src, hung); h.Runtime != nodeverdict.RuntimeHung || !strings.Contains(h.Cause, "(runtimeRequestTimeout 2m0s, from configz, "+given+"; the source's default 2m0s") {
		t.Errorf("hung: runtime %s, cause %s", h.Runtime, h.Cause)
	}

	noHang := *src
	noHang.Hang = nil
	h := decide(&noHang, hung)
	if !strings.Contains(h.Cause, "(which ones is not known: plegvet's index holds no hang chain for k8s.io/kubernetes@v1.37.2)") || strings.Contains(h.Cause, "plegvet report") ||
		strings.Contains(strings.Join(h.Evidence, "\n"), "what a scrape of /metrics waits on") {
		t.Errorf("an entry without the chain: cause %s\n%s", h.Cause, strings.Join(h.Evidence, "\n"))
	}
}
