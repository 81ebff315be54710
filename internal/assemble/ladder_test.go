package assemble

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/runtimehang"
	"github.com/plegvet/plegvet/srcpos"
)

// A loop waits on its calls one after another, except those made in
// goroutines, which wait beside each other: counted once.
func TestSequentialCalls(t *testing.T) {
	reach := func(m string, concurrent bool) runtimehang.Reach {
		return runtimehang.Reach{Method: m, Concurrent: concurrent}
	}
	for _, tc := range []struct {
		name string
		in   []runtimehang.Reach
		want int
	}{
		{"one after another", []runtimehang.Reach{reach("A", false), reach("B", false), reach("A", false)}, 2},
		{"two in goroutines", []runtimehang.Reach{reach("A", false), reach("B", true), reach("C", true)}, 2},
		{"none", nil, 0},
	} {
		if n, ms := sequentialCalls(tc.in); n != tc.want || len(ms) != n {
			t.Errorf("%s: %d %v, want %d", tc.name, n, ms, tc.want)
		}
	}
	if _, ms := sequentialCalls([]runtimehang.Reach{reach("A", true)}); !slices.Contains(ms, "(calls in goroutines, counted once)") {
		t.Errorf("the goroutines are not named: %v", ms)
	}
}

// Calls under X and under !(X) are alternatives: a scrape makes one
// side's (the stats provider's "if p.useCRIPodSandboxStats { return
// strictly() }; return partially()"), so the side adding more counts.
func TestSequentialCallsBranches(t *testing.T) {
	under := func(m string, when ...string) runtimehang.Reach {
		r := runtimehang.Reach{Method: m}
		for _, w := range when {
			r.Steps = append(r.Steps, runtimehang.Step{Func: "f", When: w})
		}
		r.Steps = append(r.Steps, runtimehang.Step{Func: m})
		return r
	}
	for _, tc := range []struct {
		name string
		in   []runtimehang.Reach
		want int
	}{
		{"one side each", []runtimehang.Reach{under("ListPodSandbox"), under("ListContainers"), under("ListPodSandboxStats", "p.cri"), under("ListContainerStats", "!(p.cri)")}, 3},
		{"the larger side", []runtimehang.Reach{under("A"), under("B", "x"), under("C", "!(x)"), under("D", "!(x)")}, 3},
		{"a side already counted adds nothing", []runtimehang.Reach{under("A"), under("A", "x"), under("B", "!(x)")}, 2},
		{"one-sided branch counts", []runtimehang.Reach{under("A"), under("B", "x")}, 2},
		{"two unrelated branches both count", []runtimehang.Reach{under("B", "x"), under("C", "y")}, 2},
		{"nested: one run takes one path", []runtimehang.Reach{under("B", "x", "y"), under("C", "x", "!(y)"), under("D", "!(x)")}, 1},
		{"nested: the longest path", []runtimehang.Reach{under("A"), under("B", "x", "y"), under("C", "x", "y"), under("D", "!(x)")}, 3},
		{"the same condition twice holds once", []runtimehang.Reach{under("B", "x"), under("C", "x"), under("D", "!(x)")}, 2},
	} {
		if n, ms := sequentialCalls(tc.in); n != tc.want || len(ms) != n {
			t.Errorf("%s: %d %v, want %d", tc.name, n, ms, tc.want)
		}
	}
	_, ms := sequentialCalls([]runtimehang.Reach{under("B", "x"), under("C", "!(x)")})
	if len(ms) != 1 || ms[0] != "B (when x; else C)" {
		t.Errorf("the alternative is not named: %v", ms)
	}
}

