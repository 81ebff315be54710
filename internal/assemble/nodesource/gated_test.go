package nodesource_test

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/ladder"
)

// A node whose configz turns on a gate off by default makes the scrape's
// calls behind it (PodAndContainerStatsFromCRI's ListPodSandboxStats up
// to v1.36): its ladder counts the source's scrapeCallsGated for the
// gate and says so; a node that leaves the gate off, or turns it off,
// keeps the default's count. Measured on the real v1.37.2 hang's capture
// (the failed request waited 3.000930971s), with the ladder's inputs
// as a v1.36 source gives them.
func TestGatedScrapeCalls(t *testing.T) {
	c := loadCapture(t, "v1.37.2", "runtime-hung")
	src := *c.src
	src.Ladder = &ladder.Inputs{ScrapeCalls: 3, ScrapeCallsGated: map[string]int{"PodAndContainerStatsFromCRI": 4}, RelistListCalls: 2, PodCalls: 2, StatusCalls: 1, NodeStatusCalls: 1,
		RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute, StatusPeriod: 5 * time.Second, RuntimeDown: 30 * time.Second,
		NodeStatusFrequency: 10 * time.Second, Deadline: 2 * time.Minute,
		From: map[string]string{"scrapeCallsGated": "with PodAndContainerStatsFromCRI on, 4: collectors.NewVolumeStatsCollector's volumeStatsCollector.CollectWithStability calls [...]"}}
	base := c.cfg
	evidence := func(gates map[string]bool) string {
		t.Helper()
		cfg := *base
		cfg.FeatureGates = maps.Clone(base.FeatureGates)
		maps.Copy(cfg.FeatureGates, gates)
		c.cfg = &cfg
		defer func() { c.cfg = base }()
		h := c.decide(&src, c.file("metrics-error.txt"), c.node("node-ready.json"), "2026-12-03T23:15:25.208109715Z")
		return strings.Join(h.Evidence, "\n")
	}
	for name, tc := range map[string]struct {
		gates map[string]bool
		dark  string
		says  bool
	}{
		"turned on":   {map[string]bool{"PodAndContainerStatsFromCRI": true}, "metrics-dark from 750.232742ms per call", true},
		"left unset":  {nil, "metrics-dark from 1.000310323s per call", false},
		"turned off":  {map[string]bool{"PodAndContainerStatsFromCRI": false}, "metrics-dark from 1.000310323s per call", false},
		"another one": {map[string]bool{"SomeOtherGate": true}, "metrics-dark from 1.000310323s per call", false},
	} {
		t.Run(name, func(t *testing.T) {
			all := evidence(tc.gates)
			if !strings.Contains(all, tc.dark) || strings.Contains(all, "featureGates.PodAndContainerStatsFromCRI = true") != tc.says {
				t.Errorf("want %q, configz's gate named %t:\n%s", tc.dark, tc.says, all)
			}
		})
	}
	if src.Ladder.ScrapeCalls != 3 || len(src.Ladder.From) != 1 {
		t.Errorf("the source's ladder was changed: %+v", src.Ladder)
	}
}
