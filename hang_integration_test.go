package plegvet_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

// hangRelease is what a hung runtime does to a release's kubelet, read by
// hand from its source (positions file:line in the module).
type hangRelease struct {
	version    string
	collectors []string // "constructor@registered register"
	served     []string // the server's paths: "constructor@registered register endpoint"
	chain      []string // the log collector's first chain: "func@pos"
	providers  []string // "constructor@pos"
	deadline   string   // "expr@pos default@decl"
	status     string   // "func@decl status@pos started@pos period"
	node       string   // "setter@pos setterDecl call"
	perCall    []string // "method timeout@pos", or the reason when unknown
}

// TestRuntimeHangOnReleases: health.runtimeHang as report -json gives it,
// against the releases' source; each position must hold the code it names.
func TestRuntimeHangOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	const (
		volume = "collectors.NewVolumeStatsCollector"
		logs   = "collectors.NewLogMetricsCollector"
		certs  = "collectors.PodCertificateCollectorFor"
		// The server's: on its own registries, and its handler.
		cri      = "collectors.NewCRIMetricsCollector"
		resource = "collectors.NewResourceMetricsCollector"
		summary  = "stats.CreateHandlers"
	)
	tests := []hangRelease{{
		version:    "v1.25.16",
		collectors: []string{volume + "@pkg/kubelet/kubelet.go:1337 metrics.Register", logs + "@pkg/kubelet/kubelet.go:1338 metrics.Register"},
		served:     []string{resource + "@pkg/kubelet/server/server.go:408 resourceRegistry.CustomMustRegister /metrics/resource", summary + "@pkg/kubelet/server/server.go:372 s.restfulCont.Add /stats/summary"},
		chain: []string{"c.podStats = kl.StatsProvider.ListPodStats@pkg/kubelet/metrics/collectors/log_metrics.go:64", "criStatsProvider.ListPodStats@pkg/kubelet/kubelet.go:1338",
			"criStatsProvider.listPodStats@pkg/kubelet/stats/cri_stats_provider.go:107", "criStatsProvider.listPodStatsPartiallyFromCRI@pkg/kubelet/stats/cri_stats_provider.go:152",
			"RuntimeService.ListContainerStats@pkg/kubelet/stats/cri_stats_provider.go:164"},
		providers: []string{"stats.NewCadvisorStatsProvider@pkg/kubelet/kubelet.go:666", "stats.NewCRIStatsProvider@pkg/kubelet/kubelet.go:675"},
		deadline:  "kubeCfg.RuntimeRequestTimeout.Duration@pkg/kubelet/kubelet.go:298 2m0s@pkg/kubelet/apis/config/v1beta1/defaults.go:171",
		status:    "Kubelet.updateRuntimeUp@pkg/kubelet/kubelet.go:2356 pkg/kubelet/kubelet.go:2360 pkg/kubelet/kubelet.go:1454 5s",
		node:      "nodestatus.VersionInfo@pkg/kubelet/kubelet_node_status.go:628 pkg/kubelet/nodestatus/setters.go:378 pkg/kubelet/nodestatus/setters.go:392",
		perCall: []string{"RuntimeService.ListContainerStats @null", "RuntimeService.ListContainers r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:542",
			"RuntimeService.ListPodSandbox r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:362", "RuntimeService.ListPodSandboxStats r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:1120"},
	}, {
		version:    "v1.30.14",
		collectors: []string{volume + "@pkg/kubelet/kubelet.go:1488 metrics.Register", logs + "@pkg/kubelet/kubelet.go:1489 metrics.Register"},
		served:     []string{cri + "@pkg/kubelet/server/server.go:410 r.CustomRegister /metrics/cadvisor", resource + "@pkg/kubelet/server/server.go:425 resourceRegistry.CustomMustRegister /metrics/resource", summary + "@pkg/kubelet/server/server.go:387 s.restfulCont.Add /stats/summary"},
		chain: []string{"c.podStats = kl.StatsProvider.ListPodStats@pkg/kubelet/metrics/collectors/log_metrics.go:66", "criStatsProvider.ListPodStats@pkg/kubelet/kubelet.go:1489",
			"criStatsProvider.listPodStats@pkg/kubelet/stats/cri_stats_provider.go:109", "criStatsProvider.listPodStatsPartiallyFromCRI@pkg/kubelet/stats/cri_stats_provider.go:156",
			"RuntimeService.ListContainerStats@pkg/kubelet/stats/cri_stats_provider.go:168"},
		providers: []string{"stats.NewCadvisorStatsProvider@pkg/kubelet/kubelet.go:703", "stats.NewCRIStatsProvider@pkg/kubelet/kubelet.go:712"},
		deadline:  "kubeCfg.RuntimeRequestTimeout.Duration@pkg/kubelet/kubelet.go:326 2m0s@pkg/kubelet/apis/config/v1beta1/defaults.go:171",
		status:    "Kubelet.updateRuntimeUp@pkg/kubelet/kubelet.go:2898 pkg/kubelet/kubelet.go:2903 pkg/kubelet/kubelet.go:1657 5s",
		node:      "nodestatus.VersionInfo@pkg/kubelet/kubelet_node_status.go:740 pkg/kubelet/nodestatus/setters.go:395 pkg/kubelet/nodestatus/setters.go:409",
		perCall: []string{"RuntimeService.ListContainerStats r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:677", "RuntimeService.ListContainers r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:396",
			"RuntimeService.ListPodSandbox r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:283", "RuntimeService.ListPodSandboxStats r.timeout@pkg/kubelet/cri/remote/remote_runtime.go:725"},
	}, {
		version:    "v1.36.5",
		collectors: []string{certs + "@pkg/kubelet/kubelet.go:1026 metrics.RegisterCollectors", volume + "@pkg/kubelet/kubelet.go:1747 metrics.RegisterCollectors", logs + "@pkg/kubelet/kubelet.go:1748 metrics.RegisterCollectors"},
		served: []string{cri + "@pkg/kubelet/server/server.go:526 r.CustomRegister /metrics/cadvisor", resource + "@pkg/kubelet/server/server.go:543 resourceRegistry.CustomMustRegister /metrics/resource",
			summary + "@pkg/kubelet/server/server.go:496 s.restfulCont.Add /stats/summary"},
		chain: []string{"c.podStats = kl.StatsProvider.ListPodStats@pkg/kubelet/metrics/collectors/log_metrics.go:70", "criStatsProvider.ListPodStats@pkg/kubelet/kubelet.go:1748",
			"criStatsProvider.listPodStats@pkg/kubelet/stats/cri_stats_provider.go:124", "criStatsProvider.listPodStatsPartiallyFromCRI@pkg/kubelet/stats/cri_stats_provider.go:170",
			"RuntimeService.ListContainerStats@pkg/kubelet/stats/cri_stats_provider.go:182"},
		providers: []string{"stats.NewCadvisorStatsProvider@pkg/kubelet/kubelet.go:845", "stats.NewCRIStatsProvider@pkg/kubelet/kubelet.go:847"},
		deadline:  "kubeCfg.RuntimeRequestTimeout.Duration@pkg/kubelet/kubelet.go:411 2m0s@pkg/kubelet/apis/config/v1beta1/defaults.go:190",
		status:    "Kubelet.updateRuntimeUp@pkg/kubelet/kubelet.go:3240 pkg/kubelet/kubelet.go:3245 pkg/kubelet/kubelet.go:1940 5s",
		node:      "nodestatus.VersionInfo@pkg/kubelet/kubelet_node_status.go:689 pkg/kubelet/nodestatus/setters.go:342 pkg/kubelet/nodestatus/setters.go:356",
	}, {
		version:    "v1.37.2",
		collectors: []string{certs + "@pkg/kubelet/kubelet.go:1037 metrics.RegisterCollectors", volume + "@pkg/kubelet/kubelet.go:1776 metrics.RegisterCollectors", logs + "@pkg/kubelet/kubelet.go:1777 metrics.RegisterCollectors"},
		served: []string{cri + "@pkg/kubelet/server/server.go:537 r.CustomRegister /metrics/cadvisor", resource + "@pkg/kubelet/server/server.go:554 resourceRegistry.CustomMustRegister /metrics/resource",
			summary + "@pkg/kubelet/server/server.go:508 s.restfulCont.Add /stats/summary"},
		chain: []string{"c.podStats = kl.StatsProvider.ListPodStats@pkg/kubelet/metrics/collectors/log_metrics.go:70", "criStatsProvider.ListPodStats@pkg/kubelet/kubelet.go:1777",
			"criStatsProvider.listPodStats@pkg/kubelet/stats/cri_stats_provider.go:121", "criStatsProvider.listPodStatsPartiallyFromCRI@pkg/kubelet/stats/cri_stats_provider.go:155",
			"RuntimeService.ListContainerStats@pkg/kubelet/stats/cri_stats_provider.go:167"},
		providers: []string{"stats.NewCadvisorStatsProvider@pkg/kubelet/kubelet.go:874", "stats.NewCRIStatsProvider@pkg/kubelet/kubelet.go:876"},
		deadline:  "kubeCfg.RuntimeRequestTimeout.Duration@pkg/kubelet/kubelet.go:416 2m0s@pkg/kubelet/apis/config/v1beta1/defaults.go:188",
		status:    "Kubelet.updateRuntimeUp@pkg/kubelet/kubelet.go:3321 pkg/kubelet/kubelet.go:3326 pkg/kubelet/kubelet.go:1975 5s",
		node:      "nodestatus.VersionInfo@pkg/kubelet/kubelet_node_status.go:737 pkg/kubelet/nodestatus/setters.go:347 pkg/kubelet/nodestatus/setters.go:361",
	}}
	wantMethods := []string{"RuntimeService.ListContainerStats", "RuntimeService.ListContainers", "RuntimeService.ListPodSandbox", "RuntimeService.ListPodSandboxStats"}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.Inspect(context.Background(), plegvet.Options{Kubernetes: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Health == nil || rep.Health.RuntimeHang == nil {
				t.Fatal("no health.runtimeHang")
			}
			h := rep.Health.RuntimeHang
			dir := moduleDir(t, "k8s.io/kubernetes@"+tc.version)
			if h.Unknown != "" {
				t.Errorf("unknown: %s", h.Unknown)
			}
			var collectors, served []string
			var logCollector *answer.HangCollector
			for i, c := range h.Collectors {
				lineHas(t, dir, &c.Registered, c.Constructor+"(")
				if strings.HasPrefix(c.Registered.File, "pkg/kubelet/server/") {
					served = append(served, fmt.Sprintf("%s@%s %s %s", c.Constructor, posText(&c.Registered), c.Register, c.Endpoint))
					if len(c.Reaches) == 0 || c.Handler != (c.Constructor == summary) {
						t.Errorf("%s on %s: %d reaches, handler %t", c.Constructor, c.Endpoint, len(c.Reaches), c.Handler)
					}
					continue
				}
				collectors = append(collectors, fmt.Sprintf("%s@%s %s", c.Constructor, posText(&c.Registered), c.Register))
				if c.Endpoint != "/metrics" {
					t.Errorf("%s: endpoint %q (%s), want /metrics", c.Constructor, c.Endpoint, c.EndpointUnknown)
				}
				if c.Constructor == "collectors.NewLogMetricsCollector" {
					logCollector = &h.Collectors[i]
				}
			}
			if !slices.Equal(collectors, tc.collectors) {
				t.Errorf("collectors:\n%s\nwant:\n%s", strings.Join(collectors, "\n"), strings.Join(tc.collectors, "\n"))
			}
			if !slices.Equal(served, tc.served) {
				t.Errorf("the server's paths:\n%s\nwant:\n%s", strings.Join(served, "\n"), strings.Join(tc.served, "\n"))
			}
			if got := h.CRIMethods(); !slices.Equal(got, wantMethods) {
				t.Errorf("CRI methods %q, want %q", got, wantMethods)
			}
			if !h.DarkOnHang() {
				t.Error("DarkOnHang is false")
			}
			if logCollector == nil || len(logCollector.Reaches) == 0 {
				t.Fatal("the log metrics collector reaches no CRI call")
			}
			var chain []string
			for _, s := range logCollector.Reaches[0].Steps {
				chain = append(chain, s.Func+"@"+posText(&s.Pos))
			}
			if !slices.Equal(chain, tc.chain) {
				t.Errorf("chain:\n%s\nwant:\n%s", strings.Join(chain, "\n"), strings.Join(tc.chain, "\n"))
			}
			last := logCollector.Reaches[0].Steps[len(chain)-1]
			lineHas(t, dir, &last.Pos, "p.runtimeService.ListContainerStats(")
			var providers []string
			for _, p := range h.StatsProviders {
				providers = append(providers, p.Constructor+"@"+posText(&p.Pos))
				lineHas(t, dir, &p.Pos, "klet.StatsProvider = ")
			}
			if !slices.Equal(providers, tc.providers) {
				t.Errorf("stats providers %q, want %q", providers, tc.providers)
			}
			if cri := h.StatsProviders[len(h.StatsProviders)-1]; !slices.Contains(cri.Gates, "PodAndContainerStatsFromCRI") {
				t.Errorf("the CRI stats provider's gates %q lack PodAndContainerStatsFromCRI", cri.Gates)
			}
			for _, p := range h.StatsProviders {
				if !strings.HasPrefix(p.WhenSet, "cadvisor.UsingLegacyCadvisorStats(") {
					t.Errorf("%s: its condition %s is set to %q; want cadvisor.UsingLegacyCadvisorStats(...)", p.Constructor, p.When, p.WhenSet)
				}
				lineHas(t, dir, p.WhenSetPos, "kubeDeps.useLegacyCadvisorStats = cadvisor.UsingLegacyCadvisorStats(")
			}
			d := h.Deadline
			if d == nil || d.Default == nil {
				t.Fatalf("deadline %+v", d)
			}
			if got := fmt.Sprintf("%s@%s %s@%s", d.Expr, posText(&d.Pos), d.Default.Value, posText(d.Default.Decl)); got != tc.deadline || d.Setting != "runtimeRequestTimeout" {
				t.Errorf("deadline %s (%s), want %s", got, d.Setting, tc.deadline)
			}
			lineHas(t, dir, &d.Pos, "kubeCfg.RuntimeRequestTimeout.Duration")
			lineHas(t, dir, d.Default.Decl, "2 * time.Minute")
			l := h.StatusLoop
			if l == nil || l.Period == nil {
				t.Fatalf("status loop %+v", l)
			}
			if got := fmt.Sprintf("%s@%s %s %s %s", l.Func, posText(l.Decl), posText(&l.Status.Pos), posText(l.Started), l.Period.Value); got != tc.status {
				t.Errorf("status loop %s, want %s", got, tc.status)
			}
			lineHas(t, dir, &l.Status.Pos, "kl.containerRuntime.Status(")
			lineHas(t, dir, l.Started, "kl.updateRuntimeUp, 5*time.Second")
			if h.RuntimeDown == nil || h.RuntimeDown.Value != "30s" || h.RuntimeDown.Const != "maxWaitForContainerRuntime" {
				t.Errorf("runtime down %+v, want 30s = maxWaitForContainerRuntime", h.RuntimeDown)
			}
			n := h.NodeStatus
			if n == nil {
				t.Fatal("no node status call")
			}
			if got := fmt.Sprintf("%s@%s %s %s", n.Setter, posText(&n.Pos), posText(n.SetterDecl), posText(n.Call)); got != tc.node || n.Method != "Runtime.Version" {
				t.Errorf("node status %s (%s), want %s", got, n.Method, tc.node)
			}
			lineHas(t, dir, &n.Pos, "kl.containerRuntime.Version")
			lineHas(t, dir, n.Call, "runtimeVersionFunc(")
			var perCall []string
			for _, c := range d.PerCall {
				perCall = append(perCall, fmt.Sprintf("%s %s@%s", c.Method, c.Timeout, posText(c.Pos)))
				if c.Pos != nil {
					lineHas(t, dir, c.Pos, c.Timeout)
				}
			}
			if tc.perCall == nil {
				if len(perCall) != 0 || !strings.Contains(d.PerCallUnknown, "k8s.io/cri-client/pkg") {
					t.Errorf("per call %q (%s); want unknown: the CRI client is outside the tree", perCall, d.PerCallUnknown)
				}
			} else if !slices.Equal(perCall, tc.perCall) {
				t.Errorf("per call:\n%s\nwant:\n%s", strings.Join(perCall, "\n"), strings.Join(tc.perCall, "\n"))
			}
			if dl, ok := h.DeadlineDuration(); !ok || dl.String() != "2m0s" {
				t.Errorf("DeadlineDuration %v, %t", dl, ok)
			}
			if !strings.Contains(h.Consequence, "NotReady 2m0s to 2m10s after the hang began") || !strings.Contains(h.Consequence, "PLEG is unhealthy at 3m0s") {
				t.Errorf("consequence: %s", h.Consequence)
			}
			t.Logf("%s: %s", tc.version, h.Consequence)
		})
	}
}
