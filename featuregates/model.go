package featuregates

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

// PreRelease is a gate's stage, named as Kubernetes' feature lists name it.
type PreRelease string

const (
	PreAlpha   PreRelease = "PreAlpha"
	Alpha      PreRelease = "Alpha"
	Beta       PreRelease = "Beta"
	GA         PreRelease = "GA"
	Deprecated PreRelease = "Deprecated"
)

// preReleaseValue is each stage's constant value in the API, as %v
// prints it.
var preReleaseValue = map[PreRelease]string{
	PreAlpha: "PRE-ALPHA", Alpha: "ALPHA", Beta: "BETA", GA: "", Deprecated: "DEPRECATED",
}

// Stability orders stages as component-base does for dependencies: a gate
// may not depend on a gate of lower stability, Deprecated is the lowest and
// PreAlpha counts as Alpha.
func (p PreRelease) Stability() int {
	switch p {
	case Deprecated:
		return 0
	case PreAlpha, Alpha:
		return 1
	case Beta:
		return 2
	case GA:
		return 3
	}
	return -1
}

// Format says which kind of map a gate was declared in.
type Format string

const (
	Unversioned Format = "unversioned" // map[Feature]FeatureSpec
	Versioned   Format = "versioned"   // map[Feature]VersionedSpecs
)

// Spec is one FeatureSpec of a gate: as extracted, as a fact carries it
// to importers (gatefacts), and as the answers print it (its JSON form,
// whose keys are in this order).
type Spec struct {
	// Version is the release the spec applies from ("1.26"); "" in the
	// unversioned format.
	Version                 string     `json:"version"`
	Default                 bool       `json:"default"`
	PreRelease              PreRelease `json:"preRelease"`
	LockToDefault           bool       `json:"lockToDefault"`
	MinCompatibilityVersion string     `json:"minCompatibilityVersion,omitempty"`
	// Pos is the spec's composite literal as an answer names it: set by
	// the library, which knows the tree's file names (zero as extracted,
	// and in facts).
	Pos srcpos.Pos `json:"pos"`
	// Unresolved says why a field could not be resolved to a constant
	// (such a field keeps its zero value).
	Unresolved string `json:"unresolved,omitempty"`

	// Start and End are the spec's composite literal in the package's
	// FileSet; VersionLit is the string literal inside
	// version.MustParse("1.26"), and DefaultValue the Default field's
	// value: what a fix rewrites. None crosses packages (a fact has none)
	// or goes into JSON.
	Start, End   token.Pos     `json:"-"`
	VersionLit   *ast.BasicLit `json:"-"`
	DefaultValue ast.Expr      `json:"-"`
}

// WithoutSyntax is the spec without its places in the package's syntax
// (Start, End, VersionLit, DefaultValue): what crosses packages in a fact,
// and what an answer keeps without holding the package's syntax alive.
func (s Spec) WithoutSyntax() Spec {
	s.Start, s.End, s.VersionLit, s.DefaultValue = token.NoPos, token.NoPos, nil, nil
	return s
}

