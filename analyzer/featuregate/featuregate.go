package featuregate

import (
	"cmp"
	_ "embed"
	"fmt"
	"go/token"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/gatefacts"
	"github.com/plegvet/plegvet/analyzer/internal/analyzerdoc"
	"github.com/plegvet/plegvet/analyzer/internal/reporting"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/check"
)

// Config is the featuregate analyzer's configuration. Its fields are the
// analyzer's flags (-featuregate.rules) and, by their JSON names, the
// golangci-lint plugin's settings (featuregate.rules).
type Config struct {
	// Rules is "auto" (or ""): component-base's rules as of the newest
	// version the package's specs name; or a Kubernetes minor such as
	// "1.33", whose rules then apply.
	Rules string `json:"rules"`
	// AlphaDefaultExempt are gates exempt from alpha-default-on.
	AlphaDefaultExempt []string `json:"alphaDefaultExempt"`
}

// DefaultConfig is upstream's: rules of the tree's own release, and
// WindowsHostNetwork exempt, as pkg/features' own test exempts it.
func DefaultConfig() Config {
	return Config{Rules: "auto", AlphaDefaultExempt: []string{"WindowsHostNetwork"}}
}

// Validate names the first setting that is wrong, by its JSON name.
func (c Config) Validate() error {
	if err := checkRules(c.Rules); err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	for _, g := range c.AlphaDefaultExempt {
		if err := checkGateName(g); err != nil {
			return fmt.Errorf("alphaDefaultExempt: %w", err)
		}
	}
	return nil
}

func checkRules(r string) error {
	if r == "" || r == "auto" {
		return nil
	}
	if _, ok := featuregates.ParseVersion(r); !ok {
		return fmt.Errorf(`%q is neither "auto" nor a Kubernetes minor such as "1.33"`, r)
	}
	return nil
}

func checkGateName(g string) error {
	if g == "" || strings.ContainsAny(g, ", \t") {
		return fmt.Errorf("%q is not a gate name", g)
	}
	return nil
}

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

// rulesFlag is -rules, bound to one analyzer's Config.
type rulesFlag struct{ c *Config }

func (f rulesFlag) String() string {
	if f.c == nil {
		return ""
	}
	return f.c.Rules
}

func (f rulesFlag) Set(s string) error {
	if err := checkRules(s); err != nil {
		return err
	}
	f.c.Rules = s
	return nil
}

// exemptFlag is -alpha-default-exempt, a comma-separated list bound to
// one analyzer's Config.
type exemptFlag struct{ c *Config }

func (f exemptFlag) String() string {
	if f.c == nil {
		return ""
	}
	return strings.Join(f.c.AlphaDefaultExempt, ",")
}

func (f exemptFlag) Set(s string) error {
	names := []string{}
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if err := checkGateName(n); err != nil {
			return err
		}
		names = append(names, n)
	}
	f.c.AlphaDefaultExempt = names
	return nil
}

// Result is gatefacts' result on the package, which the featuregate
// analyzer passes on so that its callers find the gates where they find
// its diagnostics.
type Result = gatefacts.Result

//go:embed doc.go
var docGo string

// doc is the "# Analyzer featuregate" section of doc.go.
func doc() string { return analyzerdoc.Extract(docGo, "featuregate") }

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
		return res, nil
	}
	c := &checker{pass: pass, res: res.Declared, gates: res, rules: rulesVersion(cfg.Rules, res.Declared), exempt: cfg.AlphaDefaultExempt}
	for _, f := range c.findings() {
		reporting.Report(pass, f)
	}
	return res, nil
}

type checker struct {
	pass   *analysis.Pass
	res    *featuregates.Result
	gates  *gatefacts.Result    // for the gates of imported packages
	rules  featuregates.Version // the Kubernetes minor whose rules apply
	exempt []string             // gates exempt from alpha-default-on
	out    []reporting.Finding
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
	c.add(s.Pos, s.End, check, related, format, args...)
}

// fix attaches a suggested fix to the finding just reported.
func (c *checker) fix(message string, pos, end token.Pos, text string) {
	f := &c.out[len(c.out)-1]
	f.Fixes = append(f.Fixes, analysis.SuggestedFix{
		Message:   message,
		TextEdits: []analysis.TextEdit{{Pos: pos, End: end, NewText: []byte(text)}},
	})
}

