// Package suite is the one list of plegvet's analyzers: how to build each
// with a configuration, its checks and their documentation, its settings,
// and which packages can matter to it. The command's drivers (the lean
// loading picks packages by Matters), the library, the golangci-lint plugin
// and SARIF rules read it; none keeps a list of its own.
//
// Adding an analyzer means adding it to analyzers and a field to Config;
// adding a check means a constant and a doc.go bullet in its analyzer's
// package (its findings are warnings unless its entry here says
// otherwise); adding a setting means a field of the analyzer's Config and a
// flag of the same name in its New. The suite's tests hold these together.
package suite

import (
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/check/rpcstream"
	"github.com/plegvet/plegvet/check/stalelist"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/analysis/check"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Config configures every analyzer of the suite. Each field is named, in
// JSON, after its analyzer: the JSON form is the golangci-lint plugin's
// settings.
type Config struct {
	Featuregate featuregate.Config `json:"featuregate"`
	Pleg        pleg.Config        `json:"pleg"`
}

// DefaultConfig is every analyzer's default configuration.
func DefaultConfig() Config {
	return Config{Featuregate: featuregate.DefaultConfig(), Pleg: pleg.DefaultConfig()}
}

// Validate names the first setting that is wrong, as ANALYZER.KEY.
func (c Config) Validate() error {
	for _, a := range analyzers {
		if err := a.part(&c).Validate(); err != nil {
			return fmt.Errorf("%s.%w", a.Name, err)
		}
	}
	return nil
}

// Group is checks documented together under one name: an analyzer's, or
// the event stream's, which the library runs itself.
type Group struct {
	// Name is the analyzer's name; SARIF rules are NAME/CHECK.
	Name string
	// URL documents the group's checks.
	URL string
	// Checks are the group's checks, in the order their doc lists them,
	// each with the severity of its findings.
	Checks []check.Doc
	// FromSource picks, by import path, the imports worth type-checking
	// from source when the tree holds them: those whose constants, facts
	// or signatures the checks read. The feature-gate API is not among
	// them: the loader has a model of it.
	FromSource func(importPath string) bool
}

// Analyzer is one analyzer of the suite.
type Analyzer struct {
	Group
	// Default is the package's Analyzer variable, built with the default
	// configuration: what go vet, nogo and the library run.
	Default *analysis.Analyzer
	// New builds the analyzer with its part of a Config, its flags bound
	// to its own copy.
	New func(Config) *analysis.Analyzer
	// Reads picks, by import path, the packages whose declarations the
	// analyzer (or one it requires) reads: the feature-gate API, a
	// features package, the pleg package.
	Reads func(importPath string) bool
	// ReadsImporters picks, by import path, the packages whose direct
	// importers the analyzer reads: the feature-gate API (an importer
	// may declare gates), the pleg package (an importer may build a
	// PLEG). A package can matter to the analyzer only if Reads holds
	// for it or it imports one of these.
	ReadsImporters func(importPath string) bool

	// part is the analyzer's field of a Config.
	part func(*Config) validator
}

type validator interface{ Validate() error }

// isFeaturesPackage is a features package (pkg/features, a staging
// module's): its constants key the gates other packages declare and test.
func isFeaturesPackage(p string) bool { return strings.HasSuffix(p, "/features") }

// readsGates is what gatefacts, which both analyzers require, reads.
func readsGates(p string) bool { return featuregates.IsAPIPath(p) || isFeaturesPackage(p) }

var analyzers = []Analyzer{
	{
		Group: Group{
			Name:       featuregate.Analyzer.Name,
			URL:        featuregate.Analyzer.URL,
			Checks:     featuregate.Checks(),
			FromSource: isFeaturesPackage,
		},
		Default: featuregate.Analyzer,
		New:     func(c Config) *analysis.Analyzer { return featuregate.New(c.Featuregate) },
		Reads:   readsGates,
		// Only where gates are declared: a package importing a features
		// package for its constants alone declares no gate.
		ReadsImporters: featuregates.IsAPIPath,
		part:           func(c *Config) validator { return &c.Featuregate },
	},
	{
		Group: Group{
			Name:       pleg.Analyzer.Name,
			URL:        pleg.Analyzer.URL,
			Checks:     withSeverity(pleg.Checks(), check.Note, pleg.GateNote), // informs, asks for no fix
			FromSource: func(p string) bool { return pleg.IsPlegPackage(p) || isFeaturesPackage(p) },
		},
		Default:        pleg.Analyzer,
		New:            func(c Config) *analysis.Analyzer { return pleg.New(c.Pleg) },
		Reads:          func(p string) bool { return pleg.IsPlegPackage(p) || readsGates(p) },
		ReadsImporters: func(p string) bool { return pleg.IsPlegPackage(p) || featuregates.IsAPIPath(p) },
		part:           func(c *Config) validator { return &c.Pleg },
	},
}

// The checks of the CRI event stream (check/rpcstream). The library runs
// them itself, where it joins the CRI api.proto with the evented PLEG's
// calls: no analysis pass can read a .proto.
const (
	RPCMissing      = rpcstream.Missing
	RPCNotStreaming = rpcstream.NotStreaming
)

// Stream returns the event stream's group of checks, which has no
// analyzer; a new value on each call.
func Stream() Group {
	return Group{
		Name:       "rpc",
		URL:        "https://pkg.go.dev/github.com/plegvet/plegvet#EventStream",
		Checks:     rpcstream.Checks(),
		FromSource: isCRIAPIPackage,
	}
}

// The checks of a committed feature list (check/stalelist). The library
// runs them itself (CheckFeatureList, CheckMarkdownList, plegvet gates
// -check): they compare the tree's gates with a file no analysis pass
// reads.
const (
	StaleList       = stalelist.StaleList
	RemovedTooEarly = stalelist.RemovedTooEarly
	StaleMarkdown   = stalelist.StaleMarkdown
)

// FeatureList returns the committed feature list's group of checks,
// which has no analyzer; a new value on each call.
func FeatureList() Group {
	return Group{
		Name:       "featurelist",
		URL:        "https://pkg.go.dev/github.com/plegvet/plegvet#GatesReport.CheckFeatureList",
		Checks:     stalelist.Checks(),
		FromSource: isFeaturesPackage,
	}
}

// withSeverity gives the named checks of docs severity s.
func withSeverity(docs []check.Doc, s check.Severity, names ...check.Check) []check.Doc {
	for i, d := range docs {
		if slices.Contains(names, d.Check) {
			docs[i].Severity = s
		}
	}
	return docs
}

// isCRIAPIPackage is the CRI client API, whose Go method's signature says
// whether the evented PLEG takes a stream.
func isCRIAPIPackage(p string) bool {
	return p == tree.CRIAPIModule+"/pkg/apis" || p == tree.CRIAPIModule+"/pkg/apis/runtime/v1"
}

// Analyzers are the suite's analyzers, in the order they run and report.
func Analyzers() []Analyzer { return append([]Analyzer(nil), analyzers...) }

// Groups are every group of checks: the analyzers', then Stream, then
// FeatureList.
func Groups() []Group {
	var gs []Group
	for _, a := range analyzers {
		gs = append(gs, a.Group)
	}
	return append(gs, Stream(), FeatureList())
}

// Defaults are the analyzers' package variables, built with the default
// configuration.
func Defaults() []*analysis.Analyzer {
	var as []*analysis.Analyzer
	for _, a := range analyzers {
		as = append(as, a.Default)
	}
	return as
}

// New builds every analyzer with its part of cfg; each has its own copy,
// which its flags set.
func New(cfg Config) []*analysis.Analyzer {
	var as []*analysis.Analyzer
	for _, a := range analyzers {
		as = append(as, a.New(cfg))
	}
	return as
}

// Matters reports whether a package, by its import path and the paths of
// its direct imports, can matter to any analyzer: whether one of them
// reads it, or reads the importers of one of its imports. Every fact
// plegvet exports is on such a package, and read by its direct importers
// only, so a package for which Matters is false has no facts to pass on
// and nothing to report. A package that imports a features package but
// neither the feature-gate API nor the pleg package is such a package:
// its gate constants are looked up where a PLEG is built and where gates
// are declared, and nowhere else. (Of the 154 packages under v1.37.2's
// ./pkg/... that are or import one of the three, 147 are such.)
func Matters(importPath string, imports iter.Seq[string]) bool {
	if Reads(importPath) {
		return true
	}
	for imp := range imports {
		if slices.ContainsFunc(analyzers, func(a Analyzer) bool { return a.ReadsImporters(imp) }) {
			return true
		}
	}
	return false
}

// Reads reports whether any analyzer reads a package's own syntax (its
// gates, set in a literal or in a function body; its PLEG code). An import
// loaded from source for which Reads is false is read for its
// declarations only: its function bodies need no type-checking.
func Reads(importPath string) bool {
	return slices.ContainsFunc(analyzers, func(a Analyzer) bool { return a.Reads(importPath) })
}

// FromSource reports whether an import is worth type-checking from source
// for any analyzer, when the tree holds it (Group.FromSource).
func FromSource(importPath string) bool {
	return slices.ContainsFunc(analyzers, func(a Analyzer) bool { return a.FromSource(importPath) })
}

// Rule finds the group and documentation of a check by its name (a
// diagnostic's category).
func Rule(name string) (Group, check.Doc, bool) {
	for _, g := range Groups() {
		for _, c := range g.Checks {
			if string(c.Check) == name {
				return g, c, true
			}
		}
	}
	return Group{}, check.Doc{}, false
}

// Rules are every check of every group as a SARIF rule, in the order of
// Groups: what a SARIF log lists.
func Rules() []check.Rule {
	var rules []check.Rule
	for _, g := range Groups() {
		for _, c := range g.Checks {
			rules = append(rules, check.Rule{ID: g.Name + "/" + string(c.Check), URL: g.URL, Doc: c})
		}
	}
	return rules
}

// Setting is one setting of an analyzer: the flag -ANALYZER.FLAG (go vet,
// the standalone driver; nogo's analyzer_flags) and the key ANALYZER.KEY of
// the golangci-lint plugin's settings, both a field of the analyzer's
// Config.
type Setting struct {
	Analyzer string // "featuregate"
	Key      string // "alphaDefaultExempt": the field's JSON name
	Flag     string // "alpha-default-exempt"
	Doc      string // the flag's usage
	Default  string // the flag's default, as the flag reads it
}

// Settings are every analyzer's settings, in the order of their Config's
// fields. A field without a flag of the same name is a programming error,
// and panics.
func Settings() []Setting {
	var out []Setting
	for _, a := range analyzers {
		t := reflect.TypeOf(a.part(&Config{})).Elem()
		for i := range t.NumField() {
			key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			f := a.Default.Flags.Lookup(FlagName(key))
			if f == nil {
				panic(fmt.Sprintf("suite: %s.Config.%s (%s) has no flag -%s", a.Name, t.Field(i).Name, key, FlagName(key)))
			}
			out = append(out, Setting{Analyzer: a.Name, Key: key, Flag: f.Name, Doc: f.Usage, Default: f.DefValue})
		}
	}
	return out
}

// FlagName is a setting's flag: its key in kebab case
// (alphaDefaultExempt: alpha-default-exempt).
func FlagName(key string) string {
	var b strings.Builder
	for _, r := range key {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
