package runtimehang_test

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
	"github.com/plegvet/plegvet/runtimehang"
)

// edited reads the v1.37-shaped fixture with edits (by package path) to
// single-file packages, as forks edit them; each edit must change
// something.
func edited(t *testing.T, edits map[string]func(string) string) *runtimehang.Hang {
	t.Helper()
	fset := token.NewFileSet()
	src := filepath.Join("..", "testdata", "src")
	im := fixturetypes.NewImporter(fset, src)
	load := func(path string) runtimehang.Package {
		edit, ok := edits[path]
		if !ok {
			files, info, _, err := im.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			return runtimehang.Package{Path: path, Files: files, Info: info, Bodies: true}
		}
		// The edit must change one of the package's files at least.
		names, _ := filepath.Glob(filepath.Join(src, filepath.FromSlash(path), "*.go"))
		srcs, changed := map[string]string{}, 0
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			s := edit(string(b))
			if s != string(b) {
				changed++
			}
			srcs[filepath.Base(name)] = s
		}
		if changed == 0 {
			t.Fatalf("the edit of %s changed none of its files", path)
		}
		files, info, _, err := im.ReplaceFiles(path, srcs)
		if err != nil {
			t.Fatal(err)
		}
		return runtimehang.Package{Path: path, Files: files, Info: info, Bodies: true}
	}
	in := runtimehang.Input{Fset: fset, RuntimeDown: &constvalue.Value{Value: "30s", Const: "maxWaitForContainerRuntime"}}
	for _, p := range commonPackages {
		in.Others = append(in.Others, load(p))
	}
	in.Kubelet = load("hangshapes/v137/pkg/kubelet")
	return runtimehang.Extract(in)
}

const kubeletPkg = "hangshapes/v137/pkg/kubelet"

var registration = "metrics.RegisterCollectors(\n\t\tcollectors.NewVolumeStatsCollector(kl),\n\t\tcollectors.NewLogMetricsCollector(kl.StatsProvider.ListPodStats),\n\t)"

// A fork that registers the collectors only under a test: /metrics waits
// on the runtime only when it holds, and never under a constant false.
func TestConditionalRegistration(t *testing.T) {
	h := edited(t, map[string]func(string) string{kubeletPkg: func(s string) string {
		return strings.Replace(s, registration, "if kl.metricsOn {\n\t\t"+registration+"\n\t}", 1)
	}})
	if !h.DarkOnHang() || !slices.Equal(h.DarkWhen(), []string{"kl.metricsOn"}) {
		t.Errorf("under a field: dark %t when %v", h.DarkOnHang(), h.DarkWhen())
	}
	h = edited(t, map[string]func(string) string{kubeletPkg: func(s string) string {
		return strings.Replace(s, registration, "if false {\n\t\t"+registration+"\n\t}", 1)
	}})
	if h.DarkOnHang() {
		t.Errorf("registered under if false, yet dark: %+v", h.Collectors)
	}
	for _, c := range h.Collectors {
		if c.Registered.File != "kubelet.go" && !strings.HasSuffix(c.Registered.File, "/kubelet.go") {
			continue // the server's, not edited
		}
		if !c.Never || c.When != "false" || c.WhenPos == nil {
			t.Errorf("collector %s: never %t when %q", c.Constructor, c.Never, c.When)
		}
	}
	h = edited(t, map[string]func(string) string{kubeletPkg: func(s string) string {
		return strings.Replace(s, registration, "if true {\n\t} else {\n\t\t"+registration+"\n\t}", 1)
	}})
	if h.DarkOnHang() {
		t.Errorf("registered in the else of if true, yet dark: %+v", h.Collectors)
	}
}

