package nodesource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
)

// The health rule from plegvet's index, per release: the generic PLEG's
// thresholds as the research read them (v1.25's package constant in
// generic.go; 3m gate off and 10m gate on in v1.30 to v1.36; one 3m in
// v1.37), the gauge refreshed by the evented check where the evented
// PLEG registers a check of its own that writes it, the threshold the
// fallback restores, and the kubelet's words for a failed check.
func TestHealthRuleFromTheIndex(t *testing.T) {
	for _, tc := range []struct {
		release, off, on, fallback string
		refreshed                  bool
	}{
		{"v1.25.16", "3m0s relistThreshold pkg/kubelet/pleg/generic.go:83", "3m0s relistThreshold pkg/kubelet/pleg/generic.go:83", "", false},
		{"v1.30.14", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:182", "10m0s eventedPlegRelistThreshold pkg/kubelet/kubelet.go:186", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:182", true},
		{"v1.36.5", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", "10m0s eventedPlegRelistThreshold pkg/kubelet/kubelet.go:220", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", true},
		{"v1.37.2", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", "", false},
	} {
		src, err := plegvet.LoadNodeSource(context.Background(), plegvet.Options{}, tc.release)
		if err != nil {
			t.Fatal(err)
		}
		r := src.HealthRule()
		if got := describe(r.GateOff); got != tc.off {
			t.Errorf("%s gate off: %q; want %q", tc.release, got, tc.off)
		}
		if got := describe(r.GateOn); got != tc.on {
			t.Errorf("%s gate on: %q; want %q", tc.release, got, tc.on)
		}
		if (r.LastSeenRefreshed != "") != tc.refreshed {
			t.Errorf("%s: refreshed %q", tc.release, r.LastSeenRefreshed)
		}
		if tc.fallback != "" {
			if got := describe(r.Fallback); got != tc.fallback {
				t.Errorf("%s fallback: %q; want %q", tc.release, got, tc.fallback)
			}
		} else if r.Fallback.Known {
			t.Errorf("%s: fallback %+v; the source restores none", tc.release, r.Fallback)
		}
		if tc.refreshed && !strings.Contains(r.LastSeenRefreshed, `"EventedPLEG" check`) {
			t.Errorf("%s: the gauge's overwriter is not named: %q", tc.release, r.LastSeenRefreshed)
		}
		if got := r.Words.NotHealthy(); got != "PLEG is not healthy: " || r.Words.StaleFormat == "" || r.Words.NeverFormat == "" {
			t.Errorf("%s: words %+v (NotHealthy %q); want the kubelet's own, read from the source", tc.release, r.Words, got)
		}
	}
}

func describe(th nodeverdict.Threshold) string {
	if !th.Known || th.Cited.Decl == nil {
		return "unknown: " + th.Why
	}
	return fmt.Sprintf("%s %s %s:%d", th.Cited.Value, th.Cited.Const, th.Cited.Decl.File, th.Cited.Decl.Line)
}
