package runtimehang_test

import (
	"path"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/runtimehang"
)

// gateOf is the gate of the innermost branch the collectors' reach of
// method runs under, and the step it is on; fails when none.
func gateOf(t *testing.T, h *runtimehang.Hang, method string) (*runtimehang.BranchGate, runtimehang.Step) {
	t.Helper()
	for _, c := range h.Collectors {
		for _, r := range c.Reaches {
			if r.Method != method {
				continue
			}
			for i := len(r.Steps) - 1; i >= 0; i-- {
				if r.Steps[i].When != "" {
					if r.Steps[i].Gate == nil {
						t.Fatalf("%s runs under %q with no gate", method, r.Steps[i].When)
					}
					return r.Steps[i].Gate, r.Steps[i]
				}
			}
		}
	}
	t.Fatalf("%s is reached under no branch: %q", method, describe(h))
	return nil, runtimehang.Step{}
}

const (
	statsPkg    = "hangshapes/common/pkg/kubelet/stats"
	featuresPkg = "hangshapes/common/pkg/features"
	gateCheck   = "features.DefaultFeatureGate.Enabled(features.PodAndContainerStatsFromCRI)"
)

// TestBranchGate: the stats provider's branch reads a field set from its
// constructor's parameter, which the constructor passes on from its own,
// which the kubelet gives a feature gate's check: the branch follows the
// gate, the side reading the field true needs it on. A field set from
// anything else is unresolved, saying what.
func TestBranchGate(t *testing.T) {
	for _, shape := range []string{"v125", "v137"} {
		h := hangOf(t, shape, "")
		g, s := gateOf(t, h, "RuntimeService.ListPodSandboxStats")
		if g.Name != "PodAndContainerStatsFromCRI" || g.Const != "PodAndContainerStatsFromCRI" || g.Unresolved != "" || !g.FieldTrue ||
			g.Field != "p.fromCRI" || g.Set != "fromCRI" || g.SetPos == nil || path.Base(g.SetPos.File) != "provider.go" ||
			g.Pos == nil || path.Base(g.Pos.File) != "kubelet.go" || s.NeedsGate() != "PodAndContainerStatsFromCRI" {
			t.Errorf("%s: strict side's gate %+v (needs %q)", shape, g, s.NeedsGate())
		}
		g, s = gateOf(t, h, "RuntimeService.ListContainerStats")
		if g.Name != "PodAndContainerStatsFromCRI" || g.FieldTrue || s.NeedsGate() != "" {
			t.Errorf("%s: the other side's gate %+v (needs %q)", shape, g, s.NeedsGate())
		}
	}
	// v1.36's look-alike hands the provider a field of its dependencies.
	g, s := gateOf(t, hangOf(t, "v136", ""), "RuntimeService.ListPodSandboxStats")
	if g.Name != "" || !strings.Contains(g.Unresolved, "deps.fromCRI") || s.NeedsGate() != "" {
		t.Errorf("v136: %+v", g)
	}
	for name, tc := range map[string]struct {
		edits map[string]func(string) string
		gate  string // "" for unresolved
		why   string // in Unresolved
		set   string
	}{
		"a plain variable": {map[string]func(string) string{kubeletPkg: func(s string) string {
			s = strings.Replace(s, gateCheck, "fromCRI", 1)
			return strings.Replace(s, "kl := &Kubelet{}", "kl := &Kubelet{}\n\tfromCRI := deps.RemoteRuntimeService != nil", 1)
		}}, "", "fromCRI, a variable", "fromCRI"},
		"one side of an && (v1.37's field)": {map[string]func(string) string{statsPkg: func(s string) string {
			return strings.Replace(s, "fromCRI: fromCRI}", "fromCRI: fromCRI && rs != nil}", 1)
		}}, "PodAndContainerStatsFromCRI", "", "fromCRI && rs != nil"},
		"two gates": {map[string]func(string) string{
			featuresPkg: func(s string) string {
				return s + "\n// SandboxStats is another gate.\nconst SandboxStats Feature = \"SandboxStats\"\n"
			},
			kubeletPkg: func(s string) string {
				return strings.Replace(s, gateCheck, gateCheck+" && features.DefaultFeatureGate.Enabled(features.SandboxStats)", 1)
			},
		}, "", "two gates (PodAndContainerStatsFromCRI, SandboxStats)", "fromCRI"},
		"a call of no gate": {map[string]func(string) string{kubeletPkg: func(s string) string {
			return strings.Replace(s, gateCheck, "usingLegacyCadvisorStats(\"\")", 1)
		}}, "", "not a feature gate's check", "fromCRI"},
		"set again in an assignment": {map[string]func(string) string{statsPkg: func(s string) string {
			return strings.Replace(s, "\tif p.fromCRI {", "\tp.fromCRI = len(ctx.Value(\"x\").(string)) > 0\n\tif p.fromCRI {", 1)
		}}, "", "is set in 2 places", "fromCRI"},
	} {
		t.Run(name, func(t *testing.T) {
			g, s := gateOf(t, edited(t, tc.edits), "RuntimeService.ListPodSandboxStats")
			if g.Name != tc.gate || !strings.Contains(g.Unresolved, tc.why) || g.Set != tc.set || (tc.gate == "") != (g.Unresolved != "") || s.NeedsGate() != tc.gate {
				t.Errorf("gate %+v, want %q (unresolved %q, set %q)", g, tc.gate, tc.why, tc.set)
			}
		})
	}
	// Written the other way round (if !p.fromCRI), the gate is needed on
	// the else side.
	h := edited(t, map[string]func(string) string{statsPkg: func(s string) string {
		return strings.Replace(s, "\tif p.fromCRI {\n\t\treturn p.fromSandboxStats(ctx)\n\t}\n\treturn p.listAll(ctx)", "\tif !p.fromCRI {\n\t\treturn p.listAll(ctx)\n\t}\n\treturn p.fromSandboxStats(ctx)", 1)
	}})
	if g, s := gateOf(t, h, "RuntimeService.ListPodSandboxStats"); s.When != "!(!p.fromCRI)" || !g.FieldTrue || s.NeedsGate() != "PodAndContainerStatsFromCRI" {
		t.Errorf("negated: %q %+v", s.When, g)
	}
	if g, s := gateOf(t, h, "RuntimeService.ListContainers"); s.When != "!p.fromCRI" || g.FieldTrue || s.NeedsGate() != "" {
		t.Errorf("negated, the other side: %q %+v", s.When, g)
	}
}

