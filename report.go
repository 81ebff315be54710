package plegvet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
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
	also := func(p string) bool { return suite.FromSource(p) || isCRIAPIPackage(p) }
	a, err := analyse(ctx, t, src, also, rel...)
	if err != nil {
		return nil, err
	}
	rep := &Report{SchemaVersion: SchemaVersion, Source: a.src, Missing: []Missing{}, Diagnostics: []Diagnostic{}}
	gates, err := a.gates()
	if err != nil {
		return nil, err
	}
	rep.Diagnostics = append(rep.Diagnostics, gates.Diagnostics...)
	addRelist(rep, a, len(rel) == 3)
	addFeatureGate(rep, gates, src.KubernetesVersion)
	if err := addStream(rep, t, a, proto, len(rel) >= 2); err != nil {
		return nil, err
	}
	sortDiagnostics(rep.Diagnostics)
	noteUnfollowed(&rep.Source, rep.Diagnostics)
	rep.DefaultPLEG = defaultPLEG(rep)
	rep.Summary = summarize(rep)
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
	periods, err := a.periods()
	if err != nil {
		missing(r, "relist", "%v", err)
		return
	}
	r.Relist = &periods.Relist
	r.Diagnostics = append(r.Diagnostics, periods.Diagnostics...)
	out, _ := a.outcome(pleg.Analyzer, KubeletPackage)
	res := out.Result.(*pleg.Result)
	r.EventedPLEG = res.Evented
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
		if err := a.linkStream(stream, pf); err != nil {
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
	s, ok := r.EffectiveSpec()
	if !ok {
		return "unknown" // the gate's spec could not be read
	}
	if s.Default {
		return "evented"
	}
	return "generic"
}

// summarize states why relist stays, from the facts found: worded by what
// the tree does, never by what a document says it should.
func summarize(r *Report) string {
	if r.Relist == nil {
		return "plegvet found no PLEG construction in this tree, so it cannot say how the kubelet notices container changes (see missing)."
	}
	offPeriod := valueWords(r.Relist.GateOff.Period)
	if u := r.Relist.GateUnresolved; r.Relist.Gate == nil && u != nil {
		return fmt.Sprintf("This tree builds an evented PLEG under %s (%s:%d), a test plegvet could not follow to a feature gate (%s), so plegvet cannot say which PLEG a kubelet runs. When that test is %t, the generic PLEG relists every %s.", u.Expr, u.Test.File, u.Test.Line, u.Unresolved, !u.Holds, offPeriod)
	}
	if r.Relist.Gate == nil {
		return fmt.Sprintf("This tree builds no evented PLEG: the generic PLEG relists every %s and is the only way the kubelet notices container changes. Each relist lists the runtime's pods and containers and compares them with the previous listing, so a change made between two passes is noticed at the next one.", offPeriod)
	}
	g := r.Relist.Gate.Name
	on := r.Relist.GateOn
	stage := ""
	if s, ok := r.EffectiveSpec(); ok {
		stage = fmt.Sprintf(" (%s, default %t)", s.PreRelease, s.Default)
	}
	if on.Evented == nil {
		return fmt.Sprintf("With %s%s on, the generic PLEG relists every %s instead of %s, but plegvet found no evented PLEG construction in this tree (see the files that were not read), so it cannot say what, if anything, hears of container changes in between.", g, stage, valueWords(on.Period), offPeriod)
	}
	var b strings.Builder
	say := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if e := r.EventedPLEG; e != nil && e.Role != "event-source" {
		summarizeNonSource(say, r, g, stage, offPeriod)
		return strings.TrimSpace(b.String())
	}
	e := r.EventedPLEG
	var forced *ForcedRelist
	if e != nil {
		forced = e.RelistOnStreamError
	}
	say("With %s%s on, the evented PLEG reads the runtime's GetContainerEvents stream", g, stage)
	switch {
	case e != nil && e.UpdatesPodCache != nil && e.EmitsLifecycleEvents != nil:
		say(", writes the pod cache (%s) and sends pod lifecycle events (%s)", srcpos.Line(e.UpdatesPodCache), srcpos.Line(e.EmitsLifecycleEvents))
	case e != nil && e.EmitsLifecycleEvents != nil:
		say(" and sends pod lifecycle events (%s)", srcpos.Line(e.EmitsLifecycleEvents))
	}
	say(". ")
	ratio := r.Relist.Ratio
	switch {
	case on.Period == nil && forced != nil:
		say("With the gate on, this tree runs no periodic generic relist. ")
	case on.Period == nil:
		say("But with the gate on, this tree runs no generic relist at all, and plegvet finds none forced when the stream fails: nothing it finds relists the runtime. ")
	case ratio != nil && *ratio == 1:
		say("The generic PLEG keeps relisting beside it, every %s whether or not the gate is on (ratio 1). ", offPeriod)
	case ratio != nil:
		say("The generic PLEG keeps relisting beside it, every %s instead of %s (x%s). ", valueWords(on.Period), offPeriod, trimFloat(*ratio))
	default:
		say("The generic PLEG keeps relisting beside it, every %s (the gate-off period is %s). ", valueWords(on.Period), offPeriod)
	}
	if f := forced; f != nil {
		say("Each time its stream call (%s) returns an error, the evented PLEG runs %s at once (%s); that relist writes the pod cache (%s)", srcpos.Line(&f.Stream), f.Relist, srcpos.Line(&f.Pos), srcpos.Line(&f.UpdatesPodCache))
		if f.EmitsLifecycleEvents != nil {
			say(" and sends pod lifecycle events (%s)", srcpos.Line(f.EmitsLifecycleEvents))
		}
		say(". ")
	} else if on.Period != nil && e != nil {
		say("plegvet finds no relist that the evented PLEG forces when its stream call returns an error. ")
	}
	if on.Period == nil && forced == nil {
		return strings.TrimSpace(b.String())
	}
	retries := "several"
	if on.MaxStreamRetries != nil && on.MaxStreamRetries.Value != nil {
		retries = fmt.Sprint(*on.MaxStreamRetries.Value)
	}
	switch {
	case on.Fallback != nil && on.Fallback.Unresolved == "":
		say("If the stream fails %s times the evented PLEG gives up and restores a %s relist. ", retries, valueWords(on.Fallback))
	case on.Fallback != nil:
		say("If the stream fails %s times the evented PLEG gives up and restores a relist whose period plegvet could not resolve (%s). ", retries, on.Fallback.Unresolved)
	case on.Period == nil:
		say("If the stream fails %s times the evented PLEG gives up and restores nothing: no generic relist runs after that. ", retries)
	case ratio != nil && *ratio > 1:
		say("If the stream fails %s times the evented PLEG gives up and restores nothing: the kubelet is left relisting every %s. ", retries, valueWords(on.Period))
	default:
		say("If the stream fails %s times the evented PLEG stops watching and restores nothing, since the relist never slowed down. ", retries)
	}
	if sl := r.SyncLoop; sl != nil {
		say("%s (%s:%d) receives the pod lifecycle events (line %d).", sl.Func, sl.Pos.File, sl.Pos.Line, sl.PLEGCase.Line)
	}
	return strings.TrimSpace(b.String())
}