// A fork that assigns a setting's default again after the if that sets
// it when unset: the default is named unresolved, not the first read.
func TestDefaultAssignedTwice(t *testing.T) {
	const defaults = "hangshapes/common/pkg/kubelet/apis/config/v1beta1"
	h := edited(t, map[string]func(string) string{defaults: func(s string) string {
		return strings.Replace(s, "\t\tobj.RuntimeRequestTimeout = Duration{Duration: 2 * time.Minute}\n\t}", "\t\tobj.RuntimeRequestTimeout = Duration{Duration: 2 * time.Minute}\n\t}\n\tobj.RuntimeRequestTimeout = Duration{Duration: 10 * time.Second}", 1)
	}})
	if _, ok := h.DeadlineDuration(); ok {
		t.Errorf("a default assigned twice gives a deadline: %+v", h.Deadline.Default)
	}
	if d := h.Deadline.Default; d == nil || !strings.Contains(d.Unresolved, "assigned 2 times") {
		t.Errorf("default = %+v", d)
	}
	// The same value assigned twice is that value.
	h = edited(t, map[string]func(string) string{defaults: func(s string) string {
		return strings.Replace(s, "\t\tobj.RuntimeRequestTimeout = Duration{Duration: 2 * time.Minute}\n\t}", "\t\tobj.RuntimeRequestTimeout = Duration{Duration: 2 * time.Minute}\n\t}\n\tobj.RuntimeRequestTimeout = Duration{Duration: 120 * time.Second}", 1)
	}})
	if d, ok := h.DeadlineDuration(); !ok || d.Minutes() != 2 {
		t.Errorf("the same default twice: %v %t", d, ok)
	}
}

// Calls made in a goroutine (a go statement, a WaitGroup's Go) wait
// beside the caller's others: their chains say so; the rest do not.
func TestConcurrentCalls(t *testing.T) {
	const stats = "hangshapes/common/pkg/kubelet/stats"
	for name, edit := range map[string]func(string) string{
		"go statement": func(s string) string {
			return strings.Replace(s, "\t_, err := p.runtimeService.ListContainerStats(ctx, \"\")\n\treturn nil, err", "\tdone := make(chan error)\n\tgo func() {\n\t\t_, err := p.runtimeService.ListContainerStats(ctx, \"\")\n\t\tdone <- err\n\t}()\n\treturn nil, <-done", 1)
		},
		"WaitGroup.Go": func(s string) string {
			s = strings.Replace(s, "import (", "import (\n\t\"sync\"", 1)
			return strings.Replace(s, "\t_, err := p.runtimeService.ListContainerStats(ctx, \"\")\n\treturn nil, err", "\tvar wg sync.WaitGroup\n\tvar err error\n\twg.Go(func() { _, err = p.runtimeService.ListContainerStats(ctx, \"\") })\n\twg.Wait()\n\treturn nil, err", 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := edited(t, map[string]func(string) string{stats: edit})
			seen := 0
			for _, c := range h.Collectors {
				for _, r := range c.Reaches {
					seen++
					if want := r.Method == "RuntimeService.ListContainerStats"; r.Concurrent != want {
						t.Errorf("%s %s: concurrent %t, want %t", c.Constructor, r.Method, r.Concurrent, want)
					}
				}
			}
			if seen == 0 {
				t.Fatal("no reach")
			}
		})
	}
	for _, c := range hangOf(t, "v137", "").Collectors {
		for _, r := range c.Reaches {
			if r.Concurrent {
				t.Errorf("unedited: %s concurrent", r.Method)
			}
		}
	}
}

// TestBranchesOfTheStatsProvider: the provider lists either from the
// sandbox stats or from everything ("if p.fromCRI { return ... }; return
// ..."), so each reach names its side; a fork that falls through from
// one to the other (as v1.36's fallback does) makes the second always
// run, and one that writes an else names the same sides.
func TestBranchesOfTheStatsProvider(t *testing.T) {
	const stats = "hangshapes/common/pkg/kubelet/stats"
	branches := func(h *runtimehang.Hang) map[string]string {
		out := map[string]string{}
		for _, c := range h.Collectors {
			if c.Endpoint != "/metrics" {
				continue // the server's paths add their own branches
			}
			for _, r := range c.Reaches {
				out[r.Method] = strings.Join(r.Branches(), " && ")
			}
		}
		return out
	}
	sides := map[string]string{
		"RuntimeService.ListPodSandboxStats": "p.fromCRI",
		"RuntimeService.ListContainerStats":  "!(p.fromCRI)",
		"RuntimeService.ListContainers":      "!(p.fromCRI)",
		"RuntimeService.ListPodSandbox":      "!(p.fromCRI)",
	}
	falls := map[string]string{
		"RuntimeService.ListPodSandboxStats": "p.fromCRI",
		"RuntimeService.ListContainerStats":  "",
		"RuntimeService.ListContainers":      "",
		"RuntimeService.ListPodSandbox":      "",
	}
	for name, tc := range map[string]struct {
		edit func(string) string
		want map[string]string
	}{
		"unedited": {nil, sides},
		"an else": {func(s string) string {
			return strings.Replace(s, "\t\treturn p.fromSandboxStats(ctx)\n\t}\n\treturn p.listAll(ctx)", "\t\treturn p.fromSandboxStats(ctx)\n\t} else {\n\t\treturn p.listAll(ctx)\n\t}", 1)
		}, sides},
		"falls through": {func(s string) string {
			return strings.Replace(s, "\t\treturn p.fromSandboxStats(ctx)\n\t}", "\t\tp.fromSandboxStats(ctx)\n\t}", 1)
		}, falls},
		"an error check returns first": {func(s string) string {
			return strings.Replace(s, "\t\treturn p.fromSandboxStats(ctx)\n\t}", "\t\tif _, err := p.fromSandboxStats(ctx); err == nil {\n\t\t\treturn nil, nil\n\t\t}\n\t}", 1)
		}, falls},
	} {
		t.Run(name, func(t *testing.T) {
			var h *runtimehang.Hang
			if tc.edit == nil {
				h = hangOf(t, "v137", "")
			} else {
				h = edited(t, map[string]func(string) string{stats: tc.edit})
			}
			got := branches(h)
			for m, want := range tc.want {
				if w, ok := got[m]; !ok || w != want {
					t.Errorf("%s runs under %q (reached %t), want %q", m, w, ok, want)
				}
			}
		})
	}
}