// TestBranchIsTheGateCheck: a branch whose condition is the gate's check
// itself (if !DefaultFeatureGate.Enabled(G), as v1.37's image stats are
// written) is Exact: its side runs in one state of the gate, the else in
// the other.
func TestBranchIsTheGateCheck(t *testing.T) {
	h := edited(t, map[string]func(string) string{statsPkg: func(s string) string {
		s = strings.Replace(s, "import (\n", "import (\n\t\"hangshapes/common/pkg/features\"\n", 1)
		return strings.Replace(s, "\tif p.fromCRI {\n\t\treturn p.fromSandboxStats(ctx)\n\t}\n\treturn p.listAll(ctx)",
			"\tif !features.DefaultFeatureGate.Enabled(features.PodAndContainerStatsFromCRI) {\n\t\treturn p.listAll(ctx)\n\t} else {\n\t\treturn p.fromSandboxStats(ctx)\n\t}", 1)
	}})
	g, s := gateOf(t, h, "RuntimeService.ListContainers")
	name, on, ok := s.GateState()
	if !g.Exact || g.Name != "PodAndContainerStatsFromCRI" || g.FieldTrue || !ok || on || name != g.Name || s.NeedsGate() != "" {
		t.Errorf("the if's side: %+v, state %q %t %t", g, name, on, ok)
	}
	g, s = gateOf(t, h, "RuntimeService.ListPodSandboxStats")
	if name, on, ok := s.GateState(); !g.Exact || !g.FieldTrue || !ok || !on || s.NeedsGate() != name {
		t.Errorf("the else: %+v, state %q %t %t", g, name, on, ok)
	}
	// A field's false side says nothing of its gate (the field may be
	// "G && other").
	_, s = gateOf(t, hangOf(t, "v137", ""), "RuntimeService.ListContainerStats")
	if _, _, ok := s.GateState(); ok {
		t.Errorf("a field's false side decides its gate: %+v", s.Gate)
	}
}
