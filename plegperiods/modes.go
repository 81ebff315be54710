package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Mode is what runs in one state of the gate.
type Mode struct {
	// Generic is the generic PLEG construction that runs in this mode;
	// nil when none does.
	Generic *Construction
	// Evented is the evented PLEG construction (gate on only).
	Evented *Construction
	// Period and Threshold are the generic relist's.
	Period, Threshold *Value
	// Fallback and FallbackThreshold are what the evented PLEG restores
	// after the stream fails for good; nil when it restores nothing.
	Fallback, FallbackThreshold *Value
	// Retries is how many failed streams the evented PLEG tolerates.
	Retries *Value
}

// Relist is the two modes of a tree's kubelet.
type Relist struct {
	// Gate is the feature gate that decides whether the evented PLEG is
	// built ("" when the tree builds none).
	Gate      string
	GateConst *types.Const
	GateIf    token.Pos     // the if (or early return) that decides it
	GateTest  *ast.CallExpr // the Enabled(...) call
	GateVia   ast.Expr      // what the if tests: GateTest, or the variable, field or call followed to it
	// GateUnresolved is set, with Gate "", when the evented PLEG is built
	// but the test deciding it could not be followed: which PLEG runs is
	// unknown. Off is then what runs when that test has the other value.
	GateUnresolved *UnfollowedTest
	Off            Mode
	// On is nil when there is no such gate (or it is unresolved).
	On *Mode
	// Constructions are all constructions found, in source order.
	Constructions []*Construction
}

// Ratio is the gate-on generic relist period over the gate-off one; ok is
// false when there is no gate or either period is unresolved or zero.
func (r *Relist) Ratio() (float64, bool) {
	if r.On == nil || !r.On.Period.Resolved() || !r.Off.Period.Resolved() || r.Off.Period.Int <= 0 {
		return 0, false
	}
	return float64(r.On.Period.Int) / float64(r.Off.Period.Int), true
}

// Modes joins a package's constructions into the gate-off and gate-on
// modes. The gate is the one whose test guards the evented PLEG.
func Modes(cs []*Construction) *Relist {
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
		r.GateUnresolved = unresolvedGate(cs)
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
		r.Gate, r.GateConst, r.GateIf, r.GateTest, r.GateVia = chosen.Gate, chosen.Const, chosen.If, chosen.Test, chosen.Via
	}
	r.Off = r.mode(false)
	if r.Gate != "" {
		on := r.mode(true)
		r.On = &on
	}
	return r
}

// unresolvedGate picks, among the unfollowed tests of the first evented
// construction that has any, the one most likely to be the gate: shaped
// like a gate test, also deciding a generic construction, outermost.
func unresolvedGate(cs []*Construction) *UnfollowedTest {
	decidesGeneric := map[ast.Expr]bool{}
	for _, c := range cs {
		if c.Ctor.Kind == Generic {
			for _, u := range c.Unfollowed {
				decidesGeneric[u.Test] = true
			}
		}
	}
	score := func(u *UnfollowedTest) int {
		s := 0
		if u.plausible {
			s += 2
		}
		if decidesGeneric[u.Test] {
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
		return &u
	}
	return nil
}

// runs reports whether a construction runs with the gate on (or off).
func (r *Relist) runs(c *Construction, on bool) bool {
	if u := r.GateUnresolved; u != nil {
		// Off: the unresolved test does not have the value that builds
		// the evented PLEG.
		for _, v := range c.Unfollowed {
			if v.Test == u.Test && v.Holds == u.Holds && !on {
				return false
			}
		}
		return true
	}
	for _, cond := range c.Conditions {
		if cond.Gate == r.Gate && cond.On != on {
			return false
		}
	}
	return true
}

func (r *Relist) mode(on bool) Mode {
	var m Mode
	for _, c := range r.Constructions {
		if (r.Gate != "" || r.GateUnresolved != nil) && !r.runs(c, on) {
			continue
		}
		switch {
		case c.Ctor.Kind == Generic && m.Generic == nil:
			m.Generic, m.Period, m.Threshold = c, c.Period, c.Threshold
		case c.Ctor.Kind == Evented && on && m.Evented == nil:
			m.Evented, m.Fallback, m.FallbackThreshold, m.Retries = c, c.Fallback, c.FallbackThreshold, c.Retries
		}
	}
	return m
}
