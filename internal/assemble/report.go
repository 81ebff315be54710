package assemble

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/assemble/gatehistory"
	"github.com/plegvet/plegvet/internal/load/release"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/runtimehang"
)

// Inspect answers for one tree: it loads pkg/features, pkg/kubelet/pleg
// and pkg/kubelet once, runs every analyzer, reads the CRI api.proto, and
// joins them. A part the tree lacks is reported in Missing, not as an
// error.
func Inspect(ctx context.Context, opts Options) (*answer.Report, error) {
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	return cached(opts, t, []string{"Inspect"}, func() (*answer.Report, error) { return inspect(ctx, t, src, opts.Proto) })
}

// inspect joins the analyses of one tree into its report. Each part of
// the report is filled by one step below, in order: the relist first (the
// gate it tests names the feature gate), the gate, then the CRI stream.
func inspect(ctx context.Context, t *tree.Tree, src answer.Source, proto string) (*answer.Report, error) {
	rel := inspectedPackages(t)
	also := func(p string) bool {
		return suite.FromSource(p) || isCRIAPIPackage(p) || plegperiods.IsNodeStatusPackage(p) || runtimehang.FromSource(p)
	}
	requested := rel
	if len(rel) == 3 && t.PackageDir(t.Module+"/"+runtimehang.ConfigDefaultsPackage) != "" {
		// runtimeRequestTimeout's default, which pkg/kubelet does not import everywhere.
		requested = append(slices.Clip(rel), runtimehang.ConfigDefaultsPackage)
	}
	// The proto is read beside the load, which it does not depend on.
	streamc := make(chan streamRead, 1)
	go func() {
		var s streamRead
		s.stream, s.pf, s.err = readStream(t, src, proto)
		streamc <- s
	}()
	// What a hung runtime does is read beside the analyzers, from the
	// packages alone.
	hang := &hangRead{module: t.Module}
	a, err := analyse(ctx, t, src, also, hang.extract, requested...)
	if err != nil {
		return nil, err
	}
	rep := &answer.Report{SchemaVersion: answer.SchemaVersion, Source: a.src, Missing: []answer.Missing{}, Diagnostics: []answer.Diagnostic{}}
	gates, err := analysedGates(a)
	if err != nil {
		return nil, err
	}
	rep.Diagnostics = append(rep.Diagnostics, gates.Diagnostics...)
	rep.Conflicts = gates.Conflicts
	addRelist(rep, a, len(rel) == 3)
	addFeatureGate(rep, gates, src.KubernetesVersion)
	if err := addStream(rep, a, <-streamc, len(rel) >= 2); err != nil {
		return nil, err
	}
	addRuntimeHang(rep, hang)
	addLadder(rep, gateDefaults(gates, src.KubernetesVersion))
	answer.SortDiagnostics(rep.Diagnostics)
	noteUnfollowed(&rep.Source, rep.Diagnostics)
	noteLadderUnknown(rep)
	rep.DefaultPLEG = defaultPLEG(rep)
	rep.Summary = render.Summary(rep)
	if rep.Health != nil {
		rep.Health.Consequence = render.HealthConsequence(rep)
		if rep.Health.RuntimeHang != nil {
			rep.Health.RuntimeHang.Consequence = render.HangConsequence(rep)
		}
	}
	return rep, nil
}

// inspectedPackages is the features package, then the pleg and kubelet
// packages the tree holds.
func inspectedPackages(t *tree.Tree) []string {
	rel := []string{answer.FeaturesPackage}
	for _, p := range []string{answer.PlegPackage, answer.KubeletPackage} {
		if t.PackageDir(t.Module+"/"+p) != "" {
			rel = append(rel, p)
		}
	}
	return rel
}

// missing notes a part of the answer the tree does not have, and why.
func missing(r *answer.Report, part, format string, args ...any) {
	r.Missing = append(r.Missing, answer.Missing{Part: part, Why: fmt.Sprintf(format, args...)})
}

// addRelist fills the relist, the evented PLEG and the sync loop when the
// tree has both the pleg and the kubelet packages (hasPLEG).
func addRelist(r *answer.Report, a *analysed, hasPLEG bool) {
	if !hasPLEG {
		missing(r, "relist", "the tree has no %s or %s", answer.PlegPackage, answer.KubeletPackage)
		return
	}
	periods, err := analysedPeriods(a)
	if err != nil {
		missing(r, "relist", "%v", err)
		return
	}
	r.Relist = &periods.Relist
	r.Diagnostics = append(r.Diagnostics, periods.Diagnostics...)
	out, _ := a.outcome(pleg.Analyzer, answer.KubeletPackage)
	res := out.Result.(*pleg.Result)
	r.EventedPLEG = res.Evented
	r.Health = res.Health
	if len(res.SyncLoops) > 0 {
		r.SyncLoop = &res.SyncLoops[0]
	} else {
		missing(r, "syncLoop", "no select in %s receives PLEG events", answer.KubeletPackage)
	}
}