// history applies component-base's AddVersioned rules to one gate's specs,
// and plegvet's own alpha-default-on.
func (c *checker) history(g *featuregates.Gate) {
	var last featuregates.Spec
	var lastV featuregates.Version
	was := map[featuregates.PreRelease]bool{} // the stages of the specs before
	var wasLocked bool
	for i, s := range g.Specs {
		if s.PreRelease == featuregates.Alpha && s.Default && !slices.Contains(c.exempt, g.Name) {
			c.report(AlphaDefaultOn, s, nil, "feature gate %s is Alpha but on by default%s; Alpha gates must default to false", g.Name, at(s))
			if s.DefaultValue != nil {
				c.fix("Default: false", s.DefaultValue.Pos(), s.DefaultValue.End(), "false")
			}
		}
		if g.Format != featuregates.Versioned || !c.enforces(historyRulesSince) {
			continue
		}
		if s.Unresolved != "" {
			return // what follows compares versions that are not known
		}
		if s.Version == "" {
			c.report(MissingVersion, s, nil, "feature gate %s: spec has no Version; every spec of a versioned map needs one", g.Name)
			return
		}
		v, _ := featuregates.ParseVersion(s.Version)
		if v.Patch != nil {
			c.report(PatchVersion, s, nil, "feature gate %s: Version %s names a patch release; use %s", g.Name, s.Version, v.MajorMinor())
			if s.VersionLit != nil {
				c.fix("Version "+v.MajorMinor().String(), s.VersionLit.Pos(), s.VersionLit.End(), strconv.Quote(v.MajorMinor().String()))
			}
		}
		if s.MinCompatibilityVersion != "" && c.enforces(transitionRulesSince) {
			mc, _ := featuregates.ParseVersion(s.MinCompatibilityVersion)
			switch {
			case i == 0 || last.Version != s.Version:
				c.report(MinCompatVersion, s, nil, "feature gate %s: MinCompatibilityVersion %s without a preceding spec at Version %s", g.Name, s.MinCompatibilityVersion, s.Version)
			case mc.Patch != nil:
				c.report(PatchVersion, s, nil, "feature gate %s: MinCompatibilityVersion %s names a patch release", g.Name, s.MinCompatibilityVersion)
			case v.Less(mc):
				c.report(MinCompatVersion, s, nil, "feature gate %s: MinCompatibilityVersion %s is later than Version %s", g.Name, s.MinCompatibilityVersion, s.Version)
			}
		}
		if i == 0 && s.PreRelease == featuregates.Deprecated && v.Minor != 0 {
			c.report(DeprecatedWithoutInitialState, s, nil, "feature gate %s starts Deprecated at %s; add a 1.0 spec with the state it had before", g.Name, s.Version)
		}
		if i > 0 {
			c.transition(g, last, lastV, s, v, was, wasLocked)
		}
		last, lastV = s, v
		was[s.PreRelease] = true
		wasLocked = wasLocked || s.LockToDefault
	}
}

func (c *checker) transition(g *featuregates.Gate, last featuregates.Spec, lastV featuregates.Version, s featuregates.Spec, v featuregates.Version, was map[featuregates.PreRelease]bool, wasLocked bool) {
	rel := []reporting.Related{{Pos: last.Pos, End: last.End, Message: "the spec before"}}
	sameVersion := !v.Less(lastV) && !lastV.Less(v)
	switch {
	case v.Less(lastV):
		c.report(VersionOrder, s, rel, "feature gate %s: specs go back from %s to %s; list them in increasing version order", g.Name, last.Version, s.Version)
		return
	case sameVersion && (s.MinCompatibilityVersion == last.MinCompatibilityVersion || !c.enforces(transitionRulesSince)):
		c.report(DuplicateVersion, s, rel, "feature gate %s: two specs at version %s", g.Name, s.Version)
		return
	case sameVersion && s.PreRelease != last.PreRelease:
		c.report(SameVersionChange, s, rel, "feature gate %s changes stage at one version %s (%s -> %s)", g.Name, s.Version, last.PreRelease, s.PreRelease)
		return
	case sameVersion && s.LockToDefault != last.LockToDefault:
		c.report(SameVersionChange, s, rel, "feature gate %s changes LockToDefault at one version %s", g.Name, s.Version)
		return
	}
	if c.enforces(transitionRulesSince) {
		if s.PreRelease == last.PreRelease && s.Default == last.Default && s.LockToDefault == last.LockToDefault {
			c.report(TransitionWithoutChange, s, rel, "feature gate %s: the spec at %s repeats the one at %s (%s, default %t)", g.Name, s.Version, last.Version, s.PreRelease, s.Default)
		}
		if wasLocked && !s.LockToDefault {
			c.report(UnlockAfterLock, s, rel, "feature gate %s is unlocked at %s after being locked to its default", g.Name, s.Version)
		}
	}
	switch {
	case was[featuregates.Deprecated] && s.PreRelease != featuregates.Deprecated:
		c.report(DeprecatedResurrected, s, rel, "feature gate %s returns from Deprecated to %s at %s; Deprecated is final", g.Name, s.PreRelease, s.Version)
	case s.PreRelease == featuregates.Alpha && (was[featuregates.Beta] || was[featuregates.GA]), s.PreRelease == featuregates.Beta && was[featuregates.GA]:
		c.report(StabilityRegression, s, rel, "feature gate %s regresses to %s at %s", g.Name, s.PreRelease, s.Version)
	}
}

