package featuregates

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Kubernetes minors from which component-base registers gates otherwise.
var (
	// listedSince: Add turns a FeatureSpec into a one-spec list at
	// version 0.0 and AddVersioned compares lists (sorted by version
	// until 1.33); before, Add compared one FeatureSpec with ==.
	listedSince = Version{Major: 1, Minor: 31}
	// unsortedSince: AddVersioned compares lists as given.
	unsortedSince = Version{Major: 1, Minor: 33}
	// completedSince: FeatureSpec has MinCompatibilityVersion, and
	// AddVersioned compares the lists it completes (a spec without one
	// inherits its predecessor's).
	completedSince = Version{Major: 1, Minor: 35}
)

// Registered is a gate's specs as component-base keeps them once a map
// holding it is registered (FeatureGate.Add or AddVersioned) under the
// rules of one Kubernetes release: what it compares a later registration
// of the same gate with, and what its error prints.
type Registered struct {
	// List is set when component-base keeps a list of specs (from v1.31,
	// for both Add and AddVersioned); before, Add kept one FeatureSpec.
	List bool
	// MinCompatibilityField is set when FeatureSpec has a
	// MinCompatibilityVersion field (from v1.35).
	MinCompatibilityField bool
	// Specs are the specs as component-base keeps them: Default,
	// LockToDefault and PreRelease; Version "0.0" for a spec registered by
	// Add from v1.31, and "" (nil) for a versioned spec without one; and
	// MinCompatibilityVersion ("" for nil), inherited from the spec before.
	// Their other fields are zero.
	Specs []Spec
}

// String is the registration as component-base's error prints it (%v of
// a FeatureSpec, or of a VersionedSpecs): {true false BETA} before v1.31,
// [{true false BETA 1.16}] to v1.34, [{true false BETA 1.16 <nil>}] from
// v1.35.
func (r Registered) String() string {
	parts := make([]string, len(r.Specs))
	for i, s := range r.Specs {
		fields := []string{fmt.Sprint(s.Default), fmt.Sprint(s.LockToDefault), preReleaseValue[s.PreRelease]}
		if r.List {
			fields = append(fields, cmp.Or(s.Version, "<nil>"))
			if r.MinCompatibilityField {
				fields = append(fields, cmp.Or(s.MinCompatibilityVersion, "<nil>"))
			}
		}
		parts[i] = "{" + strings.Join(fields, " ") + "}"
	}
	if !r.List {
		return strings.Join(parts, " ")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Equal reports whether component-base takes two registrations for the
// same (== before v1.31, reflect.DeepEqual of the lists after).
func (r Registered) Equal(o Registered) bool {
	return r.List == o.List && r.MinCompatibilityField == o.MinCompatibilityField && slices.Equal(r.Specs, o.Specs)
}

// registrationRules are the rules two registrations are compared by: a
// versioned map exists only from v1.31, so a versioned registration
// brings those rules whatever the release's specs name.
func registrationRules(rules Version, gates ...*Gate) Version {
	for _, g := range gates {
		if g.Format == Versioned && rules.Less(listedSince) {
			return listedSince
		}
	}
	return rules
}

// Registered returns the gate's specs as component-base keeps them once
// registered under the rules of release rules (a Kubernetes minor), and
// false when they are not known: no spec could be read, or a field of one
// is not a constant.
func (g *Gate) Registered(rules Version) (Registered, bool) {
	rules = registrationRules(rules, g)
	r := Registered{List: !rules.Less(listedSince), MinCompatibilityField: !rules.Less(completedSince)}
	if len(g.Specs) == 0 || g.Format == Unversioned && len(g.Specs) != 1 {
		return r, false
	}
	for _, s := range g.Specs {
		if s.Unresolved != "" || s.PreRelease == "" {
			return r, false
		}
		rs := Spec{Default: s.Default, LockToDefault: s.LockToDefault, PreRelease: s.PreRelease}
		if r.List {
			rs.Version = s.Version
			if g.Format == Unversioned {
				rs.Version = "0.0" // Add: version.MajorMinor(0, 0)
			}
			if r.MinCompatibilityField {
				rs.MinCompatibilityVersion = s.MinCompatibilityVersion
			}
		}
		r.Specs = append(r.Specs, rs)
	}
	if r.List && rules.Less(unsortedSince) {
		// AddVersioned sorted both lists by version before comparing.
		sort.SliceStable(r.Specs, func(i, j int) bool {
			a, _ := ParseVersion(r.Specs[i].Version)
			b, _ := ParseVersion(r.Specs[j].Version)
			return a.Less(b)
		})
	}
	if r.MinCompatibilityField {
		for i := 1; i < len(r.Specs); i++ {
			r.Specs[i].MinCompatibilityVersion = cmp.Or(r.Specs[i].MinCompatibilityVersion, r.Specs[i-1].MinCompatibilityVersion)
		}
	}
	return r, true
}

// Conflict is a gate registered twice with specs component-base does not
// take for the same: the second FeatureGate.Add or AddVersioned returns
// an error (Error), which runtime.Must turns into a panic at init.
type Conflict struct {
	Name            string
	Existing, Added Registered
}

// Error is component-base's error for the second registration, word for
// word (feature_gate.go, v1.25 to v1.37).
func (c Conflict) Error() string {
	return fmt.Sprintf("feature gate %q with different spec already exists: %v", c.Name, c.Existing)
}

// Conflicts compares a registration of a gate (added) with an earlier
// one of the same gate (existing) under the rules of release rules, as
// component-base does: ok is false when either's specs are not known (no
// conflict is then claimed), and c is nil when component-base takes the
// second registration.
func Conflicts(existing, added *Gate, rules Version) (c *Conflict, ok bool) {
	rules = registrationRules(rules, existing, added)
	e, eok := existing.Registered(rules)
	a, aok := added.Registered(rules)
	if !eok || !aok {
		return nil, false
	}
	if e.Equal(a) {
		return nil, true
	}
	return &Conflict{Name: added.Name, Existing: e, Added: a}, true
}
