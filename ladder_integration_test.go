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
func TestLadderOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	podCalls := map[string]int{"v1.25.16": 4, "v1.30.14": 4, "v1.36.5": 2, "v1.37.2": 2}
	// v1.37's stats provider lists stats either from the CRI alone or
	// partly (if p.useCRIPodSandboxStats { return ... }; return ...): one
	// side counts, as the proxy counted on a real scrape (3 methods).
	// Before, the partial listing follows the strict one when the runtime
	// lacks ListPodSandboxStats: the strict side's call is counted.
	scrapeCalls := map[string]int{"v1.25.16": 4, "v1.30.14": 4, "v1.36.5": 4, "v1.37.2": 3}
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
			for _, name := range []string{ladder.RungMetricsDark, ladder.RungRuntimeDown, ladder.RungPLEG, ladder.RungDeadline} {
				if l.Rung(name) == nil {
					t.Errorf("no %s rung", name)
				}
			}
			if l.Inputs.ScrapeCalls != scrapeCalls[version] {
				t.Errorf("scrape calls %d, want %d (%s)", l.Inputs.ScrapeCalls, scrapeCalls[version], l.Inputs.From["scrapeCalls"])
			}
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
