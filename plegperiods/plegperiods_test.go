package plegperiods_test

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/internal/fixturetypes"
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
	return plegperiods.Constructions([]*ast.File{f}, kinfo, func(fn *types.Func) *plegperiods.Shape { return ctors[fn] })
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
		if v.Duration {
			return time.Duration(v.Int).String()
		}
		return strings.TrimSuffix(time.Duration(v.Int).String(), "ns")
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
	return s + " [" + strings.Join(conds, " ") + "]"
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