// A collector whose own timeout is shorter than the scrape's is not
// counted: with every one bounded there is no metrics-dark rung, and the
// ladder says why instead of calling it unknown.
func TestLadderInputsBoundedCollectors(t *testing.T) {
	five := &constvalue.Value{Value: "5s", Expr: "5 * time.Second", Decl: &srcpos.Pos{File: "pkg/kubelet/metrics/collectors/volume_stats.go", Line: 90}}
	collector := func(name string, bound *constvalue.Value, methods ...string) runtimehang.Collector {
		c := runtimehang.Collector{Constructor: name, Endpoint: "/metrics", Collect: &runtimehang.Step{Func: name + ".Collect"}}
		for _, m := range methods {
			c.Reaches = append(c.Reaches, runtimehang.Reach{Method: m, Steps: []runtimehang.Step{{Func: "f", Bound: bound}, {Func: m}}})
		}
		return c
	}
	report := func(cs ...runtimehang.Collector) *answer.Report {
		return &answer.Report{Health: &answer.Health{RuntimeHang: &runtimehang.Hang{Collectors: cs}}}
	}
	in := ladderInputs(report(collector("volume", five, "A", "B", "C"), collector("log", nil, "A")), ladder.DefaultScrapeTimeout, nil)
	if in.ScrapeCalls != 1 || in.ScrapeBounded != "" || !strings.Contains(in.From["scrapeCalls"], "not counted: volume bounds its runtime calls by 5s") {
		t.Errorf("one bounded, one not: %d calls, bounded %q, from %q", in.ScrapeCalls, in.ScrapeBounded, in.From["scrapeCalls"])
	}
	in = ladderInputs(report(collector("volume", five, "A", "B", "C")), ladder.DefaultScrapeTimeout, nil)
	l := ladder.Compute(in, 0)
	if in.ScrapeCalls != 0 || in.ScrapeBounded == "" || l.Rung(ladder.RungMetricsDark) != nil || strings.Contains(l.Unknown, "metrics-dark") {
		t.Errorf("all bounded: %d calls, bounded %q, rung %v, unknown %q", in.ScrapeCalls, in.ScrapeBounded, l.Rung(ladder.RungMetricsDark), l.Unknown)
	}
	// A timeout as long as the scrape's bounds nothing the scrape sees.
	in = ladderInputs(report(collector("volume", five, "A", "B", "C")), 5*time.Second, nil)
	if in.ScrapeCalls != 3 || in.ScrapeBounded != "" {
		t.Errorf("bounded at the scrape timeout: %d calls, bounded %q", in.ScrapeCalls, in.ScrapeBounded)
	}
}

// The server's paths count apart from /metrics: each is its own rung
// against the same timeout, and /metrics' count is not theirs.
func TestLadderInputsServerPaths(t *testing.T) {
	served := func(endpoint string, handler bool, methods ...string) runtimehang.Collector {
		c := runtimehang.Collector{Constructor: endpoint, Endpoint: endpoint, Handler: handler, Collect: &runtimehang.Step{Func: "serve"}}
		for _, m := range methods {
			c.Reaches = append(c.Reaches, runtimehang.Reach{Method: m, Steps: []runtimehang.Step{{Func: m}}})
		}
		return c
	}
	r := &answer.Report{Health: &answer.Health{RuntimeHang: &runtimehang.Hang{Collectors: []runtimehang.Collector{
		served("/metrics", false, "A", "B"),
		served("/metrics/resource", false, "A", "B", "C"),
		served("/stats/summary", true, "A", "B", "C", "D", "E"),
		served("/metrics/cadvisor", false, "F"),
	}}}}
	in := ladderInputs(r, ladder.DefaultScrapeTimeout, nil)
	if in.ScrapeCalls != 2 || in.ResourceScrapeCalls != 3 || in.SummaryCalls != 5 {
		t.Fatalf("calls: /metrics %d, /metrics/resource %d, /stats/summary %d", in.ScrapeCalls, in.ResourceScrapeCalls, in.SummaryCalls)
	}
	if !strings.Contains(in.From["summaryCalls"], "/stats/summary's serve calls") {
		t.Errorf("summaryCalls from %q", in.From["summaryCalls"])
	}
	l := ladder.Compute(in, 0)
	for name, want := range map[string]float64{ladder.RungMetricsDark: 5, ladder.RungResourceDark: 10.0 / 3, ladder.RungSummaryDark: 2} {
		if g := l.Rung(name); g == nil || g.Seconds < want-0.001 || g.Seconds > want+0.001 {
			t.Errorf("rung %s: %+v, want %gs", name, g, want)
		}
	}
	// A kubelet whose server asks nothing of the runtime has no such rungs.
	r.Health.RuntimeHang.Collectors = r.Health.RuntimeHang.Collectors[:1]
	if l := ladder.Compute(ladderInputs(r, ladder.DefaultScrapeTimeout, nil), 0); l.Rung(ladder.RungResourceDark) != nil || l.Rung(ladder.RungSummaryDark) != nil {
		t.Errorf("rungs without the paths: %+v", l.Rungs)
	}
}
