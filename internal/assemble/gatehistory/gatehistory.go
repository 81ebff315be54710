// Package gatehistory follows feature gates through the releases read,
// oldest first: the rows of plegvet gates -history and what changed
// between them. The releases are read by its caller (plegvet.Gates).
package gatehistory

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/extract/kubeversion"
	"github.com/plegvet/plegvet/internal/render"
)

// UnknownName is a name no release read declares (plegvet's
// UnknownGateError says it).
type UnknownName struct {
	Name       string
	Releases   []string // those read
	DidYouMean []string
}

func (e *UnknownName) Error() string { return "no release read declares a feature gate " + e.Name }

// Each answers for each version on up to workers goroutines and
// returns the answers in the versions' order; progress, when set, is
// called as each finishes. An answer carries its own failure: one
// release failing stops no other.
func Each[T any](versions []string, workers int, progress func(done, total int, version string), answer func(version string) T) []T {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]T, len(versions))
	var g errgroup.Group
	g.SetLimit(workers)
	var mu sync.Mutex
	done := 0
	for i, v := range versions {
		g.Go(func() error {
			out[i] = answer(v)
			mu.Lock()
			defer mu.Unlock()
			done++
			if progress != nil {
				progress(done, len(versions), v)
			}
			return nil
		})
	}
	_ = g.Wait() // no answer returns an error
	return out
}

// SortVersions orders releases oldest first and drops repeats (v1.36 and
// v1.36.5 in one list, say): a history runs forwards.
func SortVersions(versions []string) []string {
	out := slices.Clone(versions)
	slices.SortFunc(out, compareVersions)
	return slices.Compact(out)
}

