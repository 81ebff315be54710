package plegvet

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"io"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/answercache"
	"github.com/plegvet/plegvet/internal/gatehistory"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/srcpos"
)

// joins them. A part the tree lacks is reported in Missing, not as an
// error.
func Inspect(ctx context.Context, opts Options) (*Report, error) {
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	return cached(opts, t, []string{"Inspect"}, func() (*Report, error) { return inspect(ctx, t, src, opts.Proto) })
}

// inspect joins the analyses of one tree into its report. Each part of
// the report is filled by one step below, in order: the relist first (the
// gate it tests names the feature gate), the gate, then the CRI stream.
func inspect(ctx context.Context, t *tree.Tree, src Source, proto string) (*Report, error) {
	rel := inspectedPackages(t)
	also := func(p string) bool {
		return suite.FromSource(p) || isCRIAPIPackage(p) || plegperiods.IsNodeStatusPackage(p)
	}
	a, err := analyse(ctx, t, src, also, rel...)
	if err != nil {
		return nil, err
	}
	rep := &Report{SchemaVersion: SchemaVersion, Source: a.src, Missing: []Missing{}, Diagnostics: []Diagnostic{}}
	gates, err := analysedGates(a)
	if err != nil {
		return nil, err
	}
	rep.Diagnostics = append(rep.Diagnostics, gates.Diagnostics...)
	addRelist(rep, a, len(rel) == 3)
	addFeatureGate(rep, gates, src.KubernetesVersion)
	if err := addStream(rep, t, a, proto, len(rel) >= 2); err != nil {
		return nil, err
	}
	answer.SortDiagnostics(rep.Diagnostics)
	noteUnfollowed(&rep.Source, rep.Diagnostics)
	rep.DefaultPLEG = defaultPLEG(rep)
	rep.Summary = render.Summary(rep)
	if rep.Health != nil {
		rep.Health.Consequence = render.HealthConsequence(rep)
	}
	return rep, nil
}

// inspectedPackages is the features package, then the pleg and kubelet
// packages the tree holds.
func inspectedPackages(t *tree.Tree) []string {
	rel := []string{FeaturesPackage}
	for _, p := range []string{PlegPackage, KubeletPackage} {
		if t.PackageDir(t.Module+"/"+p) != "" {
			rel = append(rel, p)
		}
	}
	return rel
}

// missing notes a part of the answer the tree does not have, and why.
func missing(r *Report, part, format string, args ...any) {
	r.Missing = append(r.Missing, Missing{Part: part, Why: fmt.Sprintf(format, args...)})
}

// addRelist fills the relist, the evented PLEG and the sync loop when the
// tree has both the pleg and the kubelet packages (hasPLEG).
func addRelist(r *Report, a *analysed, hasPLEG bool) {
	if !hasPLEG {
		missing(r, "relist", "the tree has no %s or %s", PlegPackage, KubeletPackage)
		return
	}
	periods, err := analysedPeriods(a)
	if err != nil {
		missing(r, "relist", "%v", err)
		return
	}
	r.Relist = &periods.Relist
	r.Diagnostics = append(r.Diagnostics, periods.Diagnostics...)
	out, _ := a.outcome(pleg.Analyzer, KubeletPackage)
	res := out.Result.(*pleg.Result)
	r.EventedPLEG = res.Evented
	r.Health = res.Health
	if len(res.SyncLoops) > 0 {
		r.SyncLoop = &res.SyncLoops[0]
	} else {
		missing(r, "syncLoop", "no select in %s receives PLEG events", KubeletPackage)
	}
}

// addFeatureGate fills the feature gate the relist tests (the evented
// PLEG's by default) and its dependencies, each with its spec in force at
// version, or says why the tree has no such gate.
func addFeatureGate(r *Report, gates *GatesReport, version string) {
	name := EventedPLEGGate
	if r.Relist != nil && r.Relist.Gate != nil {
		name = r.Relist.Gate.Name // the gate the tree really tests
	}
	r.GateDependencies = []GateDependency{}
	g := gates.Gate(name)
	if g == nil {
		why := fmt.Sprintf("%s declares no feature gate %s", FeaturesPackage, name)
		for _, d := range gates.Diagnostics {
			if d.Category == string(featuregate.GateUnreadable) {
				why += fmt.Sprintf("; it may be in a feature map plegvet could not read (%s:%d: %s)", d.Pos.File, d.Pos.Line, d.Message)
				break
			}
		}
		missing(r, "featureGate", "%s", why)
		return
	}
	r.FeatureGate = &FeatureGate{Gate: *g}
	if version != "" {
		if s, ok := g.At(version); ok {
			r.FeatureGate.Effective = &s
		}
	}
	for _, dep := range g.Dependencies {
		r.GateDependencies = append(r.GateDependencies, gateDependency(gates, dep, version))
	}
}

