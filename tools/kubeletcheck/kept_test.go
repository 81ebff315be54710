package kubeletcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// The kept captures of the PLEG-unhealthy scenario (Keep, written by
// cmd/hungtable -fault stopped -captures) say what the unit tests that read them
// rely on: each scrape reads as a scrape, begins with when it was taken,
// and its last-seen gauge is older than the threshold exactly at the
// scrapes where the kubelet's own words, logged within its sync loop's
// backoff and before containerd's start, say the PLEG is not healthy; the
// node's Ready condition held with them agrees.
func TestKeptUnhealthyCaptures(t *testing.T) {
	dir := filepath.Join("..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "pleg-unhealthy")
	data, err := os.ReadFile(filepath.Join(dir, "scrapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var kept struct {
		Moments []struct {
			What string    `json:"what"`
			At   time.Time `json:"at"`
		} `json:"moments"`
		Scrapes []harness.KeptScrape `json:"scrapes"`
	}
	if err := json.Unmarshal(data, &kept); err != nil {
		t.Fatal(err)
	}
	var started time.Time
	for _, m := range kept.Moments {
		if m.What == harness.MomentStarted {
			started = m.At
		}
	}
	if started.IsZero() {
		t.Fatalf("scrapes.json has no moment %q", harness.MomentStarted)
	}
	if _, err := nodeverdict.ReadConfigz("configz.json", readKept(t, dir, "configz.json")); err != nil {
		t.Fatal(err)
	}
	var healthy, unhealthy int
	for _, s := range kept.Scrapes {
		raw := readKept(t, dir, s.File)
		first, _, _ := strings.Cut(string(raw), "\n")
		at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(first, "# scraped at "))
		if err != nil || !at.Equal(s.Start) {
			t.Errorf("%s begins %q; want # scraped at %s", s.File, first, s.Start.Format(time.RFC3339Nano))
		}
		m, err := nodeverdict.ReadMetrics(s.File, raw)
		if err != nil {
			t.Fatal(err)
		}
		if m.LastSeen == nil {
			t.Fatalf("%s has no %s", s.File, nodeverdict.MetricLastSeen)
		}
		elapsed := at.Sub(time.Unix(int64(*m.LastSeen), 0))
		// The kubelet logs nothing when it recovers: after containerd's
		// start its last line says nothing of the scrape.
		says := s.Kubelet != nil && at.Sub(s.Kubelet.Time) <= harness.SyncLoopMaxBackoff+time.Second &&
			strings.Contains(s.Kubelet.Message, "last seen active") && at.Before(started)
		// The gauge holds whole seconds, and the kubelet's line may come
		// up to its backoff after the threshold passed.
		switch {
		case says:
			unhealthy++
			if elapsed <= harness.PLEGThreshold-time.Second {
				t.Errorf("%s: the kubelet says %q, but the gauge is only %s old", s.File, s.Kubelet.Message, elapsed)
			}
			if !strings.Contains(s.Ready.Message, harness.PLEGUnhealthy) {
				t.Errorf("%s: the kubelet says %q; the node's Ready held with it: %s %q", s.File, s.Kubelet.Message, s.Ready.Status, s.Ready.Message)
			}
		case !at.Before(started) && elapsed > harness.PLEGThreshold:
			// Containerd is back and the next relist has not yet come.
		case elapsed > harness.PLEGThreshold+harness.SyncLoopMaxBackoff+time.Second:
			t.Errorf("%s: the gauge is %s old, and the kubelet's last PLEG line is not current: %+v", s.File, elapsed, s.Kubelet)
		case elapsed < 5*time.Second:
			healthy++
		}
	}
	if healthy < 4 || unhealthy < 2 {
		t.Errorf("%d kept scrapes with a fresh gauge, %d the kubelet calls unhealthy; want at least 4 and 2 (before the stop, during, after)", healthy, unhealthy)
	}
}

func readKept(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The kept captures of the hung-runtime scenario (FaultRun.Keep, written
// by cmd/hungtable -captures) say what a unit test reading them relies
// on: the metrics request's failure reads as a timeout with when it was
// made and how long it waited; the last good scrape is a scrape from
// before it; the Node objects say, in turn, Ready, False for the runtime
// (its version "Unknown": the status update's Version call failed),
// False naming the PLEG, and Ready again.
func TestKeptHungCaptures(t *testing.T) {
	dir := filepath.Join("..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "runtime-hung")
	if _, err := nodeverdict.ReadConfigz("configz.json", readKept(t, dir, "configz.json")); err != nil {
		t.Fatal(err)
	}
	f, err := nodeverdict.ReadMetricsFailure("metrics-error.txt", readKept(t, dir, "metrics-error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != nodeverdict.FailureTimeout || f.At == nil || f.WaitedFor() < 2*time.Second {
		t.Errorf("metrics-error.txt: %+v; want a timeout, with when and how long it waited", f)
	}
	last, err := nodeverdict.ReadMetrics("last-good.txt", readKept(t, dir, "last-good.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if last.LastSeen == nil {
		t.Errorf("last-good.txt has no %s", nodeverdict.MetricLastSeen)
	}
	want := []struct{ file, status, says, runtime string }{
		{"node-ready.json", "True", "kubelet is posting ready status", "containerd://2"},
		{"node-false.json", "False", "container runtime is down", "containerd://Unknown"},
		{"node-pleg.json", "False", harness.PLEGUnhealthy, "containerd://"},
		{"node-true.json", "True", "kubelet is posting ready status", "containerd://2"},
	}
	for _, w := range want {
		n, err := nodeverdict.ReadNode(w.file, readKept(t, dir, w.file))
		if err != nil {
			t.Fatal(err)
		}
		if n.Ready == nil || n.Ready.Status != w.status || !strings.Contains(n.Ready.Message, w.says) || !strings.HasPrefix(n.ContainerRuntimeVersion, w.runtime) {
			t.Errorf("%s: Ready %+v, runtime %q; want %s %q, runtime %s...", w.file, n.Ready, n.ContainerRuntimeVersion, w.status, w.says, w.runtime)
		}
	}
}

// The kept captures of the 6 s latency rung (FaultRun.Keep, written by
// cmd/hungtable -fault latency -captures) say what a unit test reading
// them relies on: each kept dark round's metrics request timed out at
// the scrape timeout (10 s), with when it was made, while its Node
// object says Ready True, "kubelet is posting ready status"; the last
// good scrape came before the fault and counts the relists.
func TestKeptSlowCaptures(t *testing.T) {
	dir := filepath.Join("..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "runtime-slow-6s")
	if _, err := nodeverdict.ReadConfigz("configz.json", readKept(t, dir, "configz.json")); err != nil {
		t.Fatal(err)
	}
	last, err := nodeverdict.ReadMetrics("last-good.txt", readKept(t, dir, "last-good.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if last.LastSeen == nil || !strings.Contains(string(readKept(t, dir, "last-good.txt")), harness.MetricRelists) {
		t.Errorf("last-good.txt has no %s or no %s", nodeverdict.MetricLastSeen, harness.MetricRelists)
	}
	rounds, _ := filepath.Glob(filepath.Join(dir, "rounds", "*"))
	errs := append([]string{dir}, rounds...)
	if len(rounds) < 2 {
		t.Errorf("%d kept dark rounds; want at least 2", len(rounds))
	}
	for _, d := range errs {
		f, err := nodeverdict.ReadMetricsFailure("metrics-error.txt", readKept(t, d, "metrics-error.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if f.Kind != nodeverdict.FailureTimeout || f.At == nil || f.WaitedFor() < 9*time.Second {
			t.Errorf("%s/metrics-error.txt: %+v; want a timeout at the 10 s scrape timeout, with when", d, f)
		}
		node := "node-ready.json"
		if d != dir {
			node = "node.json"
		}
		n, err := nodeverdict.ReadNode(node, readKept(t, d, node))
		if err != nil {
			t.Fatal(err)
		}
		if n.Ready == nil || n.Ready.Status != "True" || !strings.Contains(n.Ready.Message, "kubelet is posting ready status") {
			t.Errorf("%s/%s: Ready %+v; want True, posting ready status", d, node, n.Ready)
		}
	}
}
