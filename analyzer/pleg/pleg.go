package pleg

import (
	_ "embed"
	"fmt"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/gatefacts"
	"github.com/plegvet/plegvet/analyzer/internal/analyzerdoc"
	"github.com/plegvet/plegvet/analyzer/internal/reporting"
	"github.com/plegvet/plegvet/internal/analysis/check"
	"github.com/plegvet/plegvet/plegperiods"
)

//go:embed doc.go
var docGo string

// Config is the pleg analyzer's configuration. Its fields are the
// analyzer's flags (-pleg.note) and, by their JSON names, the
// golangci-lint plugin's settings (pleg.note).
type Config struct {
	// Note reports the informational gate-note.
	Note bool `json:"note"`
}

// DefaultConfig reports no gate-note.
func DefaultConfig() Config { return Config{} }

// Validate names the first setting that is wrong; every value of a bool is right.
func (c Config) Validate() error { return nil }

// Analyzer is the pleg analyzer with DefaultConfig, for go vet, nogo and
// the library.
var Analyzer = New(DefaultConfig())

// New returns a pleg analyzer with its own copy of cfg, which its flags
// set: analyzers built with different configurations can run side by
// side in one process.
func New(cfg Config) *analysis.Analyzer {
	c := &cfg
	a := &analysis.Analyzer{
		Name:             "pleg",
		Doc:              analyzerdoc.Extract(docGo, "pleg"),
		URL:              "https://pkg.go.dev/github.com/plegvet/plegvet/analyzer/pleg",
		Requires:         []*analysis.Analyzer{gatefacts.Analyzer},
		Run:              func(pass *analysis.Pass) (any, error) { return run(pass, c) },
		RunDespiteErrors: true,
		FactTypes:        []analysis.Fact{new(ConstructorFact)},
		ResultType:       reflect.TypeFor[*Result](),
	}
	a.Flags.BoolVar(&c.Note, "note", c.Note, "report gate-note: the gate's stage and default and what it does to the relist period")
	return a
}

// packageSuffix is the path, below the module, of the package whose
// constructors build PLEGs.
const packageSuffix = "/pkg/kubelet/pleg"

// IsPlegPackage reports whether an import path is the pleg package:
// k8s.io/kubernetes/pkg/kubelet/pleg, or a fork's copy at the same path.
func IsPlegPackage(importPath string) bool {
	return strings.HasSuffix(importPath, packageSuffix) || importPath == strings.TrimPrefix(packageSuffix, "/")
}

// ConstructorFact is exported on a PLEG constructor: what the packages
// that call it need to read their calls (plegperiods.Shape).
type ConstructorFact struct {
	plegperiods.Shape
}

func (*ConstructorFact) AFact() {}

// String reads like "generic PLEG, period arg 3.RelistPeriod, threshold
// arg 3.RelistThreshold, loop Reset", or for an evented PLEG "evented
// PLEG, retries arg 2, role relist-trigger, requests relist
// GenericPLEG.RequestRelist for [CONTAINER_STOPPED_EVENT] gated
// PLEGOnDemandRelist, on stream failure stop-watching".
func (f *ConstructorFact) String() string {
	parts := []string{string(f.Kind) + " PLEG"}
	add := func(name string, p plegperiods.ParamRef) {
		if p.Index < 0 {
			return
		}
		s := fmt.Sprintf("%s arg %d", name, p.Index)
		if p.Field != "" {
			s += "." + p.Field
		}
		parts = append(parts, s)
	}
	add("period", f.Period)
	add("threshold", f.Threshold)
	if f.ThresholdConst != nil {
		parts = append(parts, "threshold const "+f.ThresholdConst.Const)
	}
	add("retries", f.Retries)
	add("fallback", f.Fallback)
	add("fallback threshold", f.FallbackThreshold)
	if f.LoopCall != "" {
		parts = append(parts, "loop "+f.LoopCall)
	}
	if e := f.Evented; e != nil {
		parts = append(parts, "role "+string(e.Role))
		if e.EmitsLifecycleEvents != nil {
			parts = append(parts, "emits events")
		}
		if e.UpdatesPodCache != nil {
			parts = append(parts, "updates pod cache")
		}
		if q := e.RequestsRelist; q != nil {
			parts = append(parts, "requests relist "+q.String())
		}
		parts = append(parts, "on stream failure "+e.OnStreamFailure.Action)
	}
	return strings.Join(parts, ", ")
}

