package plegvet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/kubeversion"
	"github.com/plegvet/plegvet/internal/render"
)

// HistoryOptions say which releases a gate history reads.
type HistoryOptions struct {
	// Kubernetes is the releases, as Releases expands them: one version,
	// a comma list (v1.26.0,v1.27.0) or a range (v1.25.0..v1.37.2, the
	// newest patch of each minor the module proxy serves).
	Kubernetes string
	// Workers bounds the releases fetched and analysed at once; 0 means
	// runtime.NumCPU().
	Workers int
	// Progress, when set, is called as each release finishes.
	Progress func(done, total int, version string)
	// CacheDir is Options.CacheDir for each release.
	CacheDir string
	// Fetch is Options.Fetch, for listing the releases and for each one.
	Fetch FetchOptions
}

// GateHistory reads the feature gates of each release (see Releases for
// the forms opts.Kubernetes takes), fetching and analysing the releases in
// parallel, and follows the named gates through them, oldest release
// first. A name matches a gate's name or its constant's identifier, as
// for Gates; no names means every gate any release declares, by name. A
// name no release read declares is an error naming it; a release that
// cannot be fetched or read is a row with its error, in every gate, while
// the others still answer. It is an error when no release could be read.
func GateHistory(ctx context.Context, opts HistoryOptions, names ...string) (*GateHistoryReport, error) {
	versions, err := Releases(ctx, opts.Kubernetes, opts.Fetch)
	if err != nil {
		return nil, err
	}
	reads := eachRelease(sortVersions(versions), opts.Workers, opts.Progress, func(v string) releaseGates {
		rep, err := Gates(ctx, Options{Kubernetes: v, CacheDir: opts.CacheDir, Fetch: opts.Fetch})
		return releaseGates{version: v, rep: rep, err: err}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return historyOf(reads, names)
}

// eachRelease answers for each version on up to workers goroutines and
// returns the answers in the versions' order; progress, when set, is
// called as each finishes. An answer carries its own failure: one
// release failing stops no other.
func eachRelease[T any](versions []string, workers int, progress func(done, total int, version string), answer func(version string) T) []T {
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

// sortVersions orders releases oldest first and drops repeats (v1.36 and
// v1.36.5 in one list, say): a history runs forwards.
func sortVersions(versions []string) []string {
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

// releaseGates is one release's gates, or why they could not be read.
type releaseGates struct {
	version string
	rep     *GatesReport
	err     error
}

// find returns the release's gate a name names: its name, else its
// constant's identifier.
func (r releaseGates) find(name string) *Gate {
	if r.rep == nil {
		return nil
	}
	return r.rep.Find(name)
}

// historyOf follows the named gates through the releases read, which are
// in order, oldest first.
func historyOf(reads []releaseGates, names []string) (*GateHistoryReport, error) {
	rep := &GateHistoryReport{SchemaVersion: SchemaVersion, Gates: []GateTimeline{}, Releases: []ReleaseRead{}}
	var ok []string
	for _, r := range reads {
		rr := ReleaseRead{KubernetesVersion: r.version, Error: r.failure()}
		if rr.Error == "" {
			rr.Source, rr.Unfetched = r.rep.Source, r.rep.Unfetched
			ok = append(ok, r.version)
		}
		if rr.Source.Dir == "" {
			rr.Source = releaseSource(r.version)
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
			if r.rep != nil {
				for _, g := range r.rep.Gates {
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
				if r.rep != nil {
					declared = append(declared, declaredNames(r.rep.Gates)...)
				}
			}
			return nil, &UnknownGateError{Name: n, Releases: ok, DidYouMean: render.Closest(n, declared)}
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
func (r releaseGates) failure() string {
	switch {
	case r.err != nil:
		return strings.Join(strings.Fields(r.err.Error()), " ")
	case r.rep == nil:
		return "no answer"
	}
	return ""
}

// gateHistory follows one gate, named by the user as asked, through the
// releases read.
func gateHistory(name, asked string, reads []releaseGates) GateTimeline {
	h := GateTimeline{Name: name, Releases: []GateAtRelease{}, Changes: []GateChange{}}
	var prev *GateAtRelease // the last release read
	var skipped []string    // releases since prev that could not be read
	for _, r := range reads {
		row := GateAtRelease{KubernetesVersion: r.version, Error: r.failure()}
		if row.Error != "" {
			h.Releases = append(h.Releases, row)
			skipped = append(skipped, r.version)
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
			if s, ok := g.At(r.version); ok {
				row.Effective = &GateState{
					PreRelease: s.PreRelease, Default: s.Default, LockToDefault: s.LockToDefault,
					Version: s.Version, MinCompatibilityVersion: s.MinCompatibilityVersion, Unresolved: s.Unresolved,
				}
				pos := s.Pos
				row.Pos = &pos
			}
		}
		if !row.Exists && len(r.rep.Unfetched) > 0 {
			row.Unfetched = r.rep.Unfetched
		}
		h.Releases = append(h.Releases, row)
		if prev != nil {
			for _, what := range changes(prev, &row) {
				if len(skipped) > 0 {
					what += fmt.Sprintf(" (since %s; %s not read)", prev.KubernetesVersion, strings.Join(skipped, ", "))
				}
				// An absence where staging modules were not fetched is not
				// known: a change to or from it says so.
				for _, unsure := range []*GateAtRelease{prev, &row} {
					if len(unsure.Unfetched) > 0 {
						mods := "staging modules"
						if len(unsure.Unfetched) == 1 {
							mods = "staging module"
						}
						what += fmt.Sprintf(" (%s: %d %s not fetched)", unsure.KubernetesVersion, len(unsure.Unfetched), mods)
					}
				}
				h.Changes = append(h.Changes, GateChange{KubernetesVersion: r.version, What: what})
			}
		}
		prev = &h.Releases[len(h.Releases)-1]
		skipped = nil
	}
	return h
}

// changes says how a gate changed from one release read to the next: in
// existence, stage, default and lock, in that order. A side whose spec is
// unknown is compared in existence only.
func changes(a, b *GateAtRelease) []string {
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
var stageRank = map[string]int{
	string(featuregates.PreAlpha): 1,
	string(featuregates.Alpha):    2,
	string(featuregates.Beta):     3,
	string(featuregates.GA):       4,
}

func stageChange(from, to string) string {
	f, t := stageRank[from], stageRank[to]
	switch {
	case to == string(featuregates.Deprecated):
		return fmt.Sprintf("deprecated (was %s)", stageWords(from))
	case f > 0 && t > f:
		return fmt.Sprintf("promoted %s -> %s", from, to)
	case f > 0 && t > 0:
		return fmt.Sprintf("demoted %s -> %s", from, to)
	}
	return fmt.Sprintf("stage %s -> %s", stageWords(from), stageWords(to))
}

// stageWords is a stage for a phrase: "" is a stage that could not be read.
func stageWords(s string) string {
	if s == "" {
		return "unknown stage"
	}
	return s
}