// gateDependency is the gate dep with its spec in force at version (its
// newest when the version is unknown).
func gateDependency(gates *GatesReport, dep, version string) GateDependency {
	gd := GateDependency{Name: dep}
	if d := gates.Gate(dep); d != nil {
		gd.Decl = d.Decl
		s, ok := d.Newest()
		if version != "" {
			s, ok = d.At(version)
		}
		if ok {
			gd.Effective = &s
		}
	}
	return gd
}

// addStream fills the CRI event stream rpc from the tree's api.proto (or
// proto), with its Go calls when the pleg or the kubelet package was
// loaded (linked); a proto that cannot be read is a load problem too.
func addStream(r *Report, t *tree.Tree, a *analysed, proto string, linked bool) error {
	stream, pf, err := readStream(t, a.src, proto)
	if err != nil {
		missing(r, "rpc", "%v", err)
		var unread *protoUnread
		if errors.As(err, &unread) {
			r.Source.Load.Problems = append(r.Source.Load.Problems, err.Error())
		}
		return nil
	}
	if linked {
		if err := linkStream(a, stream, pf); err != nil {
			return err
		}
	}
	r.RPC = stream.RPC
	r.Diagnostics = append(r.Diagnostics, stream.Diagnostics...)
	if stream.RPC == nil {
		missing(r, "rpc", "%s declares no %s rpc", stream.Proto, "GetContainerEvents")
	}
	return nil
}

func defaultPLEG(r *Report) string {
	if r.Relist != nil && r.Relist.Gate == nil && r.Relist.GateUnresolved != nil {
		return "unknown" // an evented PLEG is built under a test not followed
	}
	if r.Relist == nil || r.Relist.Gate == nil {
		return "generic" // nothing builds an evented PLEG
	}
	if ws := r.Relist.GateSetInCode; len(ws) > 0 { // set in code: the default no longer decides
		for _, w := range ws {
			if w.On == nil || *w.On != *ws[0].On {
				return "unknown"
			}
		}
		if *ws[0].On {
			return "evented"
		}
		return "generic"
	}
	s, ok := r.FeatureGate.InForce()
	if !ok {
		return "unknown" // the gate's spec could not be read
	}
	if s.Default {
		return "evented"
	}
	return "generic"
}

// Releases expands a release list as the command line takes it: one
// version (v1.36.1), a comma list, or a range "v1.26.0..v1.37.2", which
// means the newest patch of each minor, from the first to the last, that
// the module proxy serves (every patch is asked for by name, since a
// proxy's version list can be partial), the go command running as fetch
// says.
func Releases(ctx context.Context, spec string, fetch FetchOptions) ([]string, error) {
	vs, err := fetch.fetcher().Range(ctx, spec)
	if err != nil {
		return nil, kubernetesError(err)
	}
	return vs, nil
}

// TimelineOptions say how Timeline reads its releases.
type TimelineOptions struct {
	// Workers bounds the releases fetched and analysed at once; 0 means
	// one per CPU.
	Workers int
	// Progress, when set, is called as each release finishes.
	Progress func(done, total int, version string)
	// CacheDir is Options.CacheDir for each release.
	CacheDir string
	// Fetch is Options.Fetch for each release.
	Fetch FetchOptions
}

// Timeline answers for several releases (see Releases for expanding a
// range), fetching and analysing them in parallel. A release that cannot
// be fetched or read is a row with its Error, not a failure of the whole
// timeline.
func Timeline(ctx context.Context, versions []string, opts TimelineOptions) []*Report {
	return gatehistory.Each(versions, opts.Workers, opts.Progress, func(v string) *Report {
		rep, err := Inspect(ctx, Options{Kubernetes: v, CacheDir: opts.CacheDir, Fetch: opts.Fetch})
		if err != nil {
			// A failed release is a row, not a failure.
			rep = &Report{SchemaVersion: SchemaVersion, Source: releaseSource(v), Error: err.Error()}
		}
		return rep
	})
}

// Periods follows the PLEG relist periods of a tree's kubelet, in both
// states of the EventedPLEG gate, and checks the relist safety net.
func Periods(ctx context.Context, opts Options) (*PeriodsReport, error) {
	t, src, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, src, suite.FromSource, FeaturesPackage, PlegPackage, KubeletPackage)
	if err != nil {
		return nil, err
	}
	rep, err := analysedPeriods(a)
	if err != nil {
		return nil, err
	}
	noteUnfollowed(&rep.Source, rep.Diagnostics)
	return rep, nil
}

