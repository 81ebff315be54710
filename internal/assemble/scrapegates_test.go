package assemble

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/runtimehang"
	"github.com/plegvet/plegvet/srcpos"
)

const statsGate = "PodAndContainerStatsFromCRI"

// gatedReach is a call of m under the branch when, whose field follows
// gate (fieldTrue: the branch reads it true); an unresolved gate when
// gate is "", and no branch when when is "".
func gatedReach(m, when, gate string, fieldTrue bool) runtimehang.Reach {
	s := runtimehang.Step{Func: "criStatsProvider.listPodStats", When: when}
	if when != "" {
		g := &runtimehang.BranchGate{Field: "p.fromCRI", FieldTrue: fieldTrue, Name: gate, Const: gate}
		if gate == "" {
			g.Unresolved = "fromCRI is set from deps.fromCRI, neither a constructor's parameter nor a feature gate's check"
		}
		s.Gate = g
	}
	return runtimehang.Reach{Method: m, Steps: []runtimehang.Step{s, {Func: m}}}
}

// Up to v1.36 the strict listing (under p.fromCRI) falls through to the
// partial one; v1.37 takes one or the other.
var (
	fallsThrough = []runtimehang.Reach{gatedReach("ListPodSandbox", "", "", false), gatedReach("ListContainers", "", "", false),
		gatedReach("ListContainerStats", "", "", false), gatedReach("ListPodSandboxStats", "p.fromCRI", statsGate, true)}
	eitherOr = []runtimehang.Reach{gatedReach("ListPodSandbox", "", "", false), gatedReach("ListContainers", "", "", false),
		gatedReach("ListContainerStats", "!(p.fromCRI)", statsGate, false), gatedReach("ListPodSandboxStats", "p.fromCRI", statsGate, true)}
)

func lookup(d gateDefault) gateLookup {
	return func(string) gateDefault { return d }
}

var (
	offByDefault = lookup(gateDefault{known: true, says: "off by default (pkg/features/kube_features.go:1762)"})
	onByDefault  = lookup(gateDefault{on: true, known: true, says: "on by default"})
	unknown      = lookup(gateDefault{says: "default unknown (no spec)"})
)

// A call whose branch needs a gate off by default is not made on a
// default node: not counted, and named. On by default, or of a default
// not known, it is counted (the worst case), the gate named.
func TestGatedCalls(t *testing.T) {
	unresolved := append(fallsThrough[:3:3], gatedReach("ListPodSandboxStats", "p.fromCRI", "", true))
	for _, tc := range []struct {
		name    string
		in      []runtimehang.Reach
		gates   gateLookup
		want    int
		note    string // in ms
		skipped string // in skipped
	}{
		{"falls through, off", fallsThrough, offByDefault, 3, "ListContainerStats", "ListPodSandboxStats (only when p.fromCRI, feature gate PodAndContainerStatsFromCRI: off by default (pkg/features/kube_features.go:1762), not counted)"},
		{"falls through, on", fallsThrough, onByDefault, 4, "ListPodSandboxStats (only when p.fromCRI, feature gate PodAndContainerStatsFromCRI: on by default, counted)", ""},
		{"falls through, unknown", fallsThrough, unknown, 4, "ListPodSandboxStats (only when p.fromCRI, feature gate PodAndContainerStatsFromCRI: default unknown (no spec), counted)", ""},
		{"falls through, no gate read", fallsThrough, nil, 4, "ListPodSandboxStats (only when p.fromCRI, counted)", ""},
		{"field not followed", unresolved, offByDefault, 4, "ListPodSandboxStats (only when p.fromCRI, p.fromCRI not followed to a feature gate: fromCRI is set from deps.fromCRI", ""},
		{"either or, off", eitherOr, offByDefault, 3, "ListContainerStats (only when !(p.fromCRI), feature gate PodAndContainerStatsFromCRI: off by default", "ListPodSandboxStats (only when p.fromCRI"},
		{"either or, on", eitherOr, onByDefault, 3, "ListPodSandboxStats (when p.fromCRI, feature gate PodAndContainerStatsFromCRI: on by default; else ListContainerStats)", ""},
	} {
		n, ms, skipped := gatedCalls(tc.in, tc.gates)
		if n != tc.want || len(ms) != n || !strings.Contains(strings.Join(ms, "|"), tc.note) || !strings.Contains(strings.Join(skipped, "|"), tc.skipped) || (tc.skipped == "") != (len(skipped) == 0) {
			t.Errorf("%s: %d %q, skipped %q; want %d, %q, skipped %q", tc.name, n, ms, skipped, tc.want, tc.note, tc.skipped)
		}
	}
	// A call skipped under its gate but made elsewhere is counted there.
	if _, _, skipped := gatedCalls(append(fallsThrough, gatedReach("ListContainers", "p.fromCRI", statsGate, true)), offByDefault); len(skipped) != 1 {
		t.Errorf("skipped %q, want ListPodSandboxStats alone", skipped)
	}
}

