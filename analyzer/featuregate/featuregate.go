// The featuregate analyzer: its definition, and the checker that runs the
// checks over the gates gatefacts read and orders the findings.

package featuregate

import (
	_ "embed"
	"fmt"
	"go/token"
	"reflect"
	"slices"
	"sort"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/gatefacts"
	"github.com/plegvet/plegvet/analyzer/internal/analyzerdoc"
	"github.com/plegvet/plegvet/analyzer/internal/reporting"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/analysis/check"
)

// Analyzer is the featuregate analyzer with DefaultConfig, for go vet,
// nogo and the library.
var Analyzer = New(DefaultConfig())

// New returns a featuregate analyzer with its own copy of cfg, which its
// flags set: analyzers built with different configurations can run side
// by side in one process.
func New(cfg Config) *analysis.Analyzer {
	c := &Config{Rules: cfg.Rules, AlphaDefaultExempt: slices.Clone(cfg.AlphaDefaultExempt)}
	a := &analysis.Analyzer{
		Name:             "featuregate",
		Doc:              doc(),
		URL:              "https://pkg.go.dev/github.com/plegvet/plegvet/analyzer/featuregate",
		Requires:         []*analysis.Analyzer{gatefacts.Analyzer},
		Run:              func(pass *analysis.Pass) (any, error) { return run(pass, c) },
		RunDespiteErrors: true, // partially typed release sources still have gates
		ResultType:       reflect.TypeFor[*Result](),
	}
	a.Flags.Var(rulesFlag{c}, "rules",
		"apply component-base's validation as of this Kubernetes minor (1.33); auto: the newest version the package's specs name")
	a.Flags.Var(exemptFlag{c}, "alpha-default-exempt",
		"comma-separated gates exempt from alpha-default-on (upstream's kube_features_test.go exempts WindowsHostNetwork)")
	return a
}

// Result is gatefacts' result on the package, which the featuregate
// analyzer passes on so that its callers find the gates where they find
// its diagnostics, and the registration conflicts it reports, as data.
type Result struct {
	*gatefacts.Result
	// Conflicts are the gates registered twice with specs component-base
	// does not take for the same (conflicting-spec, and conflicting-
	// registration once per pair), in the order they were found.
	Conflicts []Conflict
}

// Conflict is a gate that two feature map entries register with specs
// component-base does not take for the same: First is the registration
// it keeps (an imported package's, or the first map of the package),
// Again the one it refuses; Message is the finding's.
type Conflict struct {
	Gate         string
	First, Again token.Pos
	Message      string
}

//go:embed doc.go
var docGo string

// doc is the "# Analyzer featuregate" section of doc.go, parsed once
// for New and Checks alike.
var doc = sync.OnceValue(func() string { return analyzerdoc.Extract(docGo, "featuregate") })

// Kubernetes minors from which component-base enforces each group of rules.
var (
	historyRulesSince    = featuregates.Version{Major: 1, Minor: 33} // version present, no patch, Deprecated start, order, no regression
	transitionRulesSince = featuregates.Version{Major: 1, Minor: 35} // min compatibility, same-version, transitions, locks, dependencies
)

// rulesVersion is the Kubernetes minor whose component-base rules apply:
// the configured one, or the newest version any spec of the package
// names (a tree declares specs up to its own release).
func rulesVersion(rules string, res *featuregates.Result) featuregates.Version {
	if v, ok := featuregates.ParseVersion(rules); ok {
		return v.MajorMinor()
	}
	var newest featuregates.Version
	for _, g := range res.Entries {
		for _, s := range g.Specs {
			if v, ok := featuregates.ParseVersion(s.Version); ok && newest.Less(v.MajorMinor()) {
				newest = v.MajorMinor()
			}
		}
	}
	return newest
}

func run(pass *analysis.Pass, cfg *Config) (any, error) {
	res := pass.ResultOf[gatefacts.Analyzer].(*gatefacts.Result)
	if len(res.Declared.Maps) == 0 {
		return &Result{Result: res}, nil
	}
	c := &checker{pass: pass, res: res.Declared, gates: res, rules: rulesVersion(cfg.Rules, res.Declared), exempt: cfg.AlphaDefaultExempt}
	for _, f := range c.findings() {
		reporting.Report(pass, f)
	}
	return &Result{Result: res, Conflicts: c.conflictList}, nil
}

type checker struct {
	pass   *analysis.Pass
	res    *featuregates.Result
	gates  *gatefacts.Result    // for the gates of imported packages
	rules  featuregates.Version // the Kubernetes minor whose rules apply
	exempt []string             // gates exempt from alpha-default-on
	out    []reporting.Finding
	// conflictList are the conflicts reported, as Result gives them.
	conflictList []Conflict
}

// enforces reports whether component-base enforces rules introduced at since.
func (c *checker) enforces(since featuregates.Version) bool { return !c.rules.Less(since) }

func (c *checker) findings() []reporting.Finding {
	for _, p := range c.res.Problems {
		c.add(p.Pos, p.End, GateUnreadable, nil, "%s", p.Msg)
	}
	for _, e := range c.res.Entries {
		if e.Unresolved != "" && len(e.Specs) == 0 {
			continue
		}
		c.history(e)
	}
	c.conflicts()
	c.registrations()
	if c.enforces(transitionRulesSince) {
		c.dependencies()
	}
	// The package's own findings by position; then those in other
	// packages' files (conflicting-registration's other end), by file
	// name and offset: how a driver numbers other packages' files is its
	// own affair, and every driver must print alike.
	own := map[*token.File]bool{}
	for _, f := range c.pass.Files {
		own[c.pass.Fset.File(f.Pos())] = true
	}
	foreign := func(f reporting.Finding) (bool, token.Position) {
		tf := c.pass.Fset.File(f.Pos)
		if tf == nil || own[tf] {
			return false, token.Position{}
		}
		return true, tf.PositionFor(f.Pos, false)
	}
	sort.SliceStable(c.out, func(i, j int) bool {
		fi, pi := foreign(c.out[i])
		fj, pj := foreign(c.out[j])
		switch {
		case fi != fj:
			return fj
		case fi && pi.Filename != pj.Filename:
			return pi.Filename < pj.Filename
		case fi:
			return pi.Offset < pj.Offset
		}
		return c.out[i].Pos < c.out[j].Pos
	})
	return c.out
}

func (c *checker) add(pos, end token.Pos, check check.Check, related []reporting.Related, format string, args ...any) {
	c.out = append(c.out, reporting.Finding{Pos: pos, End: end, Check: check, Message: fmt.Sprintf(format, args...), Related: related})
}

// report adds a finding at spec s.
func (c *checker) report(check check.Check, s featuregates.Spec, related []reporting.Related, format string, args ...any) {
	c.add(s.Start, s.End, check, related, format, args...)
}

// fix attaches a suggested fix to the finding just reported.
func (c *checker) fix(message string, pos, end token.Pos, text string) {
	f := &c.out[len(c.out)-1]
	f.Fixes = append(f.Fixes, analysis.SuggestedFix{
		Message:   message,
		TextEdits: []analysis.TextEdit{{Pos: pos, End: end, NewText: []byte(text)}},
	})
}

// Checks are the analyzer's checks with their documentation, in the order
// doc.go lists them.
func Checks() []check.Doc { return analyzerdoc.Checks(doc()) }