// analysedPeriods reads the pleg analyzer's outcome on pkg/kubelet.
func analysedPeriods(a *analysed) (*PeriodsReport, error) {
	out, err := a.outcome(pleg.Analyzer, KubeletPackage)
	if err != nil {
		return nil, err
	}
	res := out.Result.(*pleg.Result)
	if res.Relist == nil {
		return nil, fmt.Errorf("%s: %s builds no PLEG: no call of a constructor of %s (NewGenericPLEG, NewEventedPLEG) was found%s", a.src.Dir, KubeletPackage, PlegPackage, a.unreadIn(KubeletPackage, PlegPackage))
	}
	return &PeriodsReport{SchemaVersion: SchemaVersion, Source: a.src, Relist: *res.Relist, Diagnostics: diagnostics(a.res.Fset, out.Diagnostics)}, nil
}

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
	reads := gatehistory.Each(gatehistory.SortVersions(versions), opts.Workers, opts.Progress, func(v string) gatehistory.Read {
		rep, err := Gates(ctx, Options{Kubernetes: v, CacheDir: opts.CacheDir, Fetch: opts.Fetch})
		return gatehistory.Read{Version: v, Gates: rep, Err: err}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep, err := gatehistory.Of(reads, names, releaseSource)
	if u := (*gatehistory.UnknownName)(nil); errors.As(err, &u) {
		return nil, &UnknownGateError{Name: u.Name, Releases: u.Releases, DidYouMean: u.DidYouMean}
	}
	return rep, err
}

// unfollowedChecks are the checks whose findings say that part of the tree
// was not followed, rather than that the tree breaks a rule.
var unfollowedChecks = map[string]bool{
	string(pleg.GateTestUnresolved):    true,
	string(pleg.FallbackUnfollowed):    true,
	string(pleg.GateWriteUnfollowed):   true,
	string(featuregate.GateUnreadable): true,
}

// noteUnfollowed records the diagnostics that say part of the tree was not
// followed in Load.Unfollowed.
func noteUnfollowed(s *Source, ds []Diagnostic) {
	s.Load.Unfollowed = []string{}
	for _, d := range ds {
		if unfollowedChecks[d.Category] {
			s.Load.Unfollowed = append(s.Load.Unfollowed, fmt.Sprintf("%s:%d:%d: %s", d.Pos.File, d.Pos.Line, d.Pos.Column, d.Message))
		}
	}
}

// files are named relative to the tree (srcload.Imports.TreeRelativeNames).
func diagnostics(fset *token.FileSet, ds []analysis.Diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		jd := Diagnostic{Category: d.Category, Message: d.Message, Pos: srcpos.Of(fset, d.Pos), Related: []Related{}}
		if d.End.IsValid() && d.End != d.Pos {
			jd.End = srcpos.At(fset, d.End)
		}
		for _, r := range d.Related {
			jd.Related = append(jd.Related, Related{Message: r.Message, Pos: srcpos.Of(fset, r.Pos)})
		}
		for _, f := range d.SuggestedFixes {
			fix := Fix{Message: f.Message, Edits: []Edit{}}
			for _, e := range f.TextEdits {
				fix.Edits = append(fix.Edits, Edit{Pos: srcpos.Of(fset, e.Pos), End: srcpos.Of(fset, e.End), NewText: string(e.NewText)})
			}
			jd.Fixes = append(jd.Fixes, fix)
		}
		out = append(out, jd)
	}
	answer.SortDiagnostics(out)
	return out
}

// DefaultCacheDir is the cache the command line uses for Options.CacheDir:
// $PLEGVET_CACHE, or plegvet under the user's cache directory; "" when the
// cache is off (PLEGVET_CACHE=off) or there is no such directory.
func DefaultCacheDir() string {
	dir, _ := answercache.Dir() // "" when off
	return dir
}

// cached answers a question about a fetched release from opts.CacheDir,
// or computes the answer and keeps it there (answercache.Answer); a
// checkout's answer, or one read from a proto the caller names, is
// computed and not kept.
func cached[T any](opts Options, t *tree.Tree, question []string, compute func() (*T, error)) (*T, error) {
	dir := opts.CacheDir
	if opts.Kubernetes == "" || opts.Proto != "" {
		dir = ""
	}
	return answercache.Answer(dir, t, question, compute)
}

// FetchProgress is a FetchOptions.Progress that says on stderr (a
// command line's) what a slow run of the go command is fetching
// (render.FetchProgress): on a terminal a line while it runs, elsewhere a
// line for each run still going after a second.
func FetchProgress(stderr io.Writer, terminal bool) func(what string) (done func()) {
	return render.FetchProgress(stderr, terminal)
}