// Gate is a feature gate and its spec history: as extracted (with its
// syntax, in the json:"-" fields) and as the answers print it (its JSON
// form, whose keys are in this order). The library sets the JSON form's
// positions, dependencies, module, file, listing and registrations.
type Gate struct {
	Name string `json:"name"` // the gate's value, as a user sets it
	// Const is the identifier of the key's constant when it differs from
	// the name (Kubernetes' own lists before v1.37 use it).
	Const string `json:"const,omitempty"`
	// Decl is the gate constant's declaration; null when the key is a
	// constant of a package that was not loaded.
	Decl *srcpos.Pos `json:"decl"`
	// Entry is the gate's key in its feature map.
	Entry srcpos.Pos `json:"entry"`
	// Map is the variable or function holding the feature map.
	Map string `json:"map"`
	// Format is "versioned" or "unversioned".
	Format Format `json:"format"`
	// Specs may be empty: a gate whose spec list is empty or could not be
	// read (Unresolved says why) has none. Use Newest or At rather than
	// indexing.
	Specs []Spec `json:"specs"`
	// Dependencies are the names of the gates it depends on (DependsOn's).
	Dependencies []string `json:"dependencies"`
	// Unresolved says why the gate's name or specs are not fully known.
	Unresolved string `json:"unresolved,omitempty"`
	// Assigned is set for an entry set by an index assignment (m[K] = V,
	// in init or any function) rather than written in a map literal;
	// EntryPos and Value are then the assignment's key and value.
	Assigned bool `json:"assigned,omitempty"`
	// SetInCode are the writes of the gate its declaring package makes in
	// code (Set or SetFromMap in an init, say): a binary importing the
	// package starts with them in place of the default. Set by the
	// library's Gates; absent when there are none.
	SetInCode []GateWrite `json:"setInCode,omitempty"`
	// Module is the module whose feature map holds the gate
	// (k8s.io/kubernetes, k8s.io/component-base, ...), Package the
	// package, and File the map's file, named as in a checkout
	// (staging/src/k8s.io/component-base/...) in every mode. Set by
	// the library's Gates.
	Module  string `json:"module,omitempty"`
	Package string `json:"package,omitempty"`
	File    string `json:"file,omitempty"`
	// Listed says that Kubernetes' own feature list
	// (versioned_feature_list.yaml) holds the gate (InList).
	Listed bool `json:"listed,omitempty"`
	// Registrations are every feature map entry that registers the gate,
	// sorted by file and position: the one the fields above describe,
	// and those of the maps that register it again (pkg/features relists
	// staging modules' gates "to get a conflict if it is changed").
	// component-base refuses a registration whose specs differ from an
	// earlier one's (the conflicting-registration and conflicting-spec
	// diagnostics). The library's Gates sets every registration of the
	// tree; Inspect's featureGate and Node's gate have those of
	// pkg/features.
	Registrations []Registration `json:"registrations,omitempty"`
	// Effective is the spec in force at the tree's version: set on
	// Inspect's featureGate when the version is known, nil elsewhere.
	Effective *Spec `json:"effective,omitempty"`

	// The gate in the package's syntax, which no answer holds:
	KeyConst *types.Const `json:"-"` // the key's constant; nil for a conversion of a literal
	DeclPos  token.Pos    `json:"-"` // the constant's declaration; NoPos when unknown
	EntryPos token.Pos    `json:"-"` // the key in the feature map
	Value    ast.Expr     `json:"-"` // the value the key maps to
	// API is the import path of the package declaring the map's types:
	// APIPath, or ClientGoPath for client-go's own gates.
	API string `json:"-"`
	// DependsOn are the gates this gate depends on, from dependency maps.
	DependsOn []Dependency `json:"-"`
	// MapVar is the feature map variable holding the entry (a literal's
	// variable, or the map assigned into); nil for a literal no variable
	// holds, such as one returned.
	MapVar *types.Var `json:"-"`
	// Site is where the entry's map literal is written (SiteVar,
	// SiteReturn or SiteOther); SiteOther for an index assignment.
	Site Site `json:"-"`
}

// Registration is one feature map entry that registers a gate: each
// map is given to component-base (FeatureGate.Add or AddVersioned), and
// with it each of its gates.
type Registration struct {
	Module  string `json:"module"`
	Package string `json:"package"`
	File    string `json:"file"`
	Map     string `json:"map"`
	Format  Format `json:"format"`
	// Entry is the gate's key in the map.
	Entry srcpos.Pos `json:"entry"`
	Specs []Spec     `json:"specs"`
	// Unresolved and Assigned are as the gate's.
	Unresolved string `json:"unresolved,omitempty"`
	Assigned   bool   `json:"assigned,omitempty"`
	// Local is set for a map that a function body builds for a call:
	// it is registered with whatever FeatureGate the call names (often
	// one of its own, as a test's), and no conflict with it is reported.
	Local bool `json:"local,omitempty"`
}

// InForce is the gate's spec in force: at the tree's version when known
// (Effective), else its newest; none for no gate.
func (g *Gate) InForce() (Spec, bool) {
	if g == nil {
		return Spec{}, false
	}
	if g.Effective != nil {
		return *g.Effective, true
	}
	return g.Newest()
}

// Listed reports whether Kubernetes' feature-list tool lists the gate:
// it reads the literals of component-base's versioned maps written as a
// package variable's value or a function's result (not client-go's,
// which do not import component-base).
func (g *Gate) InList() bool {
	return g.Site != SiteOther && g.Format == Versioned && pathIs(g.API, APIPath)
}

// Site says where a feature map literal is written. Kubernetes' own
// feature-list generator (test/compatibility_lifecycle) takes the literals
// that initialise a package-level variable and those a function returns
// in a statement of its body, and no other: a literal passed to a call,
// say, is a feature map the list does not hold.
type Site string

const (
	SiteVar    Site = "var"    // the value of a package-level var declaration
	SiteReturn Site = "return" // a result of a return statement of a function's body
	SiteOther  Site = ""       // anywhere else, or an index assignment
)

// Dependency is one entry of a dependency list.
type Dependency struct {
	Name string
	Pos  token.Pos
	// Pkg is the import path of the package declaring the constant that
	// names the gate, when known.
	Pkg string
}

