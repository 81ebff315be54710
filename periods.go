package plegvet

import (
	"context"
	"fmt"
	"go/token"
	"strconv"
	"time"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/plegperiods"
)

// The packages the relist answer reads, relative to the tree's module.
const (
	KubeletPackage = "pkg/kubelet"
	PlegPackage    = "pkg/kubelet/pleg"
)

// PeriodsReport is the relist periods a tree's kubelet runs with.
type PeriodsReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	Relist        Relist `json:"relist"`
	// Diagnostics are the pleg analyzer's findings.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Relist is the two modes of the kubelet's PLEG.
type Relist struct {
	// Gate is the feature gate deciding the evented PLEG, with the test
	// that decides it; nil when the tree builds no evented PLEG.
	Gate *RelistGate `json:"gate"`
	// GateUnresolved is set (gate, gateOn and ratio null) when the tree
	// builds an evented PLEG under a test plegvet could not follow to a
	// feature gate: which PLEG runs is unknown. gateOff is then what runs
	// when that test has the other value.
	GateUnresolved *UnresolvedGate `json:"gateUnresolved"`
	// GateOff is what runs with the gate off (or always, without a gate).
	GateOff *Mode `json:"gateOff"`
	// GateOn is nil when the tree has no such gate.
	GateOn *GateOnMode `json:"gateOn"`
	// Ratio is the gate-on period over the gate-off period; nil when
	// either is missing or unresolved.
	Ratio *float64 `json:"ratio"`
}

// RelistGate names the gate and where it is tested.
type RelistGate struct {
	Name string `json:"name"`
	Test Pos    `json:"test"`
	// PreRelease and Default are the gate's newest spec, from the
	// featuregate analyzer's facts; null when the spec was not found.
	PreRelease *string `json:"preRelease"`
	Default    *bool   `json:"default"`
}

// UnresolvedGate is the test deciding the evented PLEG that could not be
// followed to a feature gate.
type UnresolvedGate struct {
	Test       Pos    `json:"test"`       // the if (or early return)
	Expr       string `json:"expr"`       // as written: kl.streamEvents
	Holds      bool   `json:"holds"`      // the evented PLEG is built when it is true
	Evented    *Pos   `json:"evented"`    // the evented PLEG's construction
	Unresolved string `json:"unresolved"` // why
}

// Mode is what runs with the gate off: the generic relist.
type Mode struct {
	// Period and Threshold are the generic relist's; Call is its
	// construction. All three are null when no generic PLEG runs.
	Period    *Value `json:"period"`
	Threshold *Value `json:"threshold"`
	Call      *Pos   `json:"call"`
	// Loop is where the relist loop consumes the period, and how.
	Loop     *Pos   `json:"loop"`
	LoopCall string `json:"loopCall"`
}

// GateOnMode is what runs with the gate on: the generic relist, and the
// evented PLEG beside it.
type GateOnMode struct {
	Mode
	// Evented is the evented PLEG's construction; Fallback the period it
	// restores on the generic PLEG after the stream fails for good (null:
	// none); MaxStreamRetries how many failed streams it tolerates first.
	Evented          *Pos        `json:"evented"`
	Fallback         *Value      `json:"fallback"`
	MaxStreamRetries *RetryCount `json:"maxStreamRetries"`
}

// Value is a duration resolved to its constant, or why it could not be.
type Value struct {
	// Value is the duration as time.Duration prints it ("5m0s"), or a
	// count of nanoseconds for a constant that is not typed as a duration.
	Value      string `json:"value,omitempty"`
	Const      string `json:"const,omitempty"`
	Expr       string `json:"expr,omitempty"`
	Decl       *Pos   `json:"decl,omitempty"`
	Unresolved string `json:"unresolved,omitempty"`
}

// Duration returns the value as a time.Duration, read from Value (so a
// value decoded from JSON answers the same); ok is false when unresolved.
func (v *Value) Duration() (time.Duration, bool) {
	if v == nil || v.Unresolved != "" || v.Value == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v.Value); err == nil {
		return d, true
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	return time.Duration(n), err == nil
}

// RetryCount is the evented PLEG's stream retries.
type RetryCount struct {
	Value      *int64 `json:"value"`
	Const      string `json:"const,omitempty"`
	Decl       *Pos   `json:"decl,omitempty"`
	Unresolved string `json:"unresolved,omitempty"`
}