// addFeatureGate fills the feature gate the relist tests (the evented
// PLEG's by default) and its dependencies, each with its spec in force at
// version, or says why the tree has no such gate.
func addFeatureGate(r *answer.Report, gates *answer.GatesReport, version string) {
	name := answer.EventedPLEGGate
	if r.Relist != nil && r.Relist.Gate != nil {
		name = r.Relist.Gate.Name // the gate the tree really tests
	}
	r.GateDependencies = []answer.GateDependency{}
	g := gates.Gate(name)
	if g == nil {
		why := fmt.Sprintf("%s declares no feature gate %s", answer.FeaturesPackage, name)
		for _, d := range gates.Diagnostics {
			if d.Category == string(featuregate.GateUnreadable) {
				why += fmt.Sprintf("; it may be in a feature map plegvet could not read (%s:%d: %s)", d.Pos.File, d.Pos.Line, d.Message)
				break
			}
		}
		missing(r, "featureGate", "%s", why)
		return
	}
	fg := *g
	r.FeatureGate = &fg
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
func gateDependency(gates *answer.GatesReport, dep, version string) answer.GateDependency {
	gd := answer.GateDependency{Name: dep}
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

// streamRead is what readStream returned.
type streamRead struct {
	stream *answer.RPCReport
	pf     *criproto.File
	err    error
}

// addStream fills the CRI event stream rpc from the tree's api.proto (or
// proto), with its Go calls when the pleg or the kubelet package was
// loaded (linked); a proto that cannot be read is a load problem too.
func addStream(r *answer.Report, a *analysed, read streamRead, linked bool) error {
	stream, pf, err := read.stream, read.pf, read.err
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

func defaultPLEG(r *answer.Report) string {
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
func Releases(ctx context.Context, spec string, fetch release.Fetcher) ([]string, error) {
	vs, err := fetch.Range(ctx, spec)
	if err != nil {
		return nil, kubernetesError(err)
	}
	return vs, nil
}

// Timeline answers for several releases (see Releases for expanding a
// range), fetching and analysing them in parallel. A release that cannot
// be fetched or read is a row with its Error, not a failure of the whole
// timeline.
func Timeline(ctx context.Context, versions []string, workers int, progress func(done, total int, version string), opts Options) []*answer.Report {
	return gatehistory.Each(versions, workers, progress, func(v string) *answer.Report {
		opts := opts
		opts.Kubernetes = v
		rep, err := Inspect(ctx, opts)
		if err != nil {
			// A failed release is a row, not a failure.
			rep = &answer.Report{SchemaVersion: answer.SchemaVersion, Source: releaseSource(v), Error: err.Error()}
		}
		return rep
	})
}

// Periods follows the PLEG relist periods of a tree's kubelet, in both
// states of the EventedPLEG gate, and checks the relist safety net.
func Periods(ctx context.Context, opts Options) (*answer.PeriodsReport, error) {
	t, src, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, src, suite.FromSource, nil, answer.FeaturesPackage, answer.PlegPackage, answer.KubeletPackage)
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
func analysedPeriods(a *analysed) (*answer.PeriodsReport, error) {
	out, err := a.outcome(pleg.Analyzer, answer.KubeletPackage)
	if err != nil {
		return nil, err
	}
	res := out.Result.(*pleg.Result)
	if res.Relist == nil {
		return nil, fmt.Errorf("%s: %s builds no PLEG: no call of a constructor of %s (NewGenericPLEG, NewEventedPLEG) was found%s", a.src.Dir, answer.KubeletPackage, answer.PlegPackage, a.unreadIn(answer.KubeletPackage, answer.PlegPackage))
	}
	ds := out.Diagnostics
	// The PLEG package's findings (a hand-over it could not follow) are
	// part of the answer: the modes' fallback is read from its facts.
	if pl, err := a.outcome(pleg.Analyzer, answer.PlegPackage); err == nil {
		ds = append(slices.Clip(ds), pl.Diagnostics...)
	}
	return &answer.PeriodsReport{SchemaVersion: answer.SchemaVersion, Source: a.src, Relist: *res.Relist, Diagnostics: diagnostics(a.res.Fset, ds)}, nil
}

// GateHistory reads the feature gates of each release (see Releases for
// the forms opts.Kubernetes takes), fetching and analysing the releases in
// parallel, and follows the named gates through them, oldest release
// first. A name matches a gate's name or its constant's identifier, as
// for Gates; no names means every gate any release declares, by name. A
// name no release read declares is an error naming it; a release that
// cannot be fetched or read is a row with its error, in every gate, while
// the others still answer. It is an error when no release could be read.
func GateHistory(ctx context.Context, workers int, progress func(done, total int, version string), opts Options, names ...string) (*answer.GateHistoryReport, error) {
	versions, err := Releases(ctx, opts.Kubernetes, opts.Fetch)
	if err != nil {
		return nil, err
	}
	reads := gatehistory.Each(gatehistory.SortVersions(versions), workers, progress, func(v string) gatehistory.Read {
		opts := opts
		opts.Kubernetes = v
		rep, err := Gates(ctx, opts)
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