// Result is what the analyzer found in one package.
type Result struct {
	// Constructors are the PLEG constructors the package declares.
	Constructors []*plegperiods.Constructor
	// Relist is the two modes built by the package's constructor calls;
	// nil when it calls none.
	Relist *plegperiods.Relist
	// Gate is the fact of the gate deciding the evented PLEG, when known.
	Gate *gatefacts.GateFact
	// SyncLoops are the loops that consume PLEG events in the package.
	SyncLoops []plegperiods.SyncLoop
	// Evented is the evented PLEG the package builds and its role; nil
	// when it builds none.
	Evented *plegperiods.EventedRole
	// HealthChecks are the PLEG health checks the package registers, in
	// source order.
	HealthChecks []plegperiods.HealthCheckCall
	// Health is the kubelet's PLEG health rule; nil when the package
	// builds no PLEG.
	Health *plegperiods.Health
}

func run(pass *analysis.Pass, cfg *Config) (any, error) {
	res := &Result{}
	if IsPlegPackage(pass.Pkg.Path()) {
		res.Constructors = plegperiods.Constructors(pass.Fset, pass.Files, pass.TypesInfo)
		for _, c := range res.Constructors {
			pass.ExportObjectFact(c.Func, &ConstructorFact{Shape: c.Shape})
			fallbackUnfollowed(pass, c)
		}
		return res, nil
	}
	if !importsPleg(pass.Pkg) {
		return res, nil // no PLEG can be built here
	}
	res.SyncLoops = plegperiods.SyncLoops(pass.Fset, pass.Files, pass.TypesInfo)
	cs := plegperiods.Constructions(pass.Fset, pass.Files, pass.TypesInfo, func(fn *types.Func) *plegperiods.Shape {
		var f ConstructorFact
		if fn.Pkg() != nil && IsPlegPackage(fn.Pkg().Path()) && pass.ImportObjectFact(fn, &f) {
			return &f.Shape
		}
		return nil
	})
	if len(cs) == 0 {
		return res, nil
	}
	res.Relist = plegperiods.Modes(pass.Fset, cs)
	res.HealthChecks = plegperiods.HealthChecks(pass.Fset, pass.Files, pass.TypesInfo, cs)
	res.Evented = plegperiods.EventedRoleOf(pass.Fset, res.Relist, res.HealthChecks)
	res.Health = plegperiods.HealthOf(pass.Fset, pass.Files, pass.TypesInfo, res.Relist, res.HealthChecks)
	gates := pass.ResultOf[gatefacts.Analyzer].(*gatefacts.Result)
	res.Gate = gates.Gate(res.Relist.GateConst)
	if g := res.Relist.Gate; g != nil && res.Gate != nil && len(res.Gate.Specs) > 0 {
		newest := res.Gate.Specs[len(res.Gate.Specs)-1]
		stage, def := string(newest.PreRelease), newest.Default
		g.PreRelease, g.Default = &stage, &def
	}
	if g := res.Relist.Gate; g != nil && res.Gate != nil {
		// The features package's own writes come first: it is
		// initialised before the packages importing it.
		for _, w := range res.Gate.SetInCode {
			res.Relist.GateSetInCode = append(res.Relist.GateSetInCode, w)
			if w.Unresolved != "" && res.Relist.GateIf.IsValid() {
				report(pass, res.Relist.GateIf, res.Relist.GateIf, GateWriteUnfollowed, nil,
					"the package declaring %s sets it in code, but plegvet could not read what: %s; plegvet cannot say what a node that sets no gate runs", g.Name, w)
			}
		}
	}
	gateWrites(pass, gates, res.Relist)
	healthUnknown(pass, res)
	checkSafetyNet(pass, res, cfg)
	return res, nil
}

