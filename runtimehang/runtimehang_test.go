package runtimehang_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
	"github.com/plegvet/plegvet/runtimehang"
	"github.com/plegvet/plegvet/srcpos"
)

// commonPackages are the look-alike packages every shape's kubelet
// imports, read with their bodies, each before its importers (the
// importer type-checks a package again when loaded twice).
var commonPackages = []string{
	"k8s.io/cri-api/pkg/apis",
	"hangshapes/common/pkg/features",
	"hangshapes/common/pkg/kubelet/container",
	"hangshapes/common/pkg/kubelet/stats",
	"hangshapes/common/pkg/kubelet/server/stats",
	"hangshapes/common/pkg/kubelet/collectors",
	"hangshapes/common/pkg/kubelet/metrics",
	"hangshapes/common/pkg/kubelet/nodestatus",
	"hangshapes/common/pkg/kubelet/apis/config/v1beta1",
	"hangshapes/common/pkg/kubelet/cri/remote",
	"hangshapes/common/pkg/kubelet/kuberuntime",
	"hangshapes/common/pkg/kubelet/pleg",
	"hangshapes/common/pkg/kubelet/server",
}

// hangOf reads a shape under testdata/src/hangshapes: its kubelet
// package (or src, a kubelet file written in the test, when given) and
// the common packages (but those in without).
func hangOf(t *testing.T, shape, src string, without ...string) *runtimehang.Hang {
	t.Helper()
	fset := token.NewFileSet()
	im := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src"))
	in := runtimehang.Input{Fset: fset, RuntimeDown: &constvalue.Value{Value: "30s", Const: "maxWaitForContainerRuntime"}}
	var others []runtimehang.Package
	for _, p := range commonPackages {
		if slices.Contains(without, p) {
			continue
		}
		files, info, _, err := im.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, runtimehang.Package{Path: p, Files: files, Info: info, Bodies: true})
	}
	root := "hangshapes/" + shape + "/pkg/kubelet"
	var files []*ast.File
	var info *types.Info
	var err error
	if src == "" {
		files, info, _, err = im.Load(root)
	} else {
		var f *ast.File
		f, info, _, err = im.Check(root, src)
		files = []*ast.File{f}
	}
	if err != nil {
		t.Fatal(err)
	}
	in.Kubelet = runtimehang.Package{Path: root, Files: files, Info: info, Bodies: true}
	in.Others = others
	return runtimehang.Extract(in)
}

func at(p *srcpos.Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d", path.Base(p.File), p.Line)
}

func unresolvedWhy(why string) string {
	if why == "" {
		return ""
	}
	return " unresolved: " + why
}

func value(v *constvalue.Value) string {
	switch {
	case v == nil:
		return "-"
	case !v.Resolved():
		return "unresolved(" + v.Unresolved + ")"
	}
	return fmt.Sprintf("%s=%s@%s", v.Const, v.Value, at(v.Decl))
}

// describe is the answer in one line per part, for comparing.
func describe(h *runtimehang.Hang) []string {
	var out []string
	for _, c := range h.Collectors {
		out = append(out, fmt.Sprintf("collector %s@%s by %s endpoint=%q%s collect=%s", c.Constructor, at(&c.Registered), c.Register, c.Endpoint, c.EndpointUnknown, c.Collect.Func))
		for _, r := range c.Reaches {
			var steps []string
			for _, s := range r.Steps {
				step := s.Func + "@" + at(&s.Pos)
				if s.When != "" {
					step += " when " + s.When
				}
				if g := s.Gate; g != nil {
					step += fmt.Sprintf(" [%s true=%t set %q@%s gate %q %s@%s%s]", g.Field, g.FieldTrue, g.Set, at(g.SetPos), g.Name, g.Const, at(g.Pos), unresolvedWhy(g.Unresolved))
				}
				steps = append(steps, step)
			}
			out = append(out, fmt.Sprintf("  reach %s via %q: %s", r.Method, r.Provider, strings.Join(steps, " > ")))
		}
		for _, u := range c.Unresolved {
			out = append(out, fmt.Sprintf("  unresolved %s@%s: %s", u.Step.Func, at(&u.Step.Pos), u.Why))
		}
	}
	for _, p := range h.StatsProviders {
		out = append(out, fmt.Sprintf("provider %s@%s when %q (set to %q@%s) gates=%v", p.Constructor, at(&p.Pos), p.When, p.WhenSet, at(p.WhenSetPos), p.Gates))
	}
	if d := h.Deadline; d != nil {
		out = append(out, fmt.Sprintf("deadline %s(%s)@%s setting=%s value=%s default=%s", d.Call, d.Expr, at(&d.Pos), d.Setting, value(d.Value), value(d.Default)))
		for _, c := range d.PerCall {
			out = append(out, fmt.Sprintf("  per call %s by %s@%s: %q@%s", c.Method, c.Impl, at(c.Decl), c.Timeout, at(c.Pos)))
		}
		if d.PerCallUnknown != "" {
			out = append(out, "  per call unknown: "+d.PerCallUnknown)
		}
	}
	if l := h.StatusLoop; l != nil {
		out = append(out, fmt.Sprintf("status %s@%s calls %s@%s started@%s every %s", l.Func, at(l.Decl), l.Status.Func, at(&l.Status.Pos), at(l.Started), value(l.Period)))
	}
	if n := h.NodeStatus; n != nil {
		out = append(out, fmt.Sprintf("nodestatus %s handed to %s@%s in %s, called@%s", n.Method, n.Setter, at(&n.Pos), n.Func, at(n.Call)))
	}
	if h.Unknown != "" {
		out = append(out, "unknown: "+h.Unknown)
	}
	return out
}