// TestCollectorsBoundTheirCalls: a fork whose collectors put a timeout of
// their own on their calls (context.WithTimeout before the provider is
// asked) leaves /metrics answering when the runtime hangs, once each
// collector's timeout is shorter than a scrape's (10s); a longer one, or
// one not a constant, still leaves it waiting.
func TestCollectorsBoundTheirCalls(t *testing.T) {
	const collectors = "hangshapes/common/pkg/kubelet/collectors"
	bound := func(timeout string, both bool) func(string) string {
		return func(s string) string {
			s = strings.Replace(s, "import (\n\t\"context\"\n", "import (\n\t\"context\"\n\t\"time\"\n", 1)
			s = strings.Replace(s, "\tps, _ := c.statsProvider.ListPodStats(context.Background())", "\tctx, cancel := context.WithTimeout(context.Background(), "+timeout+")\n\tdefer cancel()\n\tps, _ := c.statsProvider.ListPodStats(ctx)", 1)
			if both {
				s = strings.Replace(s, "\tps, _ := c.podStats(context.Background())", "\tctx, cancel := context.WithTimeout(context.Background(), "+timeout+")\n\tdefer cancel()\n\tps, _ := c.podStats(ctx)", 1)
			}
			return s
		}
	}
	notPassed := func(s string) string {
		s = bound("5*time.Second", true)(s)
		return strings.ReplaceAll(s, "(ctx)\n", "(context.Background())\n\t_ = ctx\n")
	}
	timeoutVar := func(s string) string {
		s = bound("limit", true)(s)
		return strings.Replace(s, "// Collector is what a registry takes.", "var limit = 5 * time.Second\n\n// Collector is what a registry takes.", 1)
	}
	for name, tc := range map[string]struct {
		edit func(string) string
		dark bool
	}{
		"unedited":                   {nil, true},
		"both bounded by 5s":         {bound("5*time.Second", true), false},
		"one bounded, one not":       {bound("5*time.Second", false), true},
		"both bounded by 30s":        {bound("30*time.Second", true), true},
		"bounded by a variable (5s)": {timeoutVar, true},
		"bounded context not passed": {notPassed, true},
	} {
		t.Run(name, func(t *testing.T) {
			h := hangOf(t, "v137", "")
			if tc.edit != nil {
				h = edited(t, map[string]func(string) string{collectors: tc.edit})
			}
			if got := h.DarkOnHang(); got != tc.dark {
				t.Errorf("DarkOnHang() = %t, want %t", got, tc.dark)
			}
			for _, c := range h.Collectors {
				if c.Endpoint != "/metrics" {
					continue // the server's, not edited
				}
				for _, r := range c.Reaches {
					want := tc.edit != nil && name != "bounded context not passed" && (name != "one bounded, one not" || c.Constructor == "collectors.NewVolumeStatsCollector")
					if b := r.Bound(); (b != nil) != want {
						t.Errorf("%s %s: bound %v", c.Constructor, r.Method, b)
					}
				}
			}
		})
	}
}
