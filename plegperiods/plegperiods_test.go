package plegperiods_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
	"github.com/plegvet/plegvet/plegperiods"
)

// constructions type-checks a kubelet-like source against the look-alike
// pleg package and finds its constructions, the constructors read from
// that package's own source.
func constructions(t *testing.T, src string) []*plegperiods.Construction {
	t.Helper()
	fset := token.NewFileSet()
	im := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src"))
	files, info, _, err := im.Load("k8s.io/kubernetes/pkg/kubelet/pleg")
	if err != nil {
		t.Fatal(err)
	}
	ctors := map[*types.Func]*plegperiods.Shape{}
	for _, c := range plegperiods.Constructors(fset, files, info) {
		ctors[c.Func] = &c.Shape
	}
	if len(ctors) != 2 {
		t.Fatalf("found %d constructors in the look-alike pleg package, want 2", len(ctors))
	}
	f, kinfo, _, err := im.Check("kubelet", src)
	if err != nil {
		t.Fatal(err)
	}
	return plegperiods.Constructions(fset, []*ast.File{f}, kinfo, func(fn *types.Func) *plegperiods.Shape { return ctors[fn] })
}

const header = `package kubelet

import (
	"time"

	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

var gates interface{ Enabled(featuregate.Feature) bool }

var _ = time.Second
var _ = features.EventedPLEG
`

// summary: "generic 1s/3m0s [EventedPLEG=off]".
func summary(c *plegperiods.Construction) string {
	s := string(c.Ctor.Kind)
	d := func(v *plegperiods.Value) string {
		if v == nil {
			return "-"
		}
		if !v.Resolved() {
			return "?"
		}
		return v.Value
	}
	if c.Ctor.Kind == plegperiods.Generic {
		s += " " + d(c.Period) + "/" + d(c.Threshold)
	} else {
		s += " retries=" + d(c.Retries) + " fallback=" + d(c.Fallback)
	}
	var conds []string
	for _, cond := range c.Conditions {
		v := "off"
		if cond.On {
			v = "on"
		}
		conds = append(conds, cond.Gate+"="+v)
	}
	s += " [" + strings.Join(conds, " ") + "]"
	for _, u := range c.Unfollowed {
		s += " ?" + u.String()
	}
	return s
}

