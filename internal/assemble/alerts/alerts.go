// Package alerts builds Prometheus alerting rules for a tree's kubelets
// from plegvet's report: the PromQL of each rule and the values read from
// the tree it compares with. The wording (annotations) and the YAML are
// internal/render's.
//
// What each file decides: alerts.go the rule set and its window; modes.go
// which threshold is in force and which health check holds it; elapsed.go
// the PLEG's rules (stalled, unhealthy, relist slow, evented gave up);
// scrape.go what the scrape layout lets a rule see (answering, dark, the
// Ready condition) and the rules read from the scrape itself; layout.go
// which layouts are accepted; latency.go the runtime's latency against the
// ladder.
package alerts

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"golang.org/x/mod/semver"

	"github.com/plegvet/plegvet/answer"
)

// Alert names, one per kind. KubeletRuntimeHung keeps its name for a dark
// /metrics on a NotReady node (the runtime down or hung), so that routes
// written for it still page; a dark /metrics on a Ready node is the
// warning KubeletMetricsDark.
const (
	nameStalled   = "PLEGRelistStalled"
	nameUnhealthy = "PLEGUnhealthy"
	nameGaveUp    = "EventedPLEGGaveUp"
	nameSlow      = "PLEGRelistSlow"
	nameHung      = "KubeletRuntimeHung"
	nameDark      = "KubeletMetricsDark"
	nameDown      = "KubeletRuntimeDown"
	nameLatency   = "KubeletRuntimeSlow"
)

// A hung or slow runtime makes the kubelet's /metrics wait with it: the
// scrape times out and Prometheus marks every series of the target
// stale, so an instant selector finds nothing until it answers again. The
// rules read the last sample within a window instead: at least
// minWindow, and at least windowPerThreshold times the longest threshold,
// so that the last sample before the dark period stays in it well past
// the threshold.
const (
	minWindow          = time.Hour
	windowPerThreshold = 2
)

// join matches a kubelet's series with its other series: the same
// scrape target.
const join = "on(instance, job)"

// Build writes the rules for rep's kubelets, scraped as layout says.
func Build(rep *answer.Report, layout answer.ScrapeLayout) *answer.Alerts {
	return build(rep, layout, ladderOf(rep))
}

func build(rep *answer.Report, layout answer.ScrapeLayout, lad *answer.Ladder) *answer.Alerts {
	a := &answer.Alerts{SchemaVersion: answer.SchemaVersion, Source: rep.Source, Health: rep.Health, Scrape: layout, Rules: []answer.AlertRule{}, Unwritten: []answer.Missing{}}
	p := planFor(rep, layout)
	a.Window, a.Minor, a.Group = window(p.w), p.minor, p.group
	r := rep.Relist
	if r == nil {
		unwritten(a, "all", "the tree builds no PLEG (report's missing part says why)")
		return a
	}
	if r.Gate != nil {
		a.Gate = r.Gate.Name
	}
	if r.GateUnresolved != nil {
		unwritten(a, "gate-on", "the test deciding the evented PLEG could not be followed to a feature gate; the rules hold for the gate-off relist only")
	}
	if p.fallbackWhy != "" {
		// A node whose evented PLEG gave up runs a relist plegvet could
		// not read: no rule holds it to a guess, and the file says so.
		for _, kind := range []string{answer.AlertStalled, answer.AlertUnhealthy, answer.AlertRelistSlow} {
			unwritten(a, kind+"/"+answer.ModeFallback, "%s", p.fallbackWhy)
		}
		if len(a.Source.Load.Unfollowed) == 0 {
			notFollowed(a, rep.Relist, "no rule written for a kubelet whose evented PLEG gave up its stream: "+p.fallbackWhy)
		}
	}
	for _, m := range p.modes {
		if why := noCheck(rep.Health, m); why != "" {
			// No rule for a threshold no check is known to hold the node
			// to: the command says so and exits 1 (Load.Unfollowed), at
			// the check's registration when one is unknown (the pleg
			// analyzer's health-unknown finding), else here.
			unwritten(a, answer.AlertStalled+"/"+m.name, "%s", why)
			unwritten(a, answer.AlertUnhealthy+"/"+m.name, "%s", why)
			if !unknownCheckReported(rep.Health) {
				notFollowed(a, rep.Relist, fmt.Sprintf("no PLEGRelistStalled or PLEGUnhealthy rule written for %s: %s", m.name, why))
			}
		} else {
			elapsed(a, m, answer.AlertStalled)
			elapsed(a, m, answer.AlertUnhealthy)
		}
		slow(a, m)
	}
	gaveUp(a, rep, p.scope)
	var hang *answer.RuntimeHang
	if rep.Health != nil {
		hang = rep.Health.RuntimeHang
	}
	darkRules(a, p.series, p.scope, hang, lad)
	runtimeDown(a, p.series, p.scope, hang)
	runtimeSlow(a, p.series, p.scope, lad)
	return a
}