// TestShapes reads each look-alike shape and compares the answer with
// testdata/SHAPE.txt (UPDATE_GOLDEN=1 rewrites them).
func TestShapes(t *testing.T) {
	for _, shape := range []string{"v125", "v136", "v137", "unknown"} {
		t.Run(shape, func(t *testing.T) {
			got := strings.Join(describe(hangOf(t, shape, "")), "\n") + "\n"
			golden(t, filepath.Join("testdata", shape+".txt"), got)
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
	}
}

// kubeletSource is the v1.25-shaped look-alike kubelet with edit applied.
func kubeletSource(t *testing.T, edit func(string) string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "src", "hangshapes", "v125", "pkg", "kubelet", "kubelet.go"))
	if err != nil {
		t.Fatal(err)
	}
	src := edit(string(b))
	if src == string(b) {
		t.Fatal("the edit changed nothing")
	}
	return src
}

// kubeletCollectors are the collectors pkg/kubelet registers, not its
// server's paths.
func kubeletCollectors(h *runtimehang.Hang) []runtimehang.Collector {
	var out []runtimehang.Collector
	for _, c := range h.Collectors {
		if path.Base(c.Registered.File) == "kubelet.go" {
			out = append(out, c)
		}
	}
	return out
}

// TestMutations changes the v1.25-shaped fixture and checks the answer
// follows the code, not a table.
func TestMutations(t *testing.T) {
	t.Run("no registration", func(t *testing.T) {
		src := kubeletSource(t, func(s string) string {
			return strings.Replace(s, "metrics.Register(\n\t\tcollectors.NewVolumeStatsCollector(kl),\n\t\tcollectors.NewLogMetricsCollector(kl.StatsProvider.ListPodStats),\n\t)", "_ = metrics.Register", 1)
		})
		h := hangOf(t, "v125", src)
		if len(kubeletCollectors(h)) != 0 || !strings.Contains(h.Unknown, "registers no collector") || h.DarkOnHang() {
			t.Errorf("without a registration: %q", describe(h))
		}
	})
	t.Run("registered elsewhere", func(t *testing.T) {
		src := kubeletSource(t, func(s string) string { return strings.Replace(s, "metrics.Register(", "metrics.RegisterElsewhere(", 1) })
		h := hangOf(t, "v125", src)
		if len(kubeletCollectors(h)) != 2 || h.Collectors[0].Endpoint != "" || !strings.Contains(h.Collectors[0].EndpointUnknown, "does not register with k8s.io/component-base/metrics/legacyregistry") || h.DarkOnHang() {
			t.Errorf("registered in another registry: %q", describe(h))
		}
	})
	t.Run("status period", func(t *testing.T) {
		src := kubeletSource(t, func(s string) string {
			return strings.Replace(s, "const runtimeStatusPeriod = 5 * time.Second", "const runtimeStatusPeriod = 7 * time.Second", 1)
		})
		h := hangOf(t, "v125", src)
		if l := h.StatusLoop; l == nil || l.Period.Value != "7s" || l.Period.Const != "runtimeStatusPeriod" {
			t.Errorf("period changed to 7s: %q", describe(h))
		}
	})
	t.Run("no version setter", func(t *testing.T) {
		src := kubeletSource(t, func(s string) string {
			return strings.Replace(s, "kl.containerRuntime.Version)", "nil)", 1)
		})
		if h := hangOf(t, "v125", src); h.NodeStatus != nil {
			t.Errorf("no runtime Version handed to a setter: %q", describe(h))
		}
	})
	t.Run("stats not read", func(t *testing.T) {
		h := hangOf(t, "v125", "", "hangshapes/common/pkg/kubelet/stats")
		if len(h.CRIMethods()) != 0 || len(kubeletCollectors(h)) != 2 || len(h.Collectors[1].Unresolved) == 0 {
			t.Fatalf("without the stats package: %q", describe(h))
		}
		if u := h.Collectors[1].Unresolved[0]; !strings.Contains(u.Why, "not read") {
			t.Errorf("unresolved says %q", u.Why)
		}
	})
	t.Run("client not read", func(t *testing.T) {
		h := hangOf(t, "v125", "", "hangshapes/common/pkg/kubelet/cri/remote")
		if len(h.Deadline.PerCall) != 0 || !strings.Contains(h.Deadline.PerCallUnknown, "was not read from source") {
			t.Errorf("without the CRI client: %q", describe(h))
		}
	})
	t.Run("defaults not read", func(t *testing.T) {
		h := hangOf(t, "v125", "", "hangshapes/common/pkg/kubelet/apis/config/v1beta1")
		if _, ok := h.DeadlineDuration(); ok || h.Deadline.Default.Unresolved == "" {
			t.Errorf("without the defaults: %q", describe(h))
		}
	})
}

