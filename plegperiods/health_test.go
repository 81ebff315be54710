package plegperiods_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/srcpos"
)

// healthOf reads the health rule of a look-alike tree under
// testdata/src/healthshapes, as the pleg analyzer does: the pleg
// package's constructors first, then the kubelet package (or src, a
// kubelet package written in the test, when given).
func healthOf(t *testing.T, tree, src string) *plegperiods.Health {
	t.Helper()
	fset := token.NewFileSet()
	im := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src"))
	root := "healthshapes/" + tree + "/pkg/kubelet"
	pfiles, pinfo, _, err := im.Load(root + "/pleg")
	if err != nil {
		t.Fatal(err)
	}
	ctors := map[*types.Func]*plegperiods.Shape{}
	for _, c := range plegperiods.Constructors(fset, pfiles, pinfo) {
		ctors[c.Func] = &c.Shape
	}
	var files []*ast.File
	var info *types.Info
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
	cs := plegperiods.Constructions(fset, files, info, func(fn *types.Func) *plegperiods.Shape { return ctors[fn] })
	relist := plegperiods.Modes(fset, cs)
	return plegperiods.HealthOf(fset, files, info, relist, plegperiods.HealthChecks(fset, files, info, cs))
}

// at is "file.go:LINE" for a position.
func at(p *srcpos.Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d", path.Base(p.File), p.Line)
}

func value(v *plegperiods.Value) string {
	switch {
	case v == nil:
		return "-"
	case !v.Resolved():
		return "unresolved"
	}
	return fmt.Sprintf("%s=%s@%s", v.Const, v.Value, at(v.Decl))
}

// describe is the health rule in one line per part, for comparing.
func describe(h *plegperiods.Health) []string {
	var out []string
	for _, c := range h.Checks {
		s := fmt.Sprintf("check %s@%s pleg=%s %s rule=%s", c.Name, at(&c.Registered), c.PLEG, c.Method, c.Rule)
		if g := c.Gate; g != nil {
			s += fmt.Sprintf(" gate=%s:%t@%s", g.Name, g.On, at(&g.Test))
		}
		if th := c.Threshold; th != nil {
			s += fmt.Sprintf(" off=%s on=%s fallback=%s", value(th.GateOff), value(th.GateOn), value(th.Fallback))
		}
		if c.Capacity != nil {
			s += " capacity=" + value(c.Capacity)
		}
		out = append(out, s)
		for _, m := range c.Messages {
			out = append(out, fmt.Sprintf("  %s %q@%s", m.When, m.Format, at(&m.Pos)))
		}
		for _, r := range c.Records {
			out = append(out, fmt.Sprintf("  records %s@%s", r.Expr, at(&r.Pos)))
		}
	}
	if m := h.RuntimeErrors; m != nil {
		out = append(out, fmt.Sprintf("runtimeErrors %q@%s", m.Format, at(&m.Pos)))
	}
	if d := h.RuntimeDown; d != nil {
		out = append(out, fmt.Sprintf("runtimeDown %q@%s after %s", d.Format, at(&d.Pos), value(d.Threshold)))
	}
	if s := h.SyncLoopSkip; s != nil {
		out = append(out, fmt.Sprintf("skip %s %q@%s backoff@%s", s.Func, s.Message, at(&s.Pos), at(s.Backoff)))
	}
	if w := h.ReadyCondition; w != nil {
		out = append(out, fmt.Sprintf("ready %s@%s decl@%s", w.Func, at(&w.Pos), at(w.Decl)))
	}
	if r := h.Reconcile; r != nil && r.List != nil && r.Compare != nil {
		out = append(out, fmt.Sprintf("list %s in %s@%s; compare %s in %s@%s", r.List.Expr, r.List.Func, at(&r.List.Pos), r.Compare.Expr, r.Compare.Func, at(&r.Compare.Pos)))
	}
	if h.Unknown != "" {
		out = append(out, "unknown: "+h.Unknown)
	}
	return out
}