// fallbackUnfollowed reports an evented PLEG whose hand-over, once its
// stream has failed for good, could not be followed to the period it
// restores: to the generic PLEG, or back to its constructor's parameters.
func fallbackUnfollowed(pass *analysis.Pass, c *plegperiods.Constructor) {
	l := c.EventLoop
	if l == nil {
		return
	}
	if l.ForcedUnfollowed.IsValid() {
		report(pass, l.ForcedUnfollowed, l.ForcedUnfollowed, FallbackUnfollowed, nil,
			"what %s does when its stream call returns an error could not be followed: %s; plegvet cannot say whether it relists at once", c.Func.Name(), l.RelistOnStreamErrorUnfollowed)
	}
	f := l.OnStreamFailure
	switch {
	case f.Unfollowed.IsValid():
		report(pass, f.Unfollowed, f.Unfollowed, FallbackUnfollowed, nil,
			"what %s hands the generic PLEG once its stream has failed for good could not be followed: %s; plegvet cannot say which relist remains", c.Func.Name(), f.Why)
	case f.Action == plegperiods.RestoreGenericRelist && f.At.IsValid() && c.Fallback.Index < 0 && c.FallbackConst == nil:
		report(pass, f.At, f.At, FallbackUnfollowed, nil,
			"%s restores a relist period on the generic PLEG once its stream has failed for good, but plegvet could not follow it back to a parameter of %s or a constant; plegvet cannot say which relist remains", c.Func.Name(), c.Func.Name())
	}
}

// healthUnknown reports the PLEG health checks plegvet does not
// recognise exactly. A package registering none is an answer (its
// health rule is unknown, with why), not a construct left unfollowed.
func healthUnknown(pass *analysis.Pass, res *Result) {
	h := res.Health
	if h == nil {
		return
	}
	for i, c := range h.Checks {
		if c.Rule != plegperiods.HealthUnknown || !c.Fails {
			continue // known, or a check that never fails
		}
		if pos := res.HealthChecks[i].At; pos.IsValid() {
			report(pass, pos, pos, HealthUnknown, nil,
				"the PLEG health check %q is not a rule plegvet recognises exactly: %s; plegvet cannot say when it fails", c.Name, c.Why)
		}
	}
}

// gateWrites records the package's writes of the deciding gate made in
// code, and reports those it could not read, which may be that gate.
func gateWrites(pass *analysis.Pass, gates *gatefacts.Result, r *plegperiods.Relist) {
	for _, w := range gates.CodeWrites(pass) {
		if strings.HasSuffix(pass.Fset.Position(w.At).Filename, "_test.go") {
			continue // a test sets gates for itself, not for a node
		}
		ours := r.Gate != nil && w.Gate == r.Gate.Name
		if ours {
			r.GateSetInCode = append(r.GateSetInCode, w)
		}
		if w.Unresolved != "" && (ours || w.Gate == "") {
			report(pass, w.At, w.At, GateWriteUnfollowed, nil,
				"%s sets feature gates in code, but plegvet could not read what: %s; plegvet cannot say what a node that sets no gate runs", w.Func, w.Unresolved)
		}
	}
}

func importsPleg(pkg *types.Package) bool {
	return slices.ContainsFunc(pkg.Imports(), func(imp *types.Package) bool { return IsPlegPackage(imp.Path()) })
}

func report(pass *analysis.Pass, pos, end token.Pos, check check.Check, related []reporting.Related, format string, args ...any) {
	reporting.Report(pass, reporting.Finding{Pos: pos, End: end, Check: check, Message: fmt.Sprintf(format, args...), Related: related})
}

func constRelated(v *plegperiods.Value, what string) []reporting.Related {
	if !v.Resolved() || !v.DeclPos().IsValid() || v.Const == "" {
		return nil
	}
	return []reporting.Related{{Pos: v.DeclPos(), Message: fmt.Sprintf("%s %s = %s", what, v.Const, v.Expr)}}
}

func callRelated(c *plegperiods.Construction, what string) []reporting.Related {
	if c == nil {
		return nil
	}
	return []reporting.Related{{Pos: c.Call.Pos(), End: c.Call.End(), Message: what}}
}

// stage describes the gate from its fact: "Alpha, default false".
func stage(f *gatefacts.GateFact) string {
	if f == nil || len(f.Specs) == 0 {
		return "spec unknown"
	}
	s := f.Specs[len(f.Specs)-1]
	return fmt.Sprintf("%s, default %t", s.PreRelease, s.Default)
}