// compareVersions orders Kubernetes versions; what is not a version sorts
// last, by its text.
func compareVersions(a, b string) int {
	va, aok := kubeversion.Parse(a)
	vb, bok := kubeversion.Parse(b)
	switch {
	case aok && bok:
		return cmp.Or(semver.Compare(va.Semver(), vb.Semver()), strings.Compare(a, b))
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

// Read is one release's gates (Gates), or why they could not be read
// (Err).
type Read struct {
	Version string
	Gates   *answer.GatesReport
	Err     error
}

// find returns the release's gate a name names: its name, else its
// constant's identifier.
func (r Read) find(name string) *answer.Gate {
	if r.Gates == nil {
		return nil
	}
	return r.Gates.Find(name)
}

// Of follows the named gates through the releases read, which are
// in order, oldest first.
func Of(reads []Read, names []string, source func(version string) answer.Source) (*answer.GateHistoryReport, error) {
	rep := &answer.GateHistoryReport{SchemaVersion: answer.SchemaVersion, Gates: []answer.GateTimeline{}, Releases: []answer.ReleaseRead{}}
	var ok []string
	for _, r := range reads {
		rr := answer.ReleaseRead{KubernetesVersion: r.Version, Error: r.failure()}
		if rr.Error == "" {
			rr.Source, rr.Unfetched = r.Gates.Source, r.Gates.Unfetched
			ok = append(ok, r.Version)
		}
		if rr.Source.Dir == "" {
			rr.Source = source(r.Version)
		}
		rep.Releases = append(rep.Releases, rr)
	}
	if len(reads) == 0 {
		return nil, errors.New("no release to read: want one or more Kubernetes releases")
	}
	if len(ok) == 0 {
		r := rep.Releases[0]
		if len(reads) == 1 {
			return nil, fmt.Errorf("%s: %s", r.KubernetesVersion, r.Error)
		}
		return nil, fmt.Errorf("none of the %d releases could be read; %s: %s", len(reads), r.KubernetesVersion, r.Error)
	}

	if len(names) == 0 {
		for _, r := range reads {
			if r.Gates != nil {
				for _, g := range r.Gates.Gates {
					names = append(names, g.Name)
				}
			}
		}
		slices.Sort(names)
		names = slices.Compact(names)
	}

	done := map[string]bool{}
	for _, n := range names {
		var name string // as the newest release declaring it names it
		for _, r := range reads {
			if g := r.find(n); g != nil {
				name = g.Name
			}
		}
		if name == "" {
			var declared []string
			for _, r := range reads {
				if r.Gates != nil {
					declared = append(declared, r.Gates.Names()...)
				}
			}
			return nil, &UnknownName{Name: n, Releases: ok, DidYouMean: render.Closest(n, declared)}
		}
		if done[name] {
			continue // named twice, or by its name and its constant
		}
		done[name] = true
		rep.Gates = append(rep.Gates, gateHistory(name, n, reads))
	}
	return rep, nil
}

// failure is why the release could not be read, on one line; "" when it
// was.
func (r Read) failure() string {
	switch {
	case r.Err != nil:
		return strings.Join(strings.Fields(r.Err.Error()), " ")
	case r.Gates == nil:
		return "no answer"
	}
	return ""
}

// gateHistory follows one gate, named by the user as asked, through the
// releases read.
func gateHistory(name, asked string, reads []Read) answer.GateTimeline {
	h := answer.GateTimeline{Name: name, Releases: []answer.GateAtRelease{}, Changes: []answer.GateChange{}}
	// The gate's own modules: those whose files declare it in the
	// releases read. Where it is absent, the staging modules a release
	// did not fetch leave its absence unknown only if one of those is
	// among them (or none is known).
	for _, r := range reads {
		g := r.find(name)
		if g == nil && r.Gates != nil {
			g = r.find(asked)
		}
		if g == nil {
			continue
		}
		if g.Module != "" {
			h.Modules = append(h.Modules, g.Module)
		}
		for _, reg := range g.Registrations {
			if reg.Module != "" && !reg.Local {
				h.Modules = append(h.Modules, reg.Module)
			}
		}
	}
	slices.Sort(h.Modules)
	h.Modules = slices.Compact(h.Modules)
	var prev *answer.GateAtRelease // the last release read
	var skipped []string           // releases since prev that could not be read
	for _, r := range reads {
		row := answer.GateAtRelease{KubernetesVersion: r.Version, Error: r.failure()}
		if row.Error != "" {
			h.Releases = append(h.Releases, row)
			skipped = append(skipped, r.Version)
			continue
		}
		g := r.find(name)
		if g == nil {
			g = r.find(asked)
		}
		if g != nil {
			row.Exists = true
			if s, ok := g.Newest(); ok {
				row.Newest = s.Version
			}
			if s, ok := g.At(r.Version); ok {
				row.Effective = &s
			}
		}
		if !row.Exists && len(r.Gates.Unfetched) > 0 && !ownModulesRead(h.Modules, r.Gates.Unfetched) {
			row.Unfetched = r.Gates.Unfetched
		}
		h.Releases = append(h.Releases, row)
		if prev != nil {
			for _, what := range changes(prev, &row) {
				if len(skipped) > 0 {
					what += fmt.Sprintf(" (since %s; %s not read)", prev.KubernetesVersion, strings.Join(skipped, ", "))
				}
				// An absence where staging modules were not fetched is not
				// known: a change to or from it says so.
				for _, unsure := range []*answer.GateAtRelease{prev, &row} {
					if len(unsure.Unfetched) > 0 {
						mods := "staging modules"
						if len(unsure.Unfetched) == 1 {
							mods = "staging module"
						}
						what += fmt.Sprintf(" (%s: %d %s not fetched)", unsure.KubernetesVersion, len(unsure.Unfetched), mods)
					}
				}
				h.Changes = append(h.Changes, answer.GateChange{KubernetesVersion: r.Version, What: what})
			}
		}
		prev = &h.Releases[len(h.Releases)-1]
		skipped = nil
	}
	return h
}

// ownModulesRead reports whether none of a gate's own modules is among
// the staging modules a release did not fetch (each named as
// "staging/src/MODULE: why"); false when its modules are not known.
func ownModulesRead(own, unfetched []string) bool {
	if len(own) == 0 {
		return false
	}
	for _, u := range unfetched {
		if mod, _ := answer.UnfetchedModule(u); slices.Contains(own, mod) {
			return false
		}
	}
	return true
}

// changes says how a gate changed from one release read to the next: in
// existence, stage, default and lock, in that order. A side whose spec is
// unknown is compared in existence only.
func changes(a, b *answer.GateAtRelease) []string {
	switch {
	case !a.Exists && !b.Exists:
		return nil
	case !a.Exists:
		if s := b.Effective; s != nil {
			what := fmt.Sprintf("added (%s, default %t", stageWords(s.PreRelease), s.Default)
			if s.LockToDefault {
				what += ", locked"
			}
			return []string{what + ")"}
		}
		return []string{"added"}
	case !b.Exists:
		return []string{"removed"}
	case a.Effective == nil || b.Effective == nil:
		return nil
	}
	x, y := a.Effective, b.Effective
	var out []string
	if x.PreRelease != y.PreRelease {
		out = append(out, stageChange(x.PreRelease, y.PreRelease))
	}
	if x.Default != y.Default {
		out = append(out, fmt.Sprintf("default flipped %t -> %t", x.Default, y.Default))
	}
	switch {
	case !x.LockToDefault && y.LockToDefault:
		out = append(out, "locked to default")
	case x.LockToDefault && !y.LockToDefault:
		out = append(out, "unlocked")
	}
	return out
}

// stageRank orders the stages a gate is promoted through; 0 for the
// others (Deprecated, or a stage that could not be read).
var stageRank = map[featuregates.PreRelease]int{
	featuregates.PreAlpha: 1,
	featuregates.Alpha:    2,
	featuregates.Beta:     3,
	featuregates.GA:       4,
}

func stageChange(from, to featuregates.PreRelease) string {
	f, t := stageRank[from], stageRank[to]
	switch {
	case to == featuregates.Deprecated:
		return fmt.Sprintf("deprecated (was %s)", stageWords(from))
	case f > 0 && t > f:
		return fmt.Sprintf("promoted %s -> %s", from, to)
	case f > 0 && t > 0:
		return fmt.Sprintf("demoted %s -> %s", from, to)
	}
	return fmt.Sprintf("stage %s -> %s", stageWords(from), stageWords(to))
}

// stageWords is a stage for a phrase: "" is a stage that could not be read.
func stageWords(s featuregates.PreRelease) string {
	if s == "" {
		return "unknown stage"
	}
	return string(s)
}