// Periods follows the PLEG relist periods of a tree's kubelet, in both
// states of the EventedPLEG gate, and checks the relist safety net.
func Periods(ctx context.Context, opts Options) (*PeriodsReport, error) {
	t, src, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, src, isFeaturePackage, FeaturesPackage, PlegPackage, KubeletPackage)
	if err != nil {
		return nil, err
	}
	rep, err := a.periods()
	if err != nil {
		return nil, err
	}
	rep.Source.noteUnfollowed(rep.Diagnostics)
	return rep, nil
}

// periods reads the pleg analyzer's outcome on pkg/kubelet.
func (a *analysed) periods() (*PeriodsReport, error) {
	out, err := a.outcome(pleg.Analyzer, KubeletPackage)
	if err != nil {
		return nil, err
	}
	res := out.Result.(*pleg.Result)
	if res.Relist == nil {
		return nil, fmt.Errorf("%s: %s builds no PLEG: no call of a constructor of %s (NewGenericPLEG, NewEventedPLEG) was found%s", a.src.Dir, KubeletPackage, PlegPackage, a.unreadIn(KubeletPackage, PlegPackage))
	}
	rep := &PeriodsReport{SchemaVersion: SchemaVersion, Source: a.src, Diagnostics: a.pos.diagnostics(out.Diagnostics)}
	rep.Relist = a.pos.relist(res.Relist)
	if g := res.Gate; g != nil && rep.Relist.Gate != nil && len(g.Specs) > 0 {
		newest := g.Specs[len(g.Specs)-1]
		stage, def := string(newest.PreRelease), newest.Default
		rep.Relist.Gate.PreRelease, rep.Relist.Gate.Default = &stage, &def
	}
	return rep, nil
}

func (p positioner) relist(r *plegperiods.Relist) Relist {
	out := Relist{GateOff: p.mode(&r.Off)}
	if r.On != nil {
		out.Gate = &RelistGate{Name: r.Gate, Test: p.pos(r.GateIf)}
		out.GateOn = p.gateOnMode(r.On)
		if ratio, ok := r.Ratio(); ok {
			out.Ratio = &ratio
		}
	}
	if u := r.GateUnresolved; u != nil {
		g := &UnresolvedGate{Test: p.pos(u.If), Expr: u.Expr, Holds: u.Holds, Unresolved: u.Why}
		for _, c := range r.Constructions {
			for _, v := range c.Unfollowed {
				if c.Ctor.Kind == plegperiods.Evented && v.Test == u.Test && g.Evented == nil {
					g.Evented = p.optPos(c.Call.Pos())
				}
			}
		}
		out.GateUnresolved = g
	}
	return out
}

func (p positioner) gateOnMode(m *plegperiods.Mode) *GateOnMode {
	out := &GateOnMode{Mode: *p.mode(m)}
	if m.Evented != nil {
		out.Evented = p.optPos(m.Evented.Call.Pos())
		out.Fallback = p.value(m.Fallback)
		out.MaxStreamRetries = p.retries(m.Retries)
	}
	return out
}

func (p positioner) mode(m *plegperiods.Mode) *Mode {
	out := &Mode{}
	if m.Generic != nil {
		out.Call = p.optPos(m.Generic.Call.Pos())
		out.Period, out.Threshold = p.value(m.Period), p.value(m.Threshold)
		if m.Generic.Ctor.LoopCall != "" {
			lp := p.position(m.Generic.Ctor.Loop)
			out.Loop, out.LoopCall = &lp, m.Generic.Ctor.LoopCall
		}
	}
	return out
}

// position converts a file position carried by a fact.
func (p positioner) position(tp token.Position) Pos {
	return Pos{File: p.tree.Rel(tp.Filename), Line: tp.Line, Column: tp.Column}
}

func (p positioner) value(v *plegperiods.Value) *Value {
	if v == nil {
		return nil
	}
	if !v.Resolved() {
		return &Value{Unresolved: v.Unresolved}
	}
	out := &Value{Const: v.Const, Expr: v.Expr, Value: fmt.Sprint(v.Int)}
	if v.Duration {
		out.Value = time.Duration(v.Int).String()
	}
	switch {
	case v.DeclPosition.IsValid():
		d := p.position(v.DeclPosition)
		out.Decl = &d
	default:
		out.Decl = p.optPos(v.Decl)
	}
	return out
}

func (p positioner) retries(v *plegperiods.Value) *RetryCount {
	if v == nil {
		return nil
	}
	if !v.Resolved() {
		return &RetryCount{Unresolved: v.Unresolved}
	}
	n := v.Int
	return &RetryCount{Value: &n, Const: v.Const, Decl: p.optPos(v.Decl)}
}
