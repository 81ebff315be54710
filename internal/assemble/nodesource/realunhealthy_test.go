package nodesource_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
)

// The scrapes tools/kubeletcheck kept of a real v1.37.2 kubelet whose
// containerd was stopped past the PLEG's threshold and started again
// (TestPLEGUnhealthy, in a run of 2026-12-03; docs/pleg-unhealthy.md shows a later one), decided from plegvet's
// index: each scrape's health is what the kubelet's own log said at that
// moment. Unhealthy, with the kubelet's message (elapsed times aside),
// where its last "PLEG is not healthy: pleg was last seen active" line is
// current (at most its sync loop's 5s backoff and a second old, before
// containerd's start); never healthy past the threshold before the start;
// healthy on a fresh gauge before the stop and after the recovery.
func TestHealthOnARealUnhealthyKubelet(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "pleg-unhealthy")
	var kept struct {
		Moments []struct {
			What string    `json:"what"`
			At   time.Time `json:"at"`
		} `json:"moments"`
		Scrapes []struct {
			File    string    `json:"file"`
			Start   time.Time `json:"start"`
			Kubelet *struct {
				Time    time.Time `json:"time"`
				Message string    `json:"message"`
			} `json:"kubelet"`
		} `json:"scrapes"`
	}
	if err := json.Unmarshal(read(t, dir, "scrapes.json"), &kept); err != nil {
		t.Fatal(err)
	}
	var stopped, started time.Time
	for _, m := range kept.Moments {
		switch {
		case strings.HasPrefix(m.What, "containerd stopped"):
			stopped = m.At
		case strings.HasPrefix(m.What, "containerd started"):
			started = m.At
		}
	}
	if stopped.IsZero() || started.IsZero() {
		t.Fatalf("scrapes.json names no containerd stop and start: %+v", kept.Moments)
	}
	src, err := plegvet.LoadNodeSource(context.Background(), plegvet.Options{}, "v1.37.2")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := nodeverdict.ReadConfigz("configz.json", read(t, dir, "configz.json"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := nodeverdict.ReadCrictl("crictl.txt", read(t, dir, "crictl.txt"))
	if err != nil {
		t.Fatal(err)
	}
	th := src.HealthRule().GateOff.Duration
	count := map[string]int{}
	for _, s := range kept.Scrapes {
		met, err := nodeverdict.ReadMetrics(s.File, read(t, dir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		// The capture's time comes from its own "# scraped at" line.
		rep, err := src.Decide(plegvet.NodeCapture{Config: cfg, Metrics: met, Runtime: rt})
		if err != nil {
			t.Fatal(err)
		}
		h := rep.Health
		elapsed := s.Start.Sub(time.Unix(int64(*met.LastSeen), 0))
		current := s.Kubelet != nil && s.Start.Sub(s.Kubelet.Time) <= 6*time.Second && s.Start.Before(started) &&
			strings.Contains(s.Kubelet.Message, "last seen active")
		switch {
		case current:
			count["unhealthy"]++
			if h.State != answer.Unhealthy || withoutElapsed(h.Message) != withoutElapsed(s.Kubelet.Message) {
				t.Errorf("%s: plegvet says %s %q; the kubelet said %q", s.File, h.State, h.Message, s.Kubelet.Message)
			}
		case elapsed > th+time.Second && s.Start.Before(started):
			count["past"]++
			if h.State == answer.Healthy {
				t.Errorf("%s: healthy with the last relist %s old, past the threshold %s", s.File, elapsed, th)
			}
		case elapsed < 5*time.Second && (s.Start.Before(stopped) || s.Start.After(started)):
			count["healthy"]++
			if h.State != answer.Healthy {
				t.Errorf("%s: %s on a gauge %s old: %q", s.File, h.State, elapsed, h.Evidence)
			}
		}
	}
	if count["unhealthy"] < 2 || count["healthy"] < 4 {
		t.Errorf("asserted %v; want at least 2 scrapes the kubelet called unhealthy and 4 fresh ones", count)
	}
}

var elapsedWords = regexp.MustCompile(`active [0-9.a-zµ]+ ago`)

func withoutElapsed(msg string) string { return elapsedWords.ReplaceAllString(msg, "active _ ago") }

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