// The ladder counts what a default node makes, and keeps what a node
// with the gate on makes, for plegvet node.
func TestLadderInputsGated(t *testing.T) {
	c := runtimehang.Collector{Constructor: "collectors.NewVolumeStatsCollector", Endpoint: "/metrics", Collect: &runtimehang.Step{Func: "volumeStatsCollector.CollectWithStability"}, Reaches: fallsThrough}
	r := &answer.Report{Health: &answer.Health{RuntimeHang: &runtimehang.Hang{Collectors: []runtimehang.Collector{c}}}}
	in := ladderInputs(r, ladder.DefaultScrapeTimeout, offByDefault)
	if in.ScrapeCalls != 3 || in.ScrapeCallsGated[statsGate] != 4 || len(in.ScrapeCallsGated) != 1 ||
		!strings.Contains(in.From["scrapeCalls"], "ListPodSandboxStats (only when p.fromCRI, feature gate PodAndContainerStatsFromCRI: off by default (pkg/features/kube_features.go:1762), not counted)") ||
		!strings.HasPrefix(in.From["scrapeCallsGated"], "with PodAndContainerStatsFromCRI on, 4: collectors.NewVolumeStatsCollector's") {
		t.Errorf("off by default: %d calls, gated %v, from %q", in.ScrapeCalls, in.ScrapeCallsGated, in.From)
	}
	in = ladderInputs(r, ladder.DefaultScrapeTimeout, onByDefault)
	if in.ScrapeCalls != 4 || in.ScrapeCallsGated != nil || in.From["scrapeCallsGated"] != "" || !strings.Contains(in.From["scrapeCalls"], "on by default, counted") {
		t.Errorf("on by default: %d calls, gated %v, from %q", in.ScrapeCalls, in.ScrapeCallsGated, in.From["scrapeCalls"])
	}
}

// The defaults are the specs the report reads for the feature gate's
// dependencies, at the tree's version.
func TestGateDefaults(t *testing.T) {
	spec := func(v string, on bool) answer.Spec {
		return answer.Spec{Version: v, Default: on, Pos: srcpos.Pos{File: "pkg/features/kube_features.go", Line: 1762}}
	}
	gates := &answer.GatesReport{Gates: []answer.Gate{
		{Name: statsGate, Decl: &srcpos.Pos{File: "pkg/features/kube_features.go", Line: 744}, Specs: []answer.Spec{spec("1.23", false), spec("1.40", true)}},
	}}
	for _, tc := range []struct {
		version, name string
		on, known     bool
		says          string
	}{
		{"v1.36.5", statsGate, false, true, "off by default (pkg/features/kube_features.go:1762)"},
		{"v1.40.0", statsGate, true, true, "on by default"},
		{"v1.36.5", "NoSuchGate", false, false, "declares no such gate"},
	} {
		d := gateDefaults(gates, tc.version)(tc.name)
		if d.on != tc.on || d.known != tc.known || !strings.Contains(d.says, tc.says) {
			t.Errorf("%s at %s: %+v, want on %t known %t %q", tc.name, tc.version, d, tc.on, tc.known, tc.says)
		}
	}
}