// TestSummary checks what node and alerts read from the answer.
func TestSummary(t *testing.T) {
	h := hangOf(t, "v137", "")
	if d, ok := h.DeadlineDuration(); !ok || d != 2*time.Minute {
		t.Errorf("DeadlineDuration = %v, %t; want 2m0s", d, ok)
	}
	want := []string{"RuntimeService.ListContainerStats", "RuntimeService.ListContainers", "RuntimeService.ListPodSandbox", "RuntimeService.ListPodSandboxStats"}
	if got := h.CRIMethods(); !slices.Equal(got, want) {
		t.Errorf("CRIMethods = %q, want %q", got, want)
	}
	if !h.DarkOnHang() {
		t.Error("DarkOnHang = false")
	}
	sum := h.Summary()
	if !sum.DarkOnHang || sum.Deadline == nil || sum.Deadline.Value != "2m0s" || sum.Setting != "runtimeRequestTimeout" ||
		sum.RuntimeDown.Value != "30s" || sum.StatusPeriod.Value != "5s" || sum.NodeStatus == nil || sum.NodeStatus.Method != "Runtime.Version" ||
		!slices.Equal(sum.CRIMethods, want) || len(sum.Chain) == 0 {
		t.Errorf("Summary = %+v", sum)
	}
	if got := (*runtimehang.Hang)(nil).Summary(); got.DarkOnHang || got.Chain != nil {
		t.Errorf("nil Summary = %+v", got)
	}
	chain := h.Chain()
	if len(chain) < 3 || !strings.HasPrefix(chain[0].Func, "metrics.RegisterCollectors(") || !strings.HasPrefix(chain[len(chain)-1].Func, "RuntimeService.") {
		t.Errorf("Chain = %+v", chain)
	}
}

// TestImplementationsSearchedOnce counts work: the walk reaches the same
// interface methods through several collectors, and each method's
// implementations are searched for once (a search checks every named
// type of the packages read against the interface).
func TestImplementationsSearchedOnce(t *testing.T) {
	searched := map[string]int{}
	runtimehang.SetOnFindImplementations(func(fn *types.Func) { searched[fn.FullName()]++ })
	defer runtimehang.SetOnFindImplementations(nil)
	h := hangOf(t, "v137", "")
	if len(h.Collectors) < 2 {
		t.Fatalf("%d collectors, want the shape's two, which reach the same methods", len(h.Collectors))
	}
	if len(searched) == 0 {
		t.Fatal("no interface method's implementations were searched for")
	}
	for fn, n := range searched {
		if n != 1 {
			t.Errorf("%s: implementations searched for %d times, want once", fn, n)
		}
	}
}
