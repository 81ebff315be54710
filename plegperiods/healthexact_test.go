package plegperiods_test

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
	"github.com/plegvet/plegvet/plegperiods"
)

// healthPrelude is a look-alike generic PLEG, in the test's own words,
// without its health method: each case writes one.
const healthPrelude = `package pleg

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

const staleAfter = 3 * time.Minute

type Limits struct {
	Every, Stale time.Duration
}

type Generator interface {
	Start()
	Healthy() (bool, error)
}

type Generic struct {
	limits *Limits
	done   time.Time
}

func NewGeneric(l *Limits) Generator { return &Generic{limits: l} }

func (g *Generic) Start() { go wait.Until(g.pass, g.limits.Every, nil) }

func (g *Generic) pass() { g.done = time.Now() }

func (g *Generic) lastDone() time.Time { return g.done }

var _ = errors.New
var _ = fmt.Errorf
`

// healthMethodOf reads the generic PLEG's health method written as body.
func healthMethodOf(t *testing.T, body string) *plegperiods.HealthMethod {
	t.Helper()
	fset := token.NewFileSet()
	im := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src"))
	f, info, _, err := im.Check("exact/pkg/kubelet/pleg", healthPrelude+"\nfunc (g *Generic) Healthy() (bool, error) {\n"+body+"\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plegperiods.Constructors(fset, []*ast.File{f}, info) {
		if c.Health != nil {
			return c.Health
		}
	}
	t.Fatal("no health method read")
	return nil
}

// The relist-elapsed rule is recognised only as the releases write it
// (and mirrored); every other comparison of durations is unknown, with
// why naming the test's line (the method's test is on line 39 of the
// file the case builds, its error on line 40).
func TestHealthExact(t *testing.T) {
	tests := []struct {
		name, body string
		why        string // "" for relist-elapsed
	}{
		{"releases", `	t := g.lastDone()
	if t.IsZero() {
		return false, errors.New("never")
	}
	elapsed := time.Since(t)
	if elapsed > g.limits.Stale {
		return false, fmt.Errorf("seen %v ago; limit %v", elapsed, g.limits.Stale)
	}
	return true, nil`, ""},
		{"mirrored", `	if elapsed := time.Now().Sub(g.done); g.limits.Stale <= elapsed {
		return false, fmt.Errorf("seen %v ago; limit %v", elapsed, g.limits.Stale)
	}
	return true, nil`, ""},
		{"no arguments", `	if time.Since(g.done) > g.limits.Stale {
		return false, errors.New("late")
	}
	return true, nil`, ""},
		{"inverted", `	if elapsed := time.Since(g.done); elapsed < g.limits.Stale {
		return false, fmt.Errorf("seen %v ago; limit %v", elapsed, g.limits.Stale)
	}
	return true, nil`, "Healthy's test at pleg.go:39 (elapsed < g.limits.Stale) holds while the time since the last relist is below the threshold"},
		{"threshold against itself", `	if g.limits.Stale > g.limits.Stale/2 {
		return false, errors.New("late")
	}
	return true, nil`, "Healthy's test at pleg.go:39 (g.limits.Stale > g.limits.Stale / 2) compares no time since the PLEG's relist timestamp"},
		{"true past the threshold", `	if elapsed := time.Since(g.done); elapsed > g.limits.Stale {
		return true, fmt.Errorf("seen %v ago; limit %v", elapsed, g.limits.Stale)
	}
	return false, nil`, "Healthy's test at pleg.go:39 (elapsed > g.limits.Stale) returns true (not false: unhealthy) past the threshold"},
		{"reordered arguments", `	if elapsed := time.Since(g.done); elapsed > g.limits.Stale {
		return false, fmt.Errorf("seen %v ago; limit %v", g.limits.Stale, elapsed)
	}
	return true, nil`, `Healthy's error at pleg.go:40 ("seen %v ago; limit %v"): argument 1 is g.limits.Stale, not the time since the last relist (elapsed)`},
		{"indexed arguments", `	if elapsed := time.Since(g.done); elapsed > g.limits.Stale {
		return false, fmt.Errorf("seen %[1]v ago; limit %[2]v", elapsed, g.limits.Stale)
	}
	return true, nil`, `Healthy's error at pleg.go:40 ("seen %[1]v ago; limit %[2]v"): it indexes its arguments`},
		{"field plus a minute", `	if elapsed := time.Since(g.done); elapsed > g.limits.Stale+time.Minute {
		return false, errors.New("late")
	}
	return true, nil`, "Healthy's test at pleg.go:39 (elapsed > g.limits.Stale + time.Minute): the threshold g.limits.Stale + time.Minute is neither a field of the PLEG nor a constant"},
		{"constant plus a minute", `	if elapsed := time.Since(g.done); elapsed > staleAfter+time.Minute {
		return false, fmt.Errorf("seen %v ago; limit %v", elapsed, staleAfter+time.Minute)
	}
	return true, nil`, ""},
		{"elapsed reversed", `	if elapsed := g.done.Sub(time.Now()); elapsed > g.limits.Stale {
		return false, errors.New("late")
	}
	return true, nil`, "Healthy's test at pleg.go:39 (elapsed > g.limits.Stale) compares no time since the PLEG's relist timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := healthMethodOf(t, tt.body)
			switch {
			case tt.why == "" && h.Rule != plegperiods.RelistElapsed:
				t.Errorf("rule %s (%s), want relist-elapsed", h.Rule, h.Why)
			case tt.why != "" && (h.Rule != plegperiods.HealthUnknown || !strings.HasPrefix(h.Why, tt.why)):
				t.Errorf("rule %s, why %q; want unknown, why starting %q", h.Rule, h.Why, tt.why)
			}
		})
	}
}