func at(s featuregates.Spec) string {
	if s.Version == "" {
		return ""
	}
	return " at " + s.Version
}

// conflicts reports a gate declared in two maps of the package with
// specs component-base does not take for the same.
func (c *checker) conflicts() {
	first := map[string]*featuregates.Gate{}
	for _, e := range c.res.Entries {
		if len(e.Specs) == 0 || !e.PackageLevel() {
			continue // a map built for a call: registered with the call's FeatureGate
		}
		f, ok := first[e.Name]
		if !ok {
			first[e.Name] = e
			continue
		}
		if e.MapVar != nil && e.MapVar == f.MapVar {
			// One map, set twice: no second registration.
			if e.Overwrites(f) {
				first[e.Name] = e
			}
			continue
		}
		if conflict, ok := featuregates.Conflicts(f, e, c.rules); ok && conflict != nil {
			c.add(e.Entry, e.Value.End(), ConflictingSpec, []reporting.Related{{Pos: f.Entry, End: f.Value.End(), Message: "first declared in " + f.Map}},
				"feature gate %s is declared again in %s with different specs; component-base refuses the second", e.Name, e.Map)
		}
	}
}

// Related messages of conflicting-registration: at the entry registered
// again, the import's entry; at the import's entry, the one here.
const (
	RegisteredFirst = "registered first here"
	RegisteredAgain = "registered again here"
)

// registrations reports the gates that a direct import registers and
// this package registers again with specs component-base does not take
// for the same, at both entries: the import's is the existing
// registration (an imported package is initialised first), reached
// through its fact's recorded place.
func (c *checker) registrations() {
	for _, e := range c.res.Entries {
		if len(e.Specs) == 0 || e.Value == nil || c.overwritten(e) || !e.PackageLevel() {
			continue
		}
		for _, r := range c.gates.Registrations(e.Name) {
			if r.Fact.Local {
				continue // registered with a FeatureGate of the call's choosing
			}
			conflict, ok := featuregates.Conflicts(r.Fact.Gate(), e, c.rules)
			if !ok || conflict == nil {
				continue
			}
			msg := fmt.Sprintf("%s: registered by %s, then by %s with %v; component-base refuses the second",
				conflict.Error(), r.Package, c.pass.Pkg.Path(), conflict.Added)
			there, thereEnd := r.Fact.Entry.In(c.pass.Fset)
			c.add(e.Entry, e.Value.End(), ConflictingRegistration,
				[]reporting.Related{{Pos: there, End: thereEnd, Message: fmt.Sprintf("%s, by %s (%s)", RegisteredFirst, r.Package, r.Fact.Map)}}, "%s", msg)
			if there.IsValid() {
				c.add(there, thereEnd, ConflictingRegistration,
					[]reporting.Related{{Pos: e.Entry, End: e.Value.End(), Message: fmt.Sprintf("%s, by %s (%s)", RegisteredAgain, c.pass.Pkg.Path(), e.Map)}}, "%s", msg)
			}
		}
	}
}

// overwritten reports whether an index assignment replaces entry e in
// its map before the map is registered.
func (c *checker) overwritten(e *featuregates.Gate) bool {
	return slices.ContainsFunc(c.res.Entries, func(o *featuregates.Gate) bool { return o != e && o.Name == e.Name && o.Overwrites(e) })
}

// lookup finds a gate by name: in this package, or through the facts of
// the package that declares the dependency's constant.
func (c *checker) lookup(name string) *featuregates.Gate {
	if g := c.res.Gate(name); g != nil {
		return g
	}
	if f := c.gates.Imported(name); f != nil {
		return f.Gate()
	}
	return nil
}

