package plegvet_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/ladder"
)

// TestLadderOnReleases: health.ladder read from each release's code: the
// relist's list call and its inspection of a changed pod hold the code
// they name, and every rung is computed. v1.25 and v1.30 inspect a pod
// with four CRI calls (its sandboxes and containers listed again); v1.36
// and v1.37 with two (the pod the list found is handed over).
// The server's paths are rungs of their own.
func TestLadderOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	podCalls := map[string]int{"v1.25.16": 4, "v1.30.14": 4, "v1.36.5": 2, "v1.37.2": 2}
	// The stats provider's strict listing (ListPodSandboxStats) runs only
	// when p.podAndContainerStatsFromCRI (p.useCRIPodSandboxStats in
	// v1.37), a field set, through two constructors, from
	// PodAndContainerStatsFromCRI's check: off by default in every
	// release, so a default node's scrape lists sandboxes, containers and
	// container stats (3 methods, as the proxy counted on a real v1.37.2
	// scrape). With the gate on, up to v1.36 the partial listing follows
	// the strict one when the runtime lacks ListPodSandboxStats (4); v1.37
	// takes one or the other (if ... { return ... }; return ...: 3).
	scrapeCalls := map[string]int{"v1.25.16": 3, "v1.30.14": 3, "v1.36.5": 3, "v1.37.2": 3}
	gatedCalls := map[string]int{"v1.25.16": 4, "v1.30.14": 4, "v1.36.5": 4, "v1.37.2": 3}
	// The server's paths: /metrics/resource lists as a /metrics scrape
	// does (3, as a real v1.37.2 scrape took 18.0s at 6s per call); the
	// whole /stats/summary also asks the image filesystem, and up to
	// v1.30 lists images (5); from v1.31 it lists them only with
	// KubeletSeparateDiskGC off, on by default (4: the real v1.37.2
	// request took 24.0s at 6s per call).
	summaryCalls := map[string]int{"v1.25.16": 5, "v1.30.14": 5, "v1.36.5": 4, "v1.37.2": 4}
	for version, want := range podCalls {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.Inspect(context.Background(), plegvet.Options{Kubernetes: version})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Health == nil || rep.Health.Ladder == nil || rep.Health.RuntimeHang == nil || rep.Health.RuntimeHang.Relist == nil {
				t.Fatal("no health.ladder or health.runtimeHang.relist")
			}
			l, rl := rep.Health.Ladder, rep.Health.RuntimeHang.Relist
			if l.Unknown != "" {
				t.Errorf("unknown: %s", l.Unknown)
			}
			if l.Inputs.ResourceScrapeCalls != 3 || l.Inputs.SummaryCalls != summaryCalls[version] {
				t.Errorf("/metrics/resource %d calls, /stats/summary %d; want 3, %d (%s; %s)", l.Inputs.ResourceScrapeCalls, l.Inputs.SummaryCalls, summaryCalls[version],
					l.Inputs.From["resourceScrapeCalls"], l.Inputs.From["summaryCalls"])
			}
			if version == "v1.37.2" && !strings.Contains(l.Inputs.From["summaryCalls"], "ListImages (only when !utilfeature.DefaultFeatureGate.Enabled(features.KubeletSeparateDiskGC), feature gate KubeletSeparateDiskGC: on by default") {
				t.Errorf("summary calls: the image listing's gate is not named: %s", l.Inputs.From["summaryCalls"])
			}
			for _, name := range []string{ladder.RungMetricsDark, ladder.RungResourceDark, ladder.RungSummaryDark, ladder.RungRuntimeDown, ladder.RungPLEG, ladder.RungDeadline} {
				if l.Rung(name) == nil {
					t.Errorf("no %s rung", name)
				}
			}
			if l.Inputs.ScrapeCalls != scrapeCalls[version] || !strings.Contains(l.Inputs.From["scrapeCalls"], "feature gate PodAndContainerStatsFromCRI: off by default") {
				t.Errorf("scrape calls %d, want %d (%s)", l.Inputs.ScrapeCalls, scrapeCalls[version], l.Inputs.From["scrapeCalls"])
			}
			if g := l.Inputs.ScrapeCallsGated; len(g) != 1 || g["PodAndContainerStatsFromCRI"] != gatedCalls[version] {
				t.Errorf("scrape calls with the gate on %v, want %d (%s)", g, gatedCalls[version], l.Inputs.From["scrapeCallsGated"])
			}
			t.Logf("scrapeCalls %d: %s; scrapeCallsGated %v: %s", l.Inputs.ScrapeCalls, l.Inputs.From["scrapeCalls"], l.Inputs.ScrapeCallsGated, l.Inputs.From["scrapeCallsGated"])
			if l.Inputs.PodCalls != want || l.Inputs.RelistListCalls != 2 {
				t.Errorf("relist calls %d, pod calls %d; want 2, %d (%v)", l.Inputs.RelistListCalls, l.Inputs.PodCalls, want, l.Inputs.From)
			}
			dir := moduleDir(t, "k8s.io/kubernetes@"+version)
			for _, s := range append(rl.Inspect, rl.List) {
				_, method, _ := strings.Cut(s.Func, ".")
				b, err := os.ReadFile(filepath.Join(dir, s.Pos.File))
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(string(b), "\n")
				if s.Pos.Line < 1 || s.Pos.Line > len(lines) || !strings.Contains(lines[s.Pos.Line-1], "."+method+"(") {
					t.Errorf("%s at %s:%d does not call it", s.Func, s.Pos.File, s.Pos.Line)
				}
			}
		})
	}
}
