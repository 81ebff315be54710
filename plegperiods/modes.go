package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/srcpos"
)

// Mode is what runs with the gate off: the generic relist.
type Mode struct {
	// Period and Threshold are the generic relist's; Call is its
	// construction. All three are null when no generic PLEG runs.
	Period    *Value      `json:"period"`
	Threshold *Value      `json:"threshold"`
	Call      *srcpos.Pos `json:"call"`
	// Loop is where the relist loop consumes the period, and how.
	Loop     *srcpos.Pos `json:"loop"`
	LoopCall string      `json:"loopCall"`
	// Generic is the generic PLEG construction that runs in this mode;
	// nil when none does.
	Generic *Construction `json:"-"`
}

// GateOnMode is what runs with the gate on: the generic relist, and the
// evented PLEG beside it.
type GateOnMode struct {
	Mode
	// Evented is the evented PLEG's construction; Fallback the period it
	// restores on the generic PLEG after the stream fails for good (null:
	// none); MaxStreamRetries how many failed streams it tolerates first.
	Evented          *srcpos.Pos `json:"evented"`
	Fallback         *Value      `json:"fallback"`
	MaxStreamRetries *RetryCount `json:"maxStreamRetries"`
	// EventedCall is the evented PLEG construction, FallbackThreshold the
	// threshold it restores with Fallback, Retries MaxStreamRetries'
	// value.
	EventedCall       *Construction `json:"-"`
	FallbackThreshold *Value        `json:"-"`
	Retries           *Value        `json:"-"`
}

// Relist is the two modes of a tree's kubelet.
type Relist struct {
	// Gate is the feature gate deciding the evented PLEG, with the test
	// that decides it; nil when the tree builds no evented PLEG.
	Gate *RelistGate `json:"gate"`
	// GateUnresolved is set (gate, gateOn and ratio null) when the tree
	// builds an evented PLEG under a test plegvet could not follow to a
	// feature gate: which PLEG runs is unknown. gateOff is then what runs
	// when that test has the other value.
	GateUnresolved *UnfollowedTest `json:"gateUnresolved"`
	// GateOff is what runs with the gate off (or always, without a gate).
	GateOff *Mode `json:"gateOff"`
	// GateOn is nil when the tree has no such gate.
	GateOn *GateOnMode `json:"gateOn"`
	// Ratio is the gate-on period over the gate-off period; nil when
	// either is missing or unresolved.
	Ratio *float64 `json:"ratio"`
	// GateSetInCode are the writes of the deciding gate made in code by
	// the package building the PLEGs (an init calling SetFromMap): they,
	// not the gate's default, decide what a node that sets nothing runs.
	GateSetInCode []featuregates.GateWrite `json:"gateSetInCode,omitempty"`

	// GateConst is the gate's constant, GateIf the if (or early return)
	// deciding it, GateTest the Enabled(...) call, GateVia what the if
	// tests: GateTest, or the variable, field or call followed to it.
	GateConst *types.Const  `json:"-"`
	GateIf    token.Pos     `json:"-"`
	GateTest  *ast.CallExpr `json:"-"`
	GateVia   ast.Expr      `json:"-"`
	// Constructions are all constructions found, in source order.
	Constructions []*Construction `json:"-"`
}

// RelistGate names the gate and where it is tested.
type RelistGate struct {
	Name string     `json:"name"`
	Test srcpos.Pos `json:"test"`
	// PreRelease and Default are the gate's newest spec, from the
	// featuregate analyzer's facts; null when the spec was not found.
	PreRelease *string `json:"preRelease"`
	Default    *bool   `json:"default"`
}

// ratio is the gate-on generic relist period over the gate-off one; nil
// when there is no gate or either period is unresolved or zero.
func (r *Relist) ratio() *float64 {
	if r.GateOn == nil || !r.GateOn.Period.Resolved() || !r.GateOff.Period.Resolved() || r.GateOff.Period.Int() <= 0 {
		return nil
	}
	return new(float64(r.GateOn.Period.Int()) / float64(r.GateOff.Period.Int()))
}

// Modes joins a package's constructions into the gate-off and gate-on
// modes. The gate is the one whose test guards the evented PLEG.
func Modes(fset *token.FileSet, cs []*Construction) *Relist {
	r := &Relist{Constructions: cs}
	// The deciding gate is one the evented PLEG needs on. When it needs
	// several, prefer the one that also decides a generic construction,
	// then the outermost test.
	testsGeneric := map[string]bool{}
	for _, c := range cs {
		if c.Ctor.Kind == Generic {
			for _, cond := range c.Conditions {
				testsGeneric[cond.Gate] = true
			}
		}
	}
	var chosen *Condition
	for _, c := range cs {
		if c.Ctor.Kind != Evented {
			continue
		}
		for i := range c.Conditions {
			cond := &c.Conditions[i]
			if cond.On && (chosen == nil || testsGeneric[cond.Gate] || !testsGeneric[chosen.Gate]) {
				chosen = cond
			}
		}
		if chosen != nil {
			break
		}
	}
	if chosen == nil {
		r.GateUnresolved = unresolvedGate(fset, cs)
	}
	if chosen == nil && r.GateUnresolved == nil {
		// No evented PLEG was found (its constructor may sit in a file that
		// did not parse), yet the generic PLEG is built in several ways
		// under a gate: keep that split rather than take whichever comes
		// first for the one that always runs.
		generic := 0
		for _, c := range cs {
			if c.Ctor.Kind == Generic {
				generic++
			}
		}
		for _, c := range cs {
			if c.Ctor.Kind == Generic && generic > 1 && len(c.Conditions) > 0 && chosen == nil {
				chosen = &c.Conditions[0]
			}
		}
	}
	if chosen != nil {
		r.Gate = &RelistGate{Name: chosen.Gate, Test: srcpos.Of(fset, chosen.If)}
		r.GateConst, r.GateIf, r.GateTest, r.GateVia = chosen.Const, chosen.If, chosen.Test, chosen.Via
	}
	r.GateOff = &r.mode(fset, false).Mode
	if r.Gate != nil {
		r.GateOn = r.mode(fset, true)
		r.Ratio = r.ratio()
	}
	return r
}

