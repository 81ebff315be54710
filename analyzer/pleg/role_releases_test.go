package pleg_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/release"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/srcpos"
)

// roleRow is what one tree's evented PLEG does, on one line.
type roleRow struct {
	role, emits, cache, relist, health, failure string
}

func (r roleRow) String() string {
	return fmt.Sprintf("role=%s emits=%s cache=%s relist=%s health=%s failure=%s", r.role, r.emits, r.cache, r.relist, r.health, r.failure)
}

func at(p *srcpos.Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d", filepath.Base(p.File), p.Line)
}

// rowOf summarises a kubelet package's evented PLEG and the health checks
// it registers.
func rowOf(res *pleg.Result) roleRow {
	var hs []string
	for _, hc := range res.HealthChecks {
		hs = append(hs, fmt.Sprintf("%s(%s)@%d", hc.Name, hc.Of, hc.Pos.Line))
	}
	e := res.Evented
	if e == nil {
		return roleRow{role: "none", emits: "-", cache: "-", relist: "-", health: strings.Join(hs, ",")}
	}
	r := roleRow{
		role:   string(e.Role),
		emits:  at(e.EmitsLifecycleEvents),
		cache:  at(e.UpdatesPodCache),
		health: strings.Join(hs, ","),
	}
	r.relist = "-"
	if q := e.RequestsRelist; q != nil {
		gate := ""
		if q.Gate != nil {
			gate = *q.Gate
		}
		r.relist = fmt.Sprintf("%s %v gate=%s", at(&q.Pos), q.EventTypes, gate)
	}
	f := e.OnStreamFailure
	r.failure = f.Action
	if f.Pos != nil {
		r.failure += "@" + at(f.Pos)
	}
	if f.Why != "" {
		r.failure += " (" + f.Why + ")"
	}
	return r
}

// analyseTree loads features, pleg and kubelet from a tree's source as
// the library does (imports stubbed, the CRI API and feature packages
// from source) and runs the pleg analyzer.
func analyseTree(t *testing.T, tr *tree.Tree) (*pleg.Result, *engine.Loaded) {
	t.Helper()
	also := func(p string) bool { return suite.FromSource(p) || suite.Stream().FromSource(p) }
	var paths []string
	for _, rel := range []string{"pkg/features", "pkg/kubelet/pleg", "pkg/kubelet"} {
		paths = append(paths, tr.Module+"/"+rel)
	}
	run, err := engine.Analyse(context.Background(), engine.Request{Tree: tr, Paths: paths, FromSource: also, Analyzers: []*analysis.Analyzer{pleg.Analyzer}})
	if err != nil {
		t.Fatal(err)
	}
	out := run.Root(pleg.Analyzer, tr.Module+"/pkg/kubelet")
	if out == nil || out.Err != nil {
		t.Fatalf("pkg/kubelet: %v", out)
	}
	return out.Result.(*pleg.Result), run.Loaded
}

// The look-alike checkout, loaded from source as the library loads a
// tree (imports stubbed), reads as under go/packages.
func TestRoleFromSource(t *testing.T) {
	tr, err := tree.Open(filepath.Join(testdata(t), "src", "k8s.io", "kubernetes"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := analyseTree(t, tr)
	got := rowOf(res).String()
	want := "role=event-source emits=evented.go:69 cache=evented.go:57 relist=- health=PLEG(generic)@59,EventedPLEG(evented)@61 failure=restore-generic-relist@evented.go:34"
	if got != want {
		t.Errorf("look-alike checkout:\n got %s\nwant %s", got, want)
	}
}

// TestRoleReleases reads the evented PLEG's role in releases from v1.25
// (none built) through v1.37 (a relist trigger). v1.36 also declares an
// EventedPLEG.RequestRelist forwarding to the generic PLEG, never called
// from Start: it is not what the event loop does.
func TestRoleReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	eventSource := "role=event-source emits=evented.go:%d cache=evented.go:%d relist=- health=PLEG(generic)@%d,EventedPLEG(evented)@%d failure=restore-generic-relist@evented.go:%d"
	for _, tc := range []struct{ version, want string }{
		{"v1.25.16", "role=none emits=- cache=- relist=- health=PLEG(generic)@688 failure="},
		{"v1.26.15", fmt.Sprintf(eventSource, 320, 261, 745, 747, 185)},
		{"v1.27.16", fmt.Sprintf(eventSource, 322, 263, 753, 755, 185)},
		{"v1.28.15", fmt.Sprintf(eventSource, 322, 263, 733, 735, 185)},
		{"v1.29.6", fmt.Sprintf(eventSource, 326, 267, 746, 748, 189)},
		{"v1.30.14", fmt.Sprintf(eventSource, 326, 267, 753, 755, 189)},
		{"v1.31.14", fmt.Sprintf(eventSource, 329, 270, 763, 765, 190)},
		{"v1.32.13", fmt.Sprintf(eventSource, 332, 273, 816, 818, 193)},
		{"v1.33.13", fmt.Sprintf(eventSource, 332, 273, 870, 872, 193)},
		{"v1.34.4", fmt.Sprintf(eventSource, 321, 262, 875, 877, 193)},
		{"v1.35.4", fmt.Sprintf(eventSource, 321, 262, 878, 880, 193)},
		{"v1.36.1", fmt.Sprintf(eventSource, 325, 266, 889, 891, 197)},
		{"v1.36.5", fmt.Sprintf(eventSource, 325, 266, 889, 891, 197)},
		{"v1.37.2", "role=relist-trigger emits=- cache=- relist=evented.go:130 [CONTAINER_STOPPED_EVENT] gate=PLEGOnDemandRelist health=PLEG(generic)@903 failure=stop-watching@evented.go:82"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			tr, err := parallelFetcher.Fetch(context.Background(), tc.version, true)
			if err != nil {
				t.Fatal(err)
			}
			res, _ := analyseTree(t, tr)
			row := rowOf(res)
			t.Logf("%s %s", tc.version, row)
			if got := row.String(); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// parallelFetcher fetches for subtests that run at once, while other
// packages' tests fetch the same releases and hold the module cache's
// locks: on a cold cache one fetch may wait far longer than the one-fetch
// default allows, so only go test's -timeout bounds it.
var parallelFetcher = release.Fetcher{Timeout: -1}