// Each shape of the health rule, read from look-alikes: the values and
// positions come from the fixtures' code, which names nothing as the
// kubelet does.
func TestHealthShapes(t *testing.T) {
	tests := []struct {
		tree string
		want []string
	}{{
		tree: "constthreshold", // before v1.26: a constant of the pleg package, no evented PLEG
		want: []string{
			"check PLEG@kubelet.go:27 pleg=generic GenericPLEG.Healthy rule=relist-elapsed off=staleAfter=4m0s@generic.go:14 on=- fallback=-",
			`  never-relisted "no pass has finished yet"@generic.go:73`,
			`  threshold-exceeded "last pass finished %v ago, limit %v"@generic.go:76`,
			`runtimeErrors "check %s failed: %v"@runtime.go:40`,
			`runtimeDown "runtime unreachable"@runtime.go:36 after runtimeGrace=45s@kubelet.go:14`,
			`skip loop "Pods left unsynced: runtime unhealthy"@kubelet.go:37 backoff@kubelet.go:38`,
			"ready nodestatus.ReadyCondition@kubelet.go:28 decl@nodestatus.go:10",
			"list g.runtime.ListAll(true) in pass@generic.go:51; compare after == before in diff@generic.go:65",
		},
	}, {
		tree: "channelfull", // v1.26 to v1.36: the limit in a durations struct, an evented check under the gate
		want: []string{
			"check PLEG@kubelet.go:45 pleg=generic GenericPLEG.Healthy rule=relist-elapsed off=fastLimit=2m0s@kubelet.go:20 on=slowLimit=8m0s@kubelet.go:22 fallback=fastLimit=2m0s@kubelet.go:20",
			`  never-relisted "never swept"@pleg.go:81`,
			`  threshold-exceeded "swept %v ago, over %v"@pleg.go:86`,
			"  records metrics.LastSeen.Set(float64(g.done.Unix()))@pleg.go:83",
			"check EventedPLEG@kubelet.go:47 pleg=evented EventedPLEG.Healthy rule=event-channel-full gate=EventedPLEG:true@kubelet.go:46 capacity=eventBuffer=640@kubelet.go:17",
			`  channel-full "event channel holds %d events, its capacity"@pleg.go:123`,
			"  records metrics.LastSeen.Set(float64(time.Now().Unix()))@pleg.go:125",
			`runtimeErrors "%s unhealthy: %v"@state.go:33`,
			`runtimeDown "runtime silent too long"@state.go:29 after statusGrace=20s@kubelet.go:25`,
			`skip run "Skipping a sync: unhealthy"@kubelet.go:56 backoff@kubelet.go:57`,
			"ready nodestatus.ReadyCondition@kubelet.go:49 decl@nodestatus.go:10",
			"list g.runtime.Pods(true) in Sweep@pleg.go:59; compare then == now in compare@pleg.go:73",
		},
	}, {
		tree: "watcher", // after v1.36: one check, the same limit in both modes, no fallback
		want: []string{
			"check PLEG@kubelet.go:62 pleg=generic GenericPLEG.Healthy rule=relist-elapsed off=threshold=5m0s@kubelet.go:19 on=threshold=5m0s@kubelet.go:19 fallback=-",
			`  never-relisted "not relisted once"@pleg.go:93`,
			`  threshold-exceeded "relisted %v ago; allowed %v"@pleg.go:96`,
			`runtimeErrors "%s: %v"@kubelet.go:50`,
			`runtimeDown "runtime status stale"@kubelet.go:46 after upWithin=1m0s@kubelet.go:21`,
			`skip syncLoop "sync held back:"@kubelet.go:70 backoff@-`,
			"ready nodestatus.ReadyCondition@kubelet.go:63 decl@nodestatus.go:10",
			"list g.lister.Containers(\"\", true) in Relist@pleg.go:71; compare is == was in events@pleg.go:85",
		},
	}, {
		tree: "unknown", // a fork's check that counts failures: no known rule
		want: []string{
			"check PLEG@kubelet.go:19 pleg=generic GenericPLEG.Healthy rule=unknown",
			`  other "relist failed too often"@pleg.go:32`,
			"unknown: no registered PLEG health check matches a known rule: GenericPLEG.Healthy compares no duration with a threshold and checks no channel's fill",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			got := describe(healthOf(t, tt.tree, ""))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A kubelet that registers no check, or registers one on something that
// is no PLEG, has an unknown health rule, with why.
func TestHealthNoCheck(t *testing.T) {
	for name, src := range map[string]string{
		"none": `package kubelet
import ("time"; "healthshapes/unknown/pkg/kubelet/pleg")
func New() pleg.PodLifecycleEventGenerator { return pleg.NewGenericPLEG(time.Second) }
`,
		"not a PLEG": `package kubelet
import ("time"; "healthshapes/unknown/pkg/kubelet/pleg")
type disk struct{}
func (disk) Healthy() (bool, error) { return true, nil }
func register(string, func() (bool, error)) {}
func New() pleg.PodLifecycleEventGenerator {
	register("disk", disk{}.Healthy)
	return pleg.NewGenericPLEG(time.Second)
}
`,
	} {
		t.Run(name, func(t *testing.T) {
			h := healthOf(t, "unknown", src)
			if len(h.Checks) != 0 || !strings.Contains(h.Unknown, "registers no PLEG health check") {
				t.Errorf("checks %v, unknown %q; want none, and why", describe(h), h.Unknown)
			}
		})
	}
}

func TestIsNodeStatusPackage(t *testing.T) {
	for p, want := range map[string]bool{
		"k8s.io/kubernetes/pkg/kubelet/nodestatus":  true,
		"example.com/fork/pkg/kubelet/nodestatus":   true,
		"k8s.io/kubernetes/pkg/kubelet/nodestatus2": false,
		"k8s.io/kubernetes/pkg/kubelet":             false,
	} {
		if got := plegperiods.IsNodeStatusPackage(p); got != want {
			t.Errorf("IsNodeStatusPackage(%q) = %t, want %t", p, got, want)
		}
	}
}