// plan is what every rule and panel of a tree is written from: the
// window, the minor's scope, the layout's series and the modes.
type plan struct {
	w                  time.Duration
	minor, group       string
	scope, fallbackWhy string
	series             series
	modes              []mode
}

func planFor(rep *answer.Report, layout answer.ScrapeLayout) plan {
	p := plan{w: lastSampleWindow(rep)}
	if mm := semver.MajorMinor(rep.Source.KubernetesVersion); mm != "" {
		p.minor = mm
		p.scope = fmt.Sprintf(" and %s %s", join, lastSample(fmt.Sprintf("kubernetes_build_info{git_version=~%q}", strings.ReplaceAll(mm, ".", "[.]")+"[.].*"), p.w))
	}
	p.group = strings.TrimSuffix("plegvet-pleg-"+p.minor, "-")
	p.series = series{l: layout, w: p.w}
	if rep.Relist == nil {
		return p
	}
	ms, fallbackWhy := modes(rep, p.w)
	for i := range ms {
		m := &ms[i]
		m.selector += p.scope
		m.window, m.scrape, m.relist = p.w, p.series, rep.Relist
		m.check = failingCheck(rep.Health, *m)
		m.message = thresholdMessage(m.check)
	}
	p.modes, p.fallbackWhy = ms, fallbackWhy
	return p
}

// lastSampleWindow is the window the rules read a stale series' last
// sample in: minWindow, or windowPerThreshold times the longest
// threshold rep reads when that is longer.
func lastSampleWindow(rep *answer.Report) time.Duration {
	w := time.Duration(minWindow)
	if r := rep.Relist; r != nil {
		for _, v := range []*answer.Value{r.GateOff.Threshold, gateOnThreshold(r)} {
			if d, ok := v.Duration(); ok {
				w = max(w, windowPerThreshold*d)
			}
		}
	}
	return w
}

func gateOnThreshold(r *answer.Relist) *answer.Value {
	if r.GateOn == nil {
		return nil
	}
	return r.GateOn.Threshold
}

// lastSample is series' last sample within w: what it was when the
// target last answered.
func lastSample(series string, w time.Duration) string {
	return fmt.Sprintf("last_over_time(%s[%s])", series, window(w))
}

func unwritten(a *answer.Alerts, part, format string, args ...any) {
	a.Unwritten = append(a.Unwritten, answer.Missing{Part: part, Why: fmt.Sprintf(format, args...)})
}

// notFollowed adds a Load.Unfollowed line at the generic PLEG's
// construction (the answer is not whole: the command exits 1).
func notFollowed(a *answer.Alerts, r *answer.Relist, why string) {
	at := "pkg/kubelet"
	if r.GateOff != nil && r.GateOff.Call != nil {
		p := r.GateOff.Call
		at = fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	line := at + ": " + why
	if !slices.Contains(a.Source.Load.Unfollowed, line) {
		a.Source.Load.Unfollowed = append(slices.Clip(a.Source.Load.Unfollowed), line)
	}
}

// seconds writes d as a PromQL number of seconds.
func seconds(d time.Duration) string {
	return fmt.Sprint(d.Seconds())
}

// window writes d as a PromQL duration (6m40s).
func window(d time.Duration) string {
	return model.Duration(d).String()
}