// checkSafetyNet checks the modes a package's constructor calls build.
func checkSafetyNet(pass *analysis.Pass, res *Result, cfg *Config) {
	r := res.Relist
	for _, c := range r.Constructions {
		thresholdCheck(pass, c, c.Period, c.Threshold, "relist")
		thresholdCheck(pass, c, c.Fallback, c.FallbackThreshold, "fallback relist")
	}
	if u := r.GateUnresolved; u != nil {
		gateUnresolved(pass, r, u)
	}
	if r.GateOn == nil {
		return
	}
	ifPos, ifEnd := r.GateIf, r.GateIf
	switch {
	case r.GateVia != nil:
		ifEnd = r.GateVia.End()
	case r.GateTest != nil:
		ifEnd = r.GateTest.End()
	}
	on, off, gate := r.GateOn, r.GateOff, r.Gate.Name
	switch {
	case on.Generic == nil:
		report(pass, ifPos, ifEnd, SafetyNetGone, callRelated(on.EventedCall, "the evented PLEG built when the gate is on"),
			"with %s on, no generic PLEG relists: nothing resynchronises the kubelet when the event stream drops events (a runtime restart, say)", gate)
	case on.Period.Resolved() && on.Period.Int() <= 0:
		report(pass, on.Period.Pos, on.Period.Pos, SafetyNetGone, append(constRelated(on.Period, "period"), callRelated(on.Generic, "the generic PLEG built when the gate is on")...),
			"with %s on, the generic relist period is %s: the safety-net relist never runs", gate, on.Period.String())
	}
	if on.EventedCall != nil && on.Generic != nil && off.Period.Resolved() {
		remaining, how := on.Fallback, "the period the evented PLEG restores"
		if on.Fallback == nil {
			remaining, how = on.Period, "the safety-net period (the evented PLEG restores no faster relist)"
		}
		if remaining.Resolved() && remaining.Int() > off.Period.Int() {
			rel := slices.Concat(constRelated(remaining, "remaining period"), constRelated(off.Period, "gate-off period"), callRelated(off.Generic, "the gate-off generic PLEG"))
			report(pass, on.EventedCall.Call.Pos(), on.EventedCall.Call.End(), FallbackSlower, rel,
				"with %s on, after the event stream fails for good the relist stays at %s, %s, slower than the gate-off %s", gate, remaining.String(), how, off.Period.String())
		}
	}
	if cfg.Note {
		msg := fmt.Sprintf("%s (%s)", gate, stage(res.Gate))
		if r.Ratio != nil {
			msg += fmt.Sprintf(": generic relist %s -> %s when on (x%s)", off.Period.Value, on.Period.Value, ratioText(*r.Ratio))
		}
		report(pass, ifPos, ifEnd, GateNote, nil, "%s", msg)
	}
}

// gateUnresolved reports the evented PLEG's deciding test that could not
// be followed: without it the modes would be a guess.
func gateUnresolved(pass *analysis.Pass, r *plegperiods.Relist, u *plegperiods.UnfollowedTest) {
	var evented *plegperiods.Construction
	for _, c := range r.Constructions {
		for _, v := range c.Unfollowed {
			if c.Ctor.Kind == plegperiods.Evented && v.Cond == u.Cond && evented == nil {
				evented = c
			}
		}
	}
	at := ""
	if evented != nil {
		p := pass.Fset.Position(evented.Call.Pos())
		at = fmt.Sprintf(" at %s:%d", filepath.Base(p.Filename), p.Line)
	}
	need := ""
	if !u.Holds {
		need = " (it is built when the test is false)"
	}
	end := u.If
	if u.Cond != nil {
		end = u.Cond.End()
	}
	report(pass, u.If, end, GateTestUnresolved, callRelated(evented, "the evented PLEG built under "+u.Expr),
		"the gate test %s deciding the evented PLEG%s could not be followed: %s%s; plegvet cannot say which PLEG runs", u.Expr, at, u.Unresolved, need)
}

func ratioText(r float64) string {
	if r == float64(int64(r)) {
		return fmt.Sprint(int64(r))
	}
	return fmt.Sprintf("%.3g", r)
}

func thresholdCheck(pass *analysis.Pass, c *plegperiods.Construction, period, threshold *plegperiods.Value, what string) {
	if !period.Resolved() || !threshold.Resolved() || threshold.Int() > period.Int() {
		return
	}
	pos, end := c.Call.Pos(), c.Call.End()
	if c.Literal != nil && what == "relist" {
		pos, end = c.Literal.Pos(), c.Literal.End()
	}
	report(pass, pos, end, ThresholdNotAbovePeriod, append(constRelated(period, "period"), constRelated(threshold, "threshold")...),
		"%s threshold %s is not greater than its period %s: the PLEG is declared unhealthy between two relists", what, threshold.String(), period.String())
}

// Checks are the analyzer's checks with their documentation, in the order
// doc.go lists them.
func Checks() []check.Doc { return analyzerdoc.Checks(Analyzer.Doc) }