func TestConstructions(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{{
		name: "then and else, through a variable and &",
		body: `func f() {
	if gates.Enabled(features.EventedPLEG) {
		d := &pleg.RelistDuration{RelistPeriod: 300 * time.Second, RelistThreshold: 10 * time.Minute}
		g := pleg.NewGenericPLEG(nil, d, time.Now)
		pleg.NewEventedPLEG(nil, g, 5, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute})
	} else {
		pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: 3 * time.Minute}, time.Now)
	}
}`,
		want: []string{"generic 5m0s/10m0s [EventedPLEG=on]", "evented retries=5 fallback=1s [EventedPLEG=on]", "generic 1s/3m0s [EventedPLEG=off]"},
	}, {
		name: "negation, && and ||, early return",
		body: `func f() {
	if !gates.Enabled(features.EventedPLEG) || !gates.Enabled(features.QuotaPeriod) {
		pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second}, time.Now)
		return
	}
	if gates.Enabled(features.RelistOnDemand) && true {
		pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: 2 * time.Second}, time.Now)
	}
}`,
		want: []string{"generic 1s/? []", "generic 2s/? [RelistOnDemand=on EventedPLEG=on CustomQuotaPeriod=on]"},
	}, {
		name: "a variable reassigned: the last assignment before the call counts",
		body: `func f() {
	d := pleg.RelistDuration{RelistPeriod: time.Second, RelistThreshold: time.Minute}
	d = pleg.RelistDuration{RelistPeriod: 2 * time.Second, RelistThreshold: 2 * time.Minute}
	pleg.NewGenericPLEG(nil, &d, time.Now)
}`,
		want: []string{"generic 2s/2m0s []"},
	}, {
		name: "values that are not constants",
		body: `func f(d *pleg.RelistDuration, n int) {
	pleg.NewGenericPLEG(nil, d, time.Now)
	pleg.NewEventedPLEG(nil, nil, n, &pleg.RelistDuration{RelistPeriod: time.Duration(n)})
}`,
		want: []string{"generic ?/? []", "evented retries=? fallback=? []"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range constructions(t, header+tc.body) {
				got = append(got, summary(c))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// Tests not written inline: followed through locals, helpers, methods
// and fields of the package; what cannot be followed is said, with why.
func TestConditionsFollowed(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{{
		name: "locals: := and var =, assigned the same test twice",
		body: `func f() {
	on := gates.Enabled(features.EventedPLEG)
	var quota = !gates.Enabled(features.QuotaPeriod)
	if on {
		on = gates.Enabled(features.EventedPLEG)
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	}
	if !quota {
		pleg.NewGenericPLEG(nil, nil, time.Now)
	}
}`,
		want: []string{"evented retries=5 fallback=? [EventedPLEG=on]", "generic ?/? [CustomQuotaPeriod=on]"},
	}, {
		name: "a local assigned different tests is not followed",
		body: `func f() {
	on := gates.Enabled(features.EventedPLEG)
	if time.Now().IsZero() {
		on = gates.Enabled(features.QuotaPeriod)
	}
	if on {
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	}
}`,
		want: []string{"evented retries=5 fallback=? [] ?on (must hold): on is assigned different values: gates.Enabled(features.EventedPLEG) and gates.Enabled(features.QuotaPeriod)"},
	}, {
		name: "helpers and methods returning a test, negated, && inside",
		body: `type kubelet struct{}

func evented() bool { return gates.Enabled(features.EventedPLEG) }
func polling() bool { return !evented() }
func both() bool    { return evented() && gates.Enabled(features.QuotaPeriod) }
func (kubelet) quota() bool { return gates.Enabled(features.QuotaPeriod) }

func f(kl kubelet) {
	if !polling() {
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	}
	if both() {
		pleg.NewEventedPLEG(nil, nil, 6, nil)
	}
	if kl.quota() {
		pleg.NewGenericPLEG(nil, nil, time.Now)
	}
}`,
		want: []string{"evented retries=5 fallback=? [EventedPLEG=on]", "evented retries=6 fallback=? [EventedPLEG=on CustomQuotaPeriod=on]", "generic ?/? [CustomQuotaPeriod=on]"},
	}, {
		name: "helpers that do more than return, or recurse, are not followed",
		body: `func busy() bool {
	println()
	return gates.Enabled(features.EventedPLEG)
}
func ping() bool { return pong() }
func pong() bool { return ping() }

func f() {
	if busy() {
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	}
	if ping() {
		pleg.NewEventedPLEG(nil, nil, 6, nil)
	}
}`,
		want: []string{
			"evented retries=5 fallback=? [] ?busy() (must hold): busy() calls busy, whose body is not a single return of a test",
			"evented retries=6 fallback=? [] ?ping() (must hold): ping returns pong(), and pong returns ping(), and ping() calls ping, which returns pong(): too deep or recursive to follow",
		},
	}, {
		name: "a field set in a literal and by assignment, and a package variable",
		body: `type kubelet struct{ evented, mixed bool }

var quota = gates.Enabled(features.QuotaPeriod)

func newKubelet() *kubelet {
	k := &kubelet{evented: gates.Enabled(features.EventedPLEG), mixed: true}
	k.mixed = gates.Enabled(features.EventedPLEG)
	return k
}

func (k *kubelet) reload() { k.evented = gates.Enabled(features.EventedPLEG) }

func (k *kubelet) f() {
	if k.evented && !quota {
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	}
	if klet := k; klet.mixed {
		pleg.NewEventedPLEG(nil, nil, 6, nil)
	}
}`,
		want: []string{
			"evented retries=5 fallback=? [EventedPLEG=on CustomQuotaPeriod=off]",
			"evented retries=6 fallback=? [] ?klet.mixed (must hold): field mixed is assigned different values: true and gates.Enabled(features.EventedPLEG)",
		},
	}, {
		name: "parameters, other packages, address taken, ||",
		body: `func set(b *bool) {}

func f(on bool) {
	if on {
		pleg.NewEventedPLEG(nil, nil, 1, nil)
	}
	if time.Now().IsZero() {
		pleg.NewEventedPLEG(nil, nil, 2, nil)
	}
	var flagged bool
	set(&flagged)
	if !flagged {
		pleg.NewEventedPLEG(nil, nil, 3, nil)
	}
	if on || gates.Enabled(features.EventedPLEG) {
		pleg.NewEventedPLEG(nil, nil, 4, nil)
	}
}`,
		want: []string{
			"evented retries=1 fallback=? [] ?on (must hold): on is a parameter of f: its callers decide it",
			"evented retries=2 fallback=? [] ?time.Now().IsZero() (must hold): time.Now().IsZero() calls IsZero of package time, whose body plegvet does not read here",
			"evented retries=3 fallback=? [] ?flagged (must not hold): its address is taken (&flagged): it can be set anywhere",
			"evented retries=4 fallback=? [] ?on || gates.Enabled(features.EventedPLEG) (must hold): the call runs when on || gates.Enabled(features.EventedPLEG) holds, whichever of its parts decides that",
		},
	}, {
		name: "generic constructions: comparisons and error checks are no gate tests",
		body: `func f(ok bool, src *int) error {
	var err error
	if err != nil {
		return err
	}
	if src != nil {
		pleg.NewGenericPLEG(nil, nil, time.Now)
		pleg.NewEventedPLEG(nil, nil, 1, nil)
	}
	if !ok {
		pleg.NewGenericPLEG(nil, nil, time.Now)
	}
	return nil
}`,
		want: []string{
			"generic ?/? []",
			"evented retries=1 fallback=? [] ?src != nil (must hold): src != nil compares values: it is not a feature-gate test",
			"generic ?/? [] ?ok (must not hold): ok is a parameter of f: its callers decide it",
		},
	}, {
		name: "early returns: an error check is no gate test, a flag may be",
		body: `func f(src *int, flag bool) {
	if gates.Enabled(features.QuotaPeriod) && src == nil {
		return
	}
	if !flag {
		return
	}
	pleg.NewEventedPLEG(nil, nil, 1, nil)
}`,
		want: []string{"evented retries=1 fallback=? [] ?flag (must hold): flag is a parameter of f: its callers decide it"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range constructions(t, header+tc.body) {
				got = append(got, summary(c))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// An evented PLEG whose deciding test is unfollowed leaves the gate
// unresolved, never absent; the gate-off mode is the other branch.
func TestModesUnresolved(t *testing.T) {
	tests := []struct {
		name, body string
		want       string
	}{{
		name: "a parameter decides both PLEGs",
		body: `func f(streaming bool) {
	if streaming {
		pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Minute}, time.Now)
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	} else {
		pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second}, time.Now)
	}
}`,
		want: "unresolved streaming holds, off 1s",
	}, {
		name: "the gate test preferred over an unfollowed one",
		body: `func f(src *int, streaming bool) {
	if gates.Enabled(features.EventedPLEG) {
		if src != nil && streaming {
			pleg.NewEventedPLEG(nil, nil, 5, nil)
		}
	}
	pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second}, time.Now)
}`,
		want: "gate EventedPLEG, off 1s",
	}, {
		name: "a name preferred over a comparison; an early return",
		body: `func f(src *int, polling bool) {
	if polling {
		pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Second}, time.Now)
		return
	}
	if src != nil {
		pleg.NewEventedPLEG(nil, nil, 5, nil)
	}
}`,
		want: "unresolved polling does not hold, off 1s",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Positions are not asked for: an empty file set resolves none.
			r := plegperiods.Modes(token.NewFileSet(), constructions(t, header+tc.body))
			var got string
			switch u := r.GateUnresolved; {
			case u != nil:
				state := "holds"
				if !u.Holds {
					state = "does not hold"
				}
				got = "unresolved " + u.Expr + " " + state
			case r.Gate != nil:
				got = "gate " + r.Gate.Name
			default:
				got = "no gate"
			}
			got += ", off " + r.GateOff.Period.Value
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