// dependencies applies component-base's AddDependencies rules.
func (c *checker) dependencies() {
	// A map that could not be read may hold any gate: an unknown name is
	// then not a finding (gate-unreadable says where); nor is a gate named
	// by a constant of another package, which can be unknown here for want
	// of facts (partially typed source).
	complete := c.res.Complete()
	unknown := func(pos token.Pos, pkg, format string, args ...any) {
		if complete && (pkg == "" || pkg == c.pass.Pkg.Path()) {
			c.add(pos, token.NoPos, DependencyUnknown, nil, format, args...)
		}
	}
	deps := map[string][]string{}
	for _, de := range c.res.DependencyEntries {
		g := c.lookup(de.Name)
		if g == nil {
			unknown(de.Entry, de.Pkg, "dependencies are listed for %s, which no feature map declares", de.Name)
			continue
		}
		for _, d := range de.Deps {
			deps[de.Name] = append(deps[de.Name], d.Name)
			if dg := c.lookup(d.Name); dg != nil {
				c.dependency(g, dg, d)
			} else {
				unknown(d.Pos, d.Pkg, "%s depends on %s, which no feature map declares", de.Name, d.Name)
			}
		}
	}
	c.cycles(deps)
}

func (c *checker) dependency(g, dg *featuregates.Gate, d featuregates.Dependency) {
	if len(dg.Specs) == 0 && dg.Unresolved != "" {
		return // its specs are unknown, not absent: nothing to compare
	}
	// Newest first, as component-base does, so the message names the
	// current state; one finding per dependency is enough.
	for i := len(g.Specs) - 1; i >= 0; i-- {
		s := g.Specs[i]
		ver := cmp.Or(s.Version, "0.0")
		ds, ok := dg.At(ver)
		// A dependency with no spec yet at this version does not exist
		// there: say so, rather than call it a pre-alpha gate.
		absent := ""
		if !ok {
			ds = featuregates.Spec{PreRelease: featuregates.PreAlpha}
			absent = fmt.Sprintf("%s, which does not exist at %s", d.Name, ver)
			if len(dg.Specs) > 0 && dg.Specs[0].Version != "" {
				absent += fmt.Sprintf(" (its first spec is at %s)", dg.Specs[0].Version)
			}
		}
		rel := []reporting.Related{{Pos: s.Pos, End: s.End, Message: fmt.Sprintf("%s is %s, default %t%s", g.Name, s.PreRelease, s.Default, at(s))}}
		msg, cat := "", check.Check("")
		switch {
		case absent != "" && s.PreRelease.Stability() > ds.PreRelease.Stability():
			cat, msg = DependencyStability, fmt.Sprintf("%s gate %s depends on %s", s.PreRelease, g.Name, absent)
		case absent != "" && s.Default:
			cat, msg = DependencyDefault, fmt.Sprintf("%s is on by default%s but depends on %s", g.Name, at(s), absent)
		case absent != "" && s.LockToDefault:
			cat, msg = DependencyLock, fmt.Sprintf("%s is locked to its default%s but depends on %s", g.Name, at(s), absent)
		case s.PreRelease.Stability() > ds.PreRelease.Stability():
			cat, msg = DependencyStability, fmt.Sprintf("%s gate %s depends on %s gate %s%s", s.PreRelease, g.Name, ds.PreRelease, d.Name, at(s))
		case s.Default && !ds.Default:
			cat, msg = DependencyDefault, fmt.Sprintf("%s is on by default but depends on %s, which is off by default%s", g.Name, d.Name, at(s))
		case s.LockToDefault && !ds.LockToDefault:
			cat, msg = DependencyLock, fmt.Sprintf("%s is locked to its default but depends on %s, which is not%s", g.Name, d.Name, at(s))
		}
		if cat != "" {
			c.add(d.Pos, token.NoPos, cat, rel, "%s", msg)
			return
		}
	}
}

func (c *checker) cycles(deps map[string][]string) {
	state := map[string]int{} // 1 visiting, 2 done
	var path []string
	var visit func(string) bool
	visit = func(n string) bool {
		switch state[n] {
		case 1:
			cycle := append(slices.Clone(path[slices.Index(path, n):]), n)
			for _, de := range c.res.DependencyEntries {
				if de.Name == n {
					c.add(de.Entry, token.NoPos, DependencyCycle, nil, "feature gate dependencies form a cycle: %s", strings.Join(cycle, " -> "))
					break
				}
			}
			return true
		case 2:
			return false
		}
		state[n] = 1
		path = append(path, n)
		for _, d := range deps[n] {
			if visit(d) {
				return true
			}
		}
		path = path[:len(path)-1]
		state[n] = 2
		return false
	}
	for _, n := range slices.Sorted(maps.Keys(deps)) {
		if state[n] == 0 && visit(n) {
			return // one cycle is enough to act on
		}
	}
}

// Checks are the analyzer's checks with their documentation, in the order
// doc.go lists them.
func Checks() []check.Doc { return analyzerdoc.Checks(doc()) }
