package plegvet_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/extract/kubeversion"
)

// minorOf is a release's minor.
func minorOf(t *testing.T, v string) uint {
	t.Helper()
	kv, ok := kubeversion.Parse(v)
	if !ok {
		t.Fatalf("%q is not a version", v)
	}
	return kv.Minor
}

// gatesOf caches plegvet.Gates of a release, for checkRowsAgainstGates.
var gatesOf = map[string]*answer.GatesReport{}

// checkRowsAgainstGates checks each row of a gate's history with what
// plegvet.Gates says of that release alone.
func checkRowsAgainstGates(t *testing.T, h answer.GateTimeline) {
	t.Helper()
	for _, r := range h.Releases {
		if r.Error != "" {
			t.Errorf("%s %s: %s", h.Name, r.KubernetesVersion, r.Error)
			continue
		}
		rep := gatesOf[r.KubernetesVersion]
		if rep == nil {
			var err error
			if rep, err = plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: r.KubernetesVersion}); err != nil {
				t.Fatal(err)
			}
			gatesOf[r.KubernetesVersion] = rep
		}
		g := rep.Gate(h.Name)
		if exists := g != nil; exists != r.Exists {
			t.Errorf("%s %s: exists %t, but Gates says %t", h.Name, r.KubernetesVersion, r.Exists, exists)
			continue
		}
		if !r.Exists {
			continue
		}
		s, ok := g.At(r.KubernetesVersion)
		if !ok || r.Effective == nil {
			t.Errorf("%s %s: effective %+v, Gates' spec in force %+v (%t)", h.Name, r.KubernetesVersion, r.Effective, s, ok)
			continue
		}
		if !reflect.DeepEqual(*r.Effective, s) {
			t.Errorf("%s %s: effective %+v, Gates' spec in force %+v", h.Name, r.KubernetesVersion, *r.Effective, s)
		}
		if n, _ := g.Newest(); r.Newest != n.Version {
			t.Errorf("%s %s: newest %q, Gates' newest spec names %q", h.Name, r.KubernetesVersion, r.Newest, n.Version)
		}
	}
}

// changeAt returns the changes of a gate at a release.
func changeAt(h answer.GateTimeline, v string) []string {
	var out []string
	for _, c := range h.Changes {
		if c.KubernetesVersion == v {
			out = append(out, c.What)
		}
	}
	return out
}

func TestGateHistoryOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	ctx := context.Background()
	rep, err := plegvet.GateHistory(ctx, plegvet.HistoryOptions{Kubernetes: "v1.25.0..v1.37.2"}, "EventedPLEG", "SeccompDefault")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Gates) != 2 || rep.Gates[0].Name != "EventedPLEG" || rep.Gates[1].Name != "SeccompDefault" {
		t.Fatalf("got gates %+v, want EventedPLEG and SeccompDefault", rep.Gates)
	}
	if n := len(rep.Releases); n != 13 {
		t.Errorf("got %d releases, want one per minor from 1.25 to 1.37, 13", n)
	}
	for _, h := range rep.Gates {
		checkRowsAgainstGates(t, h)
	}

	// EventedPLEG: absent before 1.26, added at 1.26 as Alpha, off by default.
	ev := rep.Gates[0]
	var first *answer.GateAtRelease
	for i, r := range ev.Releases {
		if minorOf(t, r.KubernetesVersion) < 26 && r.Exists {
			t.Errorf("EventedPLEG exists at %s, before 1.26", r.KubernetesVersion)
		}
		if first == nil && r.Exists {
			first = &ev.Releases[i]
		}
	}
	if first == nil || minorOf(t, first.KubernetesVersion) != 26 || first.Effective == nil || first.Effective.PreRelease != "Alpha" || first.Effective.Default {
		t.Fatalf("EventedPLEG: first release declaring it %+v, want a 1.26 release, Alpha, default false", first)
	}
	// (Qualified where the release before it has staging modules the
	// proxy did not serve: the gate's absence there is then not known.)
	if got := changeAt(ev, first.KubernetesVersion); len(got) != 1 || !strings.HasPrefix(got[0], "added (Alpha, default false)") {
		t.Errorf("EventedPLEG at %s: changes %q, want it added", first.KubernetesVersion, got)
	}

	// SeccompDefault: locked to default where it first is, and removed
	// where it first is not, after that; never again declared.
	sd := rep.Gates[1]
	locked, removed := "", ""
	for _, r := range sd.Releases {
		switch {
		case r.Exists && removed != "":
			t.Errorf("SeccompDefault declared again at %s, after its removal at %s", r.KubernetesVersion, removed)
		case r.Exists && locked == "" && r.Effective != nil && r.Effective.LockToDefault:
			locked = r.KubernetesVersion
		case !r.Exists && locked != "" && removed == "":
			removed = r.KubernetesVersion
		}
	}
	if locked == "" || removed == "" {
		t.Fatalf("SeccompDefault: locked at %q, removed at %q; want both in the range", locked, removed)
	}
	if got := changeAt(sd, locked); !contains(got, "locked to default") || !contains(got, "promoted Beta -> GA") {
		t.Errorf("SeccompDefault at %s: changes %q, want it promoted to GA and locked", locked, got)
	}
	if got := changeAt(sd, removed); !reflect.DeepEqual(got, []string{"removed"}) {
		t.Errorf("SeccompDefault at %s: changes %q, want it removed", removed, got)
	}

	// What a versioned spec list loses: the newest release's specs of
	// EventedPLEG name no Beta.
	newest := ev.Releases[len(ev.Releases)-1].KubernetesVersion
	now, err := plegvet.Gates(ctx, plegvet.Options{Kubernetes: newest}, "EventedPLEG")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range now.Gates[0].Specs {
		if s.PreRelease == "Beta" {
			t.Fatalf("%s names a Beta spec of EventedPLEG (%+v): the history below shows nothing its own list does not", newest, s)
		}
	}
	// The first release of each of 1.26 to 1.30, each read from its own
	// source, shows it.
	rep, err = plegvet.GateHistory(ctx, plegvet.HistoryOptions{Kubernetes: "v1.30.0,v1.26.0,v1.27.0,v1.28.0,v1.29.0"}, "EventedPLEG")
	if err != nil {
		t.Fatal(err)
	}
	ev = rep.Gates[0]
	checkRowsAgainstGates(t, ev)
	beta := ""
	for _, r := range ev.Releases {
		if m := minorOf(t, r.KubernetesVersion); m >= 27 && m <= 29 && r.Effective != nil && r.Effective.PreRelease == "Beta" && beta == "" {
			beta = r.KubernetesVersion
		}
	}
	if beta == "" {
		t.Fatalf("EventedPLEG: Beta at no release from 1.27 to 1.29: %+v", ev.Releases)
	}
	var promoted, demoted int = -1, -1
	for i, c := range ev.Changes {
		switch {
		case c.What == "promoted Alpha -> Beta" && c.KubernetesVersion == beta:
			promoted = i
		case strings.HasPrefix(c.What, "demoted Beta -> "):
			demoted = i
		}
	}
	if promoted < 0 || demoted < promoted {
		t.Errorf("EventedPLEG changes %+v: want a promotion to Beta at %s, then a demotion", ev.Changes, beta)
	}
	// The list was given out of order; the history runs forwards.
	for i := 1; i < len(ev.Releases); i++ {
		if minorOf(t, ev.Releases[i-1].KubernetesVersion) >= minorOf(t, ev.Releases[i].KubernetesVersion) {
			t.Errorf("releases out of order: %s before %s", ev.Releases[i-1].KubernetesVersion, ev.Releases[i].KubernetesVersion)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A gate declared in a staging module (component-base's metrics) has a
// history too: each release's staging modules are fetched and read.
func TestGateHistoryOfAStagingGate(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases and their staging modules")
	}
	rep, err := plegvet.GateHistory(context.Background(), plegvet.HistoryOptions{Kubernetes: "v1.37.2,v1.35.4,v1.36.5"}, "NativeHistograms")
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Gates[0]
	checkRowsAgainstGates(t, h)
	added := ""
	for _, r := range h.Releases {
		if !r.Exists {
			if added != "" {
				t.Errorf("NativeHistograms gone at %s after its addition at %s", r.KubernetesVersion, added)
			}
			continue
		}
		if added == "" {
			added = r.KubernetesVersion
		}
		if r.Effective == nil || !strings.HasPrefix(r.Effective.Pos.File, "staging/src/k8s.io/component-base/") {
			t.Errorf("NativeHistograms at %s: spec %+v, want one in a file of staging/src/k8s.io/component-base/", r.KubernetesVersion, r.Effective)
		}
	}
	if added == "" || added == h.Releases[0].KubernetesVersion {
		t.Fatalf("NativeHistograms: first declared at %q; want a release after the first of the list (%+v)", added, h.Releases)
	}
	if got := changeAt(h, added); len(got) != 1 || !strings.HasPrefix(got[0], "added (") {
		t.Errorf("NativeHistograms at %s: changes %q, want it added", added, got)
	}
	for _, r := range rep.Releases {
		g := gatesOf[r.KubernetesVersion].Gate("NativeHistograms")
		if g != nil && g.Module != "k8s.io/component-base" {
			t.Errorf("NativeHistograms at %s: module %q, want k8s.io/component-base", r.KubernetesVersion, g.Module)
		}
	}
}