// summarizeNonSource words the argument for an evented PLEG that emits no
// pod lifecycle events: a relist trigger, or a design plegvet does not
// know. There the relist is no safety net beside the stream.
func summarizeNonSource(say func(string, ...any), r *Report, g, stage, offPeriod string) {
	e, on := r.EventedPLEG, r.Relist.GateOn
	if e.Role != "relist-trigger" || e.RequestsRelist == nil {
		say("With %s%s on, this tree builds an evented PLEG whose code matches no design plegvet knows (%s), so plegvet does not say how it relates to the relist. ", g, stage, e.Why)
		say("The generic PLEG relists every %s with the gate on (%s with it off).", valueWords(on.Period), offPeriod)
		return
	}
	req := e.RequestsRelist
	types := "every container event"
	if len(req.EventTypes) > 0 && req.EventTypes[0] != "all" {
		types = strings.Join(req.EventTypes, ", ") + " only"
	}
	say("With %s%s on, this tree's evented PLEG does not report container changes itself: it watches the runtime's GetContainerEvents stream and, for %s, asks the generic PLEG to relist (%s)", g, stage, types, srcpos.Line(&req.Pos))
	if req.Gate != nil {
		say(", a request the generic PLEG honours only with %s on", *req.Gate)
	}
	say(". ")
	say("The generic PLEG is the only source of pod lifecycle events, so the relist is not a safety net beside the stream: it is how the kubelet notices every change, and the stream only makes it come sooner for terminations. ")
	if ratio := r.Relist.Ratio; ratio != nil && *ratio == 1 {
		say("It relists every %s whether or not the gate is on. ", offPeriod)
	} else {
		say("It relists every %s with the gate on (%s with it off). ", valueWords(on.Period), offPeriod)
	}
	if f := e.RelistOnStreamError; f != nil {
		say("Each time its stream call (%s) returns an error, it runs %s at once (%s), which writes the pod cache (%s). ", srcpos.Line(&f.Stream), f.Relist, srcpos.Line(&f.Pos), srcpos.Line(&f.UpdatesPodCache))
	}
	switch f := e.OnStreamFailure; {
	case f.Action == "stop-watching" && f.After != nil && f.After.Value != nil:
		say("If the stream fails %d times the watcher stops, and nothing else changes.", *f.After.Value)
	case f.Action == "stop-watching":
		say("If the stream fails for good the watcher stops, and nothing else changes.")
	}
}

func valueWords(v *Value) string {
	switch {
	case v == nil:
		return "an unknown period"
	case v.Unresolved != "":
		return "an unresolved period"
	}
	return v.Value
}

func trimFloat(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprintf("%.3g", f)
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
	return eachRelease(versions, opts.Workers, opts.Progress, func(v string) *Report {
		rep, err := Inspect(ctx, Options{Kubernetes: v, CacheDir: opts.CacheDir, Fetch: opts.Fetch})
		if err != nil {
			// A failed release is a row, not a failure.
			rep = &Report{SchemaVersion: SchemaVersion, Source: releaseSource(v), Error: err.Error()}
		}
		return rep
	})
}
