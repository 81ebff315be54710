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
// PLEG is an event source, and the fallback's threshold, which a
// NodeSource does not keep yet, unknown with why.
func TestHealthRuleFromTheIndex(t *testing.T) {
	for _, tc := range []struct {
		release, off, on string
		refreshed        bool
	}{
		{"v1.25.16", "3m0s relistThreshold pkg/kubelet/pleg/generic.go:83", "3m0s relistThreshold pkg/kubelet/pleg/generic.go:83", false},
		{"v1.30.14", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:182", "10m0s eventedPlegRelistThreshold pkg/kubelet/kubelet.go:186", true},
		{"v1.36.5", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", "10m0s eventedPlegRelistThreshold pkg/kubelet/kubelet.go:220", true},
		{"v1.37.2", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", "3m0s genericPlegRelistThreshold pkg/kubelet/kubelet.go:216", false},
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
		if r.Fallback.Known || (tc.refreshed && !strings.Contains(r.Fallback.Why, "not among what plegvet keeps")) {
			t.Errorf("%s: fallback %+v", tc.release, r.Fallback)
		}
		if r.Words.NotHealthy() != "" {
			t.Errorf("%s: words %+v, which the index does not hold yet", tc.release, r.Words)
		}
	}
}

func describe(th nodeverdict.Threshold) string {
	if !th.Known || th.Cited.Decl == nil {
		return "unknown: " + th.Why
	}
	return fmt.Sprintf("%s %s %s:%d", th.Cited.Value, th.Cited.Const, th.Cited.Decl.File, th.Cited.Decl.Line)
}