// /stats/summary's handler, as v1.37 writes it: CPU and memory alone, or
// the whole summary, which asks the image filesystem and lists images
// only with KubeletSeparateDiskGC off (a branch that is the gate's check
// itself). The slowest run is the whole summary's, its calls as the
// gates' defaults decide them.
func TestSlowestRunOfTheSummary(t *testing.T) {
	const gcGate = "KubeletSeparateDiskGC"
	step := func(when string, g *runtimehang.BranchGate) runtimehang.Step {
		return runtimehang.Step{Func: "f", When: when, Gate: g}
	}
	stats := &runtimehang.BranchGate{Field: "p.useCRI", FieldTrue: true, Name: statsGate, Const: statsGate}
	notStats := &runtimehang.BranchGate{Field: "p.useCRI", Name: statsGate, Const: statsGate}
	noGC := &runtimehang.BranchGate{Field: "!Enabled(" + gcGate + ")", Exact: true, Name: gcGate, Const: gcGate}
	reach := func(m string, steps ...runtimehang.Step) runtimehang.Reach {
		return runtimehang.Reach{Method: m, Steps: append(steps, runtimehang.Step{Func: m})}
	}
	var rs []runtimehang.Reach
	for _, side := range []string{"onlyCPU", "!(onlyCPU)"} {
		rs = append(rs, reach("ListPodSandbox", step(side, nil)), reach("ListContainers", step(side, nil)),
			reach("ListPodSandboxStats", step(side, nil), step("p.useCRI", stats)),
			reach("ListContainerStats", step(side, nil), step("!(p.useCRI)", notStats)))
	}
	rs = append(rs, reach("ImageFsInfo", step("!(onlyCPU)", nil)), reach("ListImages", step("!(onlyCPU)", nil), step("!Enabled("+gcGate+")", noGC)))
	defaults := func(on map[string]bool) gateLookup {
		return func(name string) gateDefault {
			return gateDefault{on: on[name], known: true, says: fmt.Sprintf("on %t by default", on[name])}
		}
	}
	for _, tc := range []struct {
		name  string
		gates gateLookup
		want  int
		made  []string
		not   string
	}{
		{"v1.37's defaults", defaults(map[string]bool{gcGate: true}), 4, []string{"ImageFsInfo", "ListPodSandbox", "ListContainers", "ListContainerStats"}, "ListImages"},
		{"image GC gate off", defaults(map[string]bool{}), 5, []string{"ImageFsInfo", "ListImages", "ListContainerStats"}, "ListPodSandboxStats ("},
		{"stats gate on", defaults(map[string]bool{gcGate: true, statsGate: true}), 4, []string{"ImageFsInfo"}, "ListImages"},
		{"no gate read", nil, 5, []string{"ImageFsInfo", "ListImages"}, ""},
	} {
		n, ms, skipped := gatedCalls(rs, tc.gates)
		all := strings.Join(ms, "|")
		if tc.not == "ListImages" && !strings.Contains(strings.Join(skipped, "|"), "ListImages (only when !Enabled(KubeletSeparateDiskGC), feature gate KubeletSeparateDiskGC: on true by default, not counted)") {
			t.Errorf("%s: the call its gate's default rules out is not named: %q", tc.name, skipped)
		}
		if n != tc.want || len(ms) != n {
			t.Errorf("%s: %d %q, want %d", tc.name, n, ms, tc.want)
		}
		for _, m := range tc.made {
			if !strings.Contains(all, m) {
				t.Errorf("%s: %q lacks %s", tc.name, ms, m)
			}
		}
		if tc.not != "" && strings.Contains(all, tc.not) {
			t.Errorf("%s: %q counts %s", tc.name, ms, tc.not)
		}
	}
}

// Past maxBranches conditions, the runs are not tried each way: every
// call counts (the most a run could make), and ms says so.
func TestSlowestRunTooManyConditions(t *testing.T) {
	var rs []runtimehang.Reach
	for i := range maxBranches + 1 {
		rs = append(rs, runtimehang.Reach{Method: fmt.Sprint("M", i), Steps: []runtimehang.Step{{Func: "f", When: fmt.Sprint("c", i)}, {Func: "m"}}})
	}
	rs = append(rs, runtimehang.Reach{Method: "A", Steps: []runtimehang.Step{{Func: "A"}}})
	n, ms, _ := gatedCalls(rs, nil)
	if n != maxBranches+2 || ms[len(ms)-1] != fmt.Sprintf("(%d conditions, not tried each way: every call counted)", maxBranches+1) {
		t.Errorf("%d %q", n, ms)
	}
	// At maxBranches they are tried: one run makes every call of its own
	// condition, all of them here (each condition true).
	n, ms, _ = gatedCalls(rs[1:], nil)
	if n != maxBranches+1 || strings.Contains(strings.Join(ms, "|"), "not tried") {
		t.Errorf("at %d conditions: %d %q", maxBranches, n, ms)
	}
}