// At returns the spec in force at a Kubernetes version ("1.36" or
// "v1.36.1"): the last spec whose version is not later than it. An
// unversioned spec is in force at every version. A spec with a
// MinCompatibilityVersion applies only once the default minimum
// compatibility version (one minor before) has reached it.
func (g *Gate) At(version string) (Spec, bool) {
	want, ok := ParseVersion(version)
	if !ok {
		return Spec{}, false
	}
	want = want.MajorMinor()
	minCompat := want
	if minCompat.Minor > 0 {
		minCompat.Minor--
	}
	var found Spec
	ok = false
	for _, s := range g.Specs {
		if s.Version == "" {
			found, ok = s, true
			continue
		}
		v, vok := ParseVersion(s.Version)
		if !vok || want.Less(v.MajorMinor()) {
			continue
		}
		if mc, mok := ParseVersion(s.MinCompatibilityVersion); mok && minCompat.Less(mc.MajorMinor()) {
			continue
		}
		found, ok = s, true
	}
	return found, ok
}

// Newest returns the gate's last spec.
func (g *Gate) Newest() (Spec, bool) {
	if len(g.Specs) == 0 {
		return Spec{}, false
	}
	return g.Specs[len(g.Specs)-1], true
}

// Map is a feature map found in the package: a literal, or a feature map
// variable that index assignments fill or that is built otherwise.
type Map struct {
	Name    string // the variable or function holding it
	Kind    string // "unversioned", "versioned" or "dependencies"
	API     string // the import path declaring the map's types (Gate.API)
	Pos     token.Pos
	Entries int // literal entries and index assignments read
	// Site is where the literal is written; SiteOther for a map known
	// only from assignments or a call.
	Site Site
	// Unresolved says why some of the map's entries are not known (it is
	// built by a call, or filled through a key that is not a constant);
	// Problems has each place. A gate may then exist that Gates lacks.
	Unresolved string
}

// Problem is something in a feature map that could not be read: an entry
// whose key is not a constant, or a map built in a way plegvet does not
// follow. Msg names the map and says why.
type Problem struct {
	Pos, End token.Pos
	Msg      string
	// Local is set for a map held by a variable local to a function body
	// that is built by a call: it may read gates registered elsewhere (a
	// gate registry's GetAll), and it is never an entry of Kubernetes'
	// own feature list, which holds package-level and returned literals.
	Local bool
}

// Result is everything Extract found in one package.
type Result struct {
	// Gates are the gates by name, sorted; a gate declared in two maps
	// appears once, with its first entry (see Entries for all of them).
	Gates []*Gate
	// Entries are all map entries in source order, one Gate each.
	Entries []*Gate
	Maps    []Map
	// DependencyEntries are the keys of dependency maps, in source order.
	DependencyEntries []DependencyEntry
	// Problems are the entries and maps that could not be read, with
	// positions; each also marks its Map Unresolved.
	Problems []Problem
}

// Complete reports whether every feature map of gates (dependency maps
// aside) was read in full: when not, a gate missing from Gates may still
// exist.
func (r *Result) Complete() bool {
	for _, m := range r.Maps {
		if m.Unresolved != "" && m.Kind != "dependencies" {
			return false
		}
	}
	return true
}

// DependencyEntry is one key of a dependency map.
type DependencyEntry struct {
	Name  string
	Entry token.Pos
	Pkg   string // as in Dependency
	Deps  []Dependency
}

// Gate returns the gate with the given name, or nil.
func (r *Result) Gate(name string) *Gate {
	i := sort.Search(len(r.Gates), func(i int) bool { return r.Gates[i].Name >= name })
	if i < len(r.Gates) && r.Gates[i].Name == name {
		return r.Gates[i]
	}
	return nil
}

// Overwrites reports whether entry g replaces entry f of the same gate at
// run time: both are in one map variable, g is an assignment, and f is a
// literal entry (init runs after variables are initialised) or an
// assignment written before it.
func (g *Gate) Overwrites(f *Gate) bool {
	return g.Assigned && g.MapVar != nil && g.MapVar == f.MapVar && (!f.Assigned || f.EntryPos < g.EntryPos)
}

// PackageLevel reports whether the entry's map is one the package hands
// to component-base as its gates: a package-level variable's (its
// literal, or an index assignment into it), a map a function returns, or
// one written in an init function. A map that another function's body
// builds for a call is registered with whatever FeatureGate the call
// names, often one of its own (a test's, or a policy test context's in
// k8s.io/apiserver v1.30).
func (g *Gate) PackageLevel() bool {
	if g.Site != SiteOther || g.Map == "init" { // no variable can be named init
		return true
	}
	return g.MapVar != nil && g.MapVar.Kind() == types.PackageVar
}

func (g *Gate) addUnresolved(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if g.Unresolved == "" {
		g.Unresolved = msg
	} else if !strings.Contains(g.Unresolved, msg) {
		g.Unresolved += "; " + msg
	}
}
