// Sets of container event types, finite or co-finite, and their algebra.

package plegperiods

import (
	"cmp"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
)

// eventSet is a set of container event types: the names in, or, with
// except, every type but those.
type eventSet struct {
	in     []string
	except bool
	typ    *types.Named // the enum, when typed: to list a complement
}

var allEvents = eventSet{except: true}

func (s eventSet) has(n string) bool { return slices.Contains(s.in, n) }

func union(a, b eventSet) eventSet {
	typ := cmp.Or(a.typ, b.typ)
	if a.except && !b.except {
		a, b = b, a
	}
	switch {
	case !a.except && !b.except:
		return eventSet{in: append(slices.Clone(a.in), filter(b.in, a, false)...), typ: typ}
	case a.except:
		return eventSet{in: filter(a.in, b, true), except: true, typ: typ}
	}
	// a lists, b excepts.
	return eventSet{in: filter(b.in, a, false), except: true, typ: typ}
}

// intersect is union's dual: the complement of the union of complements.
func intersect(a, b eventSet) eventSet {
	return union(a.complement(), b.complement()).complement()
}

// filter is the names of ns that are in s (or, with !in, not in s).
func filter(ns []string, s eventSet, in bool) []string {
	var out []string
	for _, n := range ns {
		if s.has(n) == in {
			out = append(out, n)
		}
	}
	return out
}

func (s eventSet) complement() eventSet {
	return eventSet{in: s.in, except: !s.except, typ: s.typ}
}

// names lists the set: [AllEventTypes] for every type, the enum's other
// constants for a complement when the enum is typed, else "all except X".
func (s eventSet) names() []string {
	if !s.except {
		return s.in
	}
	if len(s.in) == 0 {
		return []string{AllEventTypes}
	}
	if s.typ != nil {
		var out []string
		for _, c := range enumConsts(s.typ) {
			if n := constName(c, s.typ.Obj().Name()); !s.has(n) {
				out = append(out, n)
			}
		}
		return out
	}
	return []string{AllEventTypes + " except " + strings.Join(s.in, ", ")}
}

// enumConsts are the constants of an enum type in its package, by value.
func enumConsts(typ *types.Named) []*types.Const {
	pkg := typ.Obj().Pkg() // never nil: ContainerEventType is no universe type
	var out []*types.Const
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok && types.Identical(c.Type(), typ) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return constant.Compare(out[i].Val(), token.LSS, out[j].Val()) })
	return out
}

func constName(c *types.Const, typeName string) string {
	return strings.TrimPrefix(c.Name(), typeName+"_")
}
