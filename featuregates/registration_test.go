package featuregates_test

import (
	"testing"

	"github.com/plegvet/plegvet/featuregates"
)

// A registration's spec in the table: Version "" is an unversioned one.
type spec struct {
	version, minCompat string
	pre                featuregates.PreRelease
	def, lock          bool
	unresolved         string
}

func gate(format featuregates.Format, specs ...spec) *featuregates.Gate {
	g := &featuregates.Gate{Name: "X", Format: format}
	for _, s := range specs {
		g.Specs = append(g.Specs, featuregates.Spec{Version: s.version, MinCompatibilityVersion: s.minCompat, PreRelease: s.pre, Default: s.def, LockToDefault: s.lock, Unresolved: s.unresolved})
	}
	return g
}

func minor(m uint) featuregates.Version { return featuregates.Version{Major: 1, Minor: m} }

// Conflicts compares two registrations as component-base of each release
// does; the errors are component-base's, word for word (each checked
// against component-base v0.25.0, v0.31.0, v0.33.0 and v0.37.2 by
// registering the same maps twice).
func TestConflicts(t *testing.T) {
	const u, v = featuregates.Unversioned, featuregates.Versioned
	beta := func(def bool) spec { return spec{pre: featuregates.Beta, def: def} }
	at := func(version string, s spec) spec { s.version = version; return s }
	for _, c := range []struct {
		name            string
		rules           featuregates.Version
		existing, added *featuregates.Gate
		want            string // the error; "" when taken for the same
		unknown         bool   // not compared
	}{
		{name: "before 1.31, one FeatureSpec, equal", rules: minor(25),
			existing: gate(u, beta(true)), added: gate(u, beta(true))},
		{name: "before 1.31, the default differs", rules: minor(25),
			existing: gate(u, beta(true)), added: gate(u, beta(false)),
			want: `feature gate "X" with different spec already exists: {true false BETA}`},
		{name: "before 1.31, GA locked: the empty prerelease prints as nothing", rules: minor(30),
			existing: gate(u, spec{pre: featuregates.GA, def: true, lock: true}), added: gate(u, spec{pre: featuregates.GA, def: true}),
			want: `feature gate "X" with different spec already exists: {true true }`},
		{name: "from 1.31 Add keeps a list at 0.0", rules: minor(31),
			existing: gate(u, spec{pre: featuregates.Deprecated}), added: gate(u, spec{pre: featuregates.PreAlpha}),
			want: `feature gate "X" with different spec already exists: [{false false DEPRECATED 0.0}]`},
		{name: "unversioned, then versioned at 1.16", rules: minor(33),
			existing: gate(u, beta(true)), added: gate(v, at("1.16", beta(true))),
			want: `feature gate "X" with different spec already exists: [{true false BETA 0.0}]`},
		{name: "versioned at 1.16, then unversioned", rules: minor(37),
			existing: gate(v, at("1.16", beta(true))), added: gate(u, beta(true)),
			want: `feature gate "X" with different spec already exists: [{true false BETA 1.16 <nil>}]`},
		{name: "unversioned, then versioned at 0.0: the same", rules: minor(37),
			existing: gate(u, beta(true)), added: gate(v, at("0.0", beta(true)))},
		{name: "a versioned map brings the rules of 1.31 to a tree that names no later version", rules: minor(0),
			existing: gate(v, at("1.17", spec{pre: featuregates.GA, def: true})), added: gate(u, spec{pre: featuregates.GA, def: true}),
			want: `feature gate "X" with different spec already exists: [{true false  1.17}]`},
		{name: "1.31 and 1.32 sort by version before comparing", rules: minor(32),
			existing: gate(v, at("1.20", beta(false)), at("1.24", beta(true))), added: gate(v, at("1.24", beta(true)), at("1.20", beta(false)))},
		{name: "from 1.33 the order counts", rules: minor(33),
			existing: gate(v, at("1.20", beta(false)), at("1.24", beta(true))), added: gate(v, at("1.24", beta(true)), at("1.20", beta(false))),
			want: `feature gate "X" with different spec already exists: [{false false BETA 1.20} {true false BETA 1.24}]`},
		{name: "1.37, the default at 1.16 differs", rules: minor(37),
			existing: gate(v, at("1.16", beta(true))), added: gate(v, at("1.16", beta(false))),
			want: `feature gate "X" with different spec already exists: [{true false BETA 1.16 <nil>}]`},
		{name: "from 1.35 MinCompatibilityVersion is carried forward, and printed", rules: minor(37),
			existing: gate(v, at("1.35", beta(false)), spec{version: "1.35", minCompat: "1.35", pre: featuregates.Beta, def: true}, spec{version: "1.37", pre: featuregates.GA, def: true, lock: true}),
			added:    gate(v, at("1.35", beta(false)), spec{version: "1.35", minCompat: "1.35", pre: featuregates.Beta, def: true}, spec{version: "1.37", pre: featuregates.GA, lock: true}),
			want:     `feature gate "X" with different spec already exists: [{false false BETA 1.35 <nil>} {true false BETA 1.35 1.35} {true true  1.37 1.35}]`},
		{name: "before 1.35 FeatureSpec has no MinCompatibilityVersion", rules: minor(34),
			existing: gate(v, spec{version: "1.30", minCompat: "1.29", pre: featuregates.Beta}), added: gate(v, at("1.30", beta(false)))},
		{name: "a spec that is not all constants is not compared", rules: minor(37),
			existing: gate(v, at("1.16", beta(true))), added: gate(v, spec{version: "1.16", pre: featuregates.Beta, unresolved: "Default is on, not a constant"}),
			unknown: true},
		{name: "a gate without specs is not compared", rules: minor(37),
			existing: gate(v, at("1.16", beta(true))), added: gate(v), unknown: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := featuregates.Conflicts(c.existing, c.added, c.rules)
			switch {
			case c.unknown:
				if ok || got != nil {
					t.Errorf("Conflicts = %v, %t; want not compared", got, ok)
				}
			case !ok:
				t.Errorf("not compared")
			case c.want == "" && got != nil:
				t.Errorf("conflict %q, want none", got.Error())
			case c.want != "" && got == nil:
				t.Errorf("no conflict, want %q", c.want)
			case c.want != "" && got.Error() != c.want:
				t.Errorf("Error() =\n%s\nwant\n%s", got.Error(), c.want)
			}
		})
	}
}