// unresolvedGate picks, among the unfollowed tests of the first evented
// construction that has any, the one most likely to be the gate: shaped
// like a gate test, also deciding a generic construction, outermost.
func unresolvedGate(fset *token.FileSet, cs []*Construction) *UnfollowedTest {
	decidesGeneric := map[ast.Expr]bool{}
	for _, c := range cs {
		if c.Ctor.Kind == Generic {
			for _, u := range c.Unfollowed {
				decidesGeneric[u.Cond] = true
			}
		}
	}
	score := func(u *UnfollowedTest) int {
		s := 0
		if u.plausible {
			s += 2
		}
		if decidesGeneric[u.Cond] {
			s++
		}
		return s
	}
	for _, c := range cs {
		if c.Ctor.Kind != Evented || len(c.Unfollowed) == 0 {
			continue
		}
		var best *UnfollowedTest
		for i := range c.Unfollowed {
			if u := &c.Unfollowed[i]; best == nil || score(u) >= score(best) {
				best = u
			}
		}
		u := *best
		u.Test, u.Evented = srcpos.Of(fset, u.If), srcpos.At(fset, c.Call.Pos())
		return &u
	}
	return nil
}

// runs reports whether a construction runs with the gate on (or off); r
// has a gate, or an unresolved one.
func (r *Relist) runs(c *Construction, on bool) bool {
	if u := r.GateUnresolved; u != nil {
		// Off: the unresolved test does not have the value that builds
		// the evented PLEG.
		for _, v := range c.Unfollowed {
			if v.Cond == u.Cond && v.Holds == u.Holds && !on {
				return false
			}
		}
		return true
	}
	for _, cond := range c.Conditions {
		if cond.Gate == r.Gate.Name && cond.On != on {
			return false
		}
	}
	return true
}

func (r *Relist) mode(fset *token.FileSet, on bool) *GateOnMode {
	m := &GateOnMode{}
	for _, c := range r.Constructions {
		if (r.Gate != nil || r.GateUnresolved != nil) && !r.runs(c, on) {
			continue
		}
		switch {
		case c.Ctor.Kind == Generic && m.Generic == nil:
			m.Generic, m.Period, m.Threshold, m.Call = c, c.Period, c.Threshold, srcpos.At(fset, c.Call.Pos())
			if c.Ctor.LoopCall != "" {
				m.Loop, m.LoopCall = new(c.Ctor.Loop), c.Ctor.LoopCall
			}
		case c.Ctor.Kind == Evented && on && m.EventedCall == nil:
			m.EventedCall, m.Evented = c, srcpos.At(fset, c.Call.Pos())
			m.Fallback, m.FallbackThreshold, m.Retries, m.MaxStreamRetries = c.Fallback, c.FallbackThreshold, c.Retries, c.Retries.Count()
		}
	}
	return m
}

// Files visits the file names of the mode's positions (an answer's
// Files): a field added to Mode is visited here, beside it.
func (m *Mode) Files(visit srcpos.FileVisitor) {
	if m == nil {
		return
	}
	m.Period.Files(visit)
	m.Threshold.Files(visit)
	srcpos.Files(visit, m.Call, m.Loop)
}

// Files visits the file names of the gate-on mode's positions.
func (m *GateOnMode) Files(visit srcpos.FileVisitor) {
	if m == nil {
		return
	}
	m.Mode.Files(visit)
	srcpos.Files(visit, m.Evented)
	m.Fallback.Files(visit)
	m.MaxStreamRetries.Files(visit)
}

// Files visits the file names of the relist's positions.
func (r *Relist) Files(visit srcpos.FileVisitor) {
	if r == nil {
		return
	}
	if g := r.Gate; g != nil {
		srcpos.Files(visit, &g.Test)
	}
	if u := r.GateUnresolved; u != nil {
		srcpos.Files(visit, &u.Test, u.Evented)
	}
	r.GateOff.Files(visit)
	r.GateOn.Files(visit)
	for i := range r.GateSetInCode {
		srcpos.Files(visit, &r.GateSetInCode[i].Pos)
	}
}
