package runtimehang_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/runtimehang"
)

// The kubelet's server asks the runtime on /metrics/resource (a
// collector on a registry of its own, served on a constant path) and on
// /stats/summary (a handler paired with its sub-path): each is read from
// the server's code, and a fork's edit changes the answer.
func TestServerPaths(t *testing.T) {
	const server = "hangshapes/common/pkg/kubelet/server"
	const serverStats = "hangshapes/common/pkg/kubelet/server/stats"
	byEndpoint := func(h *runtimehang.Hang) map[string]runtimehang.Collector {
		out := map[string]runtimehang.Collector{}
		for _, c := range h.Collectors {
			if c.Endpoint != "/metrics" {
				out[c.Endpoint+"|"+c.EndpointUnknown] = c
			}
		}
		return out
	}
	methods := func(c runtimehang.Collector) []string {
		var ms []string
		for _, r := range c.Reaches {
			if !slices.Contains(ms, r.Method) {
				ms = append(ms, r.Method)
			}
		}
		return ms
	}
	all := []string{"RuntimeService.ListContainerStats", "RuntimeService.ListContainers", "RuntimeService.ListPodSandbox", "RuntimeService.ListPodSandboxStats"}

	h := hangOf(t, "v137", "")
	got := byEndpoint(h)
	res, ok := got["/metrics/resource|"]
	if !ok || res.Handler || res.Collect.Func != "resourceMetricsCollector.CollectWithStability" || !slices.Equal(methods(res), all) {
		t.Errorf("/metrics/resource: %+v", got)
	}
	sum, ok := got["/stats/summary|"]
	if !ok || !sum.Handler || sum.Collect.Func != "handler.handleSummary" || sum.Register != "s.add" || !slices.Equal(methods(sum), all) {
		t.Errorf("/stats/summary: %+v", got)
	}
	if h.DarkOnHang() != true {
		t.Error("the kubelet's /metrics no longer dark on a hang")
	}

	for name, tc := range map[string]struct {
		pkg  string
		edit func(string) string
		want func(map[string]runtimehang.Collector) bool
	}{
		"another path": {server, func(s string) string {
			return strings.Replace(s, `"/metrics/resource"`, `"/metrics/usage"`, 1)
		}, func(m map[string]runtimehang.Collector) bool { _, ok := m["/metrics/usage|"]; return ok }},
		"registry not served": {server, func(s string) string {
			return strings.Replace(s, "\ts.mux.Handle(resourceMetricsPath, metrics.HandlerFor(reg))\n", "", 1)
		}, func(m map[string]runtimehang.Collector) bool {
			for k, c := range m {
				if strings.HasPrefix(k, "|") && c.Constructor == "collectors.NewResourceMetricsCollector" {
					return true
				}
			}
			return false
		}},
		"another sub-path": {serverStats, func(s string) string {
			return strings.Replace(s, `{"/summary", h.handleSummary}`, `{"/digest", h.handleSummary}`, 1)
		}, func(m map[string]runtimehang.Collector) bool { _, ok := m["/stats/digest|"]; return ok }},
		"no route": {serverStats, func(s string) string {
			return strings.Replace(s, "\t\t{\"/summary\", h.handleSummary},\n", "", 1)
		}, func(m map[string]runtimehang.Collector) bool { _, ok := m["/stats/summary|"]; return !ok }},
		"keyed handler": {serverStats, func(s string) string {
			return strings.Replace(s, "h := &handler{summary}", "h := &handler{summary: summary}", 1)
		}, func(m map[string]runtimehang.Collector) bool {
			c, ok := m["/stats/summary|"]
			return ok && len(c.Reaches) > 0
		}},
	} {
		t.Run(name, func(t *testing.T) {
			h := edited(t, map[string]func(string) string{tc.pkg: tc.edit})
			if got := byEndpoint(h); !tc.want(got) {
				t.Errorf("%s: %q", name, describe(h))
			}
		})
	}
}
