// Package featuregate defines an Analyzer that checks a package's
// Kubernetes feature gates against the rules Kubernetes itself enforces.
//
// # Analyzer featuregate
//
// featuregate: check feature gates against the rules component-base enforces at start-up
//
// The featuregate analyzer checks the feature maps the gatefacts analyzer
// reads (map[featuregate.Feature]featuregate.FeatureSpec, ...VersionedSpecs,
// and dependency maps, from k8s.io/component-base/featuregate; literal
// entries and index assignments), with the gates of imported packages
// from gatefacts' facts.
//
// Its checks follow component-base's featuregate validation
// (AddVersioned and AddDependencies in feature_gate.go), which makes a
// kubelet refuse to start, so a violation found here is a failure found
// before a binary is built. component-base introduced its rules over
// releases, and a tree is held to the rules of its own release: the
// history rules (missing-version to stability-regression, and order by
// strictly increasing version) from v1.33, the same-version,
// minimum-compatibility, transition, lock and dependency rules from
// v1.35. The release is the newest version any spec of the package names
// (a tree declares specs up to its own release), or the -rules flag.
// Each diagnostic's category is the check's name:
//
//   - missing-version: a spec in a versioned map has no Version.
//   - patch-version: a Version or MinCompatibilityVersion names a patch
//     release; specs apply by minor version.
//   - deprecated-without-initial-state: a gate's history starts Deprecated
//     at a version other than 1.0; it must begin with the state it had.
//   - version-order: versions (or minimum compatibility versions) go down.
//   - duplicate-version: two specs at the same version and minimum
//     compatibility version.
//   - same-version-change: two specs at one version change the stage or
//     the lock; only the default may change there.
//   - min-compat-version: a MinCompatibilityVersion without a preceding
//     spec at the same version, or later than its spec's Version.
//   - transition-without-change: a spec repeats the stage, default and
//     lock of the one before it.
//   - unlock-after-lock: a gate locked to its default is unlocked later.
//   - deprecated-resurrected: a spec follows Deprecated with another stage.
//   - stability-regression: GA or Beta goes back to Beta or Alpha.
//   - conflicting-spec: one gate is declared in two maps of one package
//     with specs component-base does not take for the same (it refuses
//     the second; compared, and the maps chosen, as for
//     conflicting-registration).
//   - conflicting-registration: a gate that a directly imported package
//     registers is registered again here (pkg/features relists staging
//     modules' gates) with specs component-base does not take for the
//     same: the second FeatureGate.Add or AddVersioned fails, and
//     runtime.Must panics at init in every binary that imports both.
//     The specs are compared as component-base of the package's release
//     compares them: one FeatureSpec with == before v1.31; from v1.31 the
//     lists, an unversioned spec counting as one spec at version 0.0 (so
//     a gate versioned in one map and unversioned in the other conflicts
//     unless its one versioned spec is at 0.0), sorted by version before
//     v1.33, with MinCompatibilityVersion carried forward from v1.35. It
//     is reported at both entries, each with the other as its related
//     position, in the words of component-base's error ("feature gate
//     %q with different spec already exists: %v"), the import's
//     registration being the existing one: an imported package is
//     initialised first. Only the maps a package hands to component-base
//     as its gates are compared (a package-level variable's, a map a
//     function returns, one written in init); a map that another
//     function builds for a call is registered with the FeatureGate the
//     call names, often one of its own, as a test's.
//   - dependency-unknown: a dependency map names a gate that no map of the
//     package (or of the imported package declaring it) declares. Not
//     reported when a feature map of the package could not be read
//     (gate-unreadable): the gate may be in it.
//   - dependency-stability, dependency-default, dependency-lock: at the
//     version of one of its specs, a gate depends on a less stable gate, is
//     on by default while its dependency is off, or is locked while its
//     dependency is not.
//   - dependency-cycle: gates depend on each other in a cycle.
//
// plegvet adds checks of its own:
//
//   - alpha-default-on: an Alpha gate is on by default. Alpha features may
//     be buggy and may change without notice; Kubernetes keeps them off
//     (pkg/features' TestEnsureAlphaGatesAreNotSwitchedOnByDefault, from
//     v1.33, which exempts WindowsHostNetwork; so does the default of the
//     flag -alpha-default-exempt).
//   - gate-unreadable: a feature map entry or a whole feature map that
//     plegvet could not read, at its place: a key that is not a constant
//     (m[name] = spec, a loop over a list), a feature map variable built
//     by a call of another package or copied in with maps.Copy. The gates
//     it holds are not known, so checks that need every gate hold back. A
//     loop over a parameter (an adapter re-keying its caller's gates) and
//     a copy of a map read elsewhere are read, not reported.
//
// Flags (settings of the same names in golangci-lint, see Config):
//
//   - -rules=1.33 applies component-base's rules as of that release
//     instead of the one the specs name.
//   - -alpha-default-exempt=A,B exempts gates from alpha-default-on.
//
// Findings in _test.go files are not reported: tests build odd values on
// purpose, and the checks guard the code that ships.
//
// A gate whose name or specs cannot be resolved to constants (partially
// typed source, a spec list built by a function call or empty) is left
// unchecked, as are dependencies on it; the library and command report
// why.
package featuregate

import "github.com/plegvet/plegvet/internal/analysis/check"

// The checks, named as the bullets above name them (a test holds the two
// lists together).
const (
	MissingVersion                check.Check = "missing-version"
	PatchVersion                  check.Check = "patch-version"
	DeprecatedWithoutInitialState check.Check = "deprecated-without-initial-state"
	VersionOrder                  check.Check = "version-order"
	DuplicateVersion              check.Check = "duplicate-version"
	SameVersionChange             check.Check = "same-version-change"
	MinCompatVersion              check.Check = "min-compat-version"
	TransitionWithoutChange       check.Check = "transition-without-change"
	UnlockAfterLock               check.Check = "unlock-after-lock"
	DeprecatedResurrected         check.Check = "deprecated-resurrected"
	StabilityRegression           check.Check = "stability-regression"
	ConflictingSpec               check.Check = "conflicting-spec"
	ConflictingRegistration       check.Check = "conflicting-registration"
	DependencyUnknown             check.Check = "dependency-unknown"
	DependencyStability           check.Check = "dependency-stability"
	DependencyDefault             check.Check = "dependency-default"
	DependencyLock                check.Check = "dependency-lock"
	DependencyCycle               check.Check = "dependency-cycle"
	AlphaDefaultOn                check.Check = "alpha-default-on"
	GateUnreadable                check.Check = "gate-unreadable"
)
