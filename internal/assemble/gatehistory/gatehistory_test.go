package gatehistory

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featuregates"
)

// spec builds an unversioned spec at a line of kube_features.go.
func histSpec(stage string, def, locked bool, line int) answer.Spec {
	return answer.Spec{PreRelease: featuregates.PreRelease(stage), Default: def, LockToDefault: locked, Pos: answer.Pos{File: "pkg/features/kube_features.go", Line: line, Column: 3}}
}

// read is a release that declares the gates given.
func histRead(version string, gates ...answer.Gate) Read {
	return Read{Version: version, Gates: &answer.GatesReport{SchemaVersion: answer.SchemaVersion, Source: answer.Source{Dir: "k8s.io/kubernetes@" + version, KubernetesVersion: version}, Gates: gates}}
}

// failed is a release that could not be read.
func histFailed(version string) Read {
	return Read{Version: version, Err: fmt.Errorf("cannot fetch k8s.io/kubernetes@%s", version)}
}

func histGate(name string, specs ...answer.Spec) answer.Gate {
	return answer.Gate{Name: name, Format: "unversioned", Specs: specs}
}

func histChanges(h answer.GateTimeline) []string {
	var out []string
	for _, c := range h.Changes {
		out = append(out, c.KubernetesVersion+" "+c.What)
	}
	return out
}

func TestGateHistoryChanges(t *testing.T) {
	tests := []struct {
		name  string
		reads []Read
		want  []string
	}{{
		name: "an absence where staging modules were not fetched is not known",
		reads: []Read{
			func() Read {
				r := histRead("v1.25.0")
				r.Gates.Unfetched = []string{"staging/src/k8s.io/sample-apiserver: not served"}
				return r
			}(),
			histRead("v1.26.0", histGate("G", histSpec("Alpha", false, false, 10))),
		},
		want: []string{"v1.26.0 added (Alpha, default false) (v1.25.0: 1 staging module not fetched)"},
	}, {
		name: "an absence where staging modules were not fetched but the gate's own module was read is known",
		reads: []Read{
			func() Read {
				r := histRead("v1.25.0")
				r.Gates.Unfetched = []string{"staging/src/k8s.io/sample-apiserver: not served"}
				return r
			}(),
			func() Read {
				g := histGate("G", histSpec("Alpha", false, false, 10))
				g.Module = "k8s.io/kubernetes"
				return histRead("v1.26.0", g)
			}(),
		},
		want: []string{"v1.26.0 added (Alpha, default false)"},
	}, {
		name: "an absence where the gate's own module was not fetched is not known",
		reads: []Read{
			func() Read {
				r := histRead("v1.25.0")
				r.Gates.Unfetched = []string{"staging/src/k8s.io/kubernetes: not served", "staging/src/k8s.io/sample-apiserver: not served"}
				return r
			}(),
			func() Read {
				g := histGate("G", histSpec("Alpha", false, false, 10))
				g.Module = "k8s.io/sample-apiserver"
				return histRead("v1.26.0", g)
			}(),
		},
		want: []string{"v1.26.0 added (Alpha, default false) (v1.25.0: 2 staging modules not fetched)"},
	}, {
		name: "added then promoted, flipped, locked, removed",
		reads: []Read{
			histRead("v1.25.0"),
			histRead("v1.26.0", histGate("G", histSpec("Alpha", false, false, 10))),
			histRead("v1.27.0", histGate("G", histSpec("Beta", false, false, 11))),
			histRead("v1.28.0", histGate("G", histSpec("Beta", true, false, 12))),
			histRead("v1.29.0", histGate("G", histSpec("GA", true, true, 13))),
			histRead("v1.30.0"),
		},
		want: []string{
			"v1.26.0 added (Alpha, default false)",
			"v1.27.0 promoted Alpha -> Beta",
			"v1.28.0 default flipped false -> true",
			"v1.29.0 promoted Beta -> GA",
			"v1.29.0 locked to default",
			"v1.30.0 removed",
		},
	}, {
		name: "a reverted Beta: demoted, default flipped back, unlocked",
		reads: []Read{
			histRead("v1.27.0", histGate("G", histSpec("Beta", true, true, 10))),
			histRead("v1.27.9", histGate("G", histSpec("Alpha", false, false, 10))),
		},
		want: []string{"v1.27.9 demoted Beta -> Alpha", "v1.27.9 default flipped true -> false", "v1.27.9 unlocked"},
	}, {
		name: "present from the first release, unchanged: no change",
		reads: []Read{
			histRead("v1.26.0", histGate("G", histSpec("Alpha", false, false, 10))),
			histRead("v1.27.0", histGate("G", histSpec("Alpha", false, false, 99))),
		},
		want: nil,
	}, {
		name: "deprecated, and added locked",
		reads: []Read{
			histRead("v1.30.0"),
			histRead("v1.31.0", histGate("G", histSpec("GA", true, true, 10))),
			histRead("v1.32.0", histGate("G", histSpec("Deprecated", true, true, 10))),
		},
		want: []string{"v1.31.0 added (GA, default true, locked)", "v1.32.0 deprecated (was GA)"},
	}, {
		name: "a stage that could not be read",
		reads: []Read{
			histRead("v1.30.0", histGate("G", histSpec("Alpha", false, false, 10))),
			histRead("v1.31.0", histGate("G", histSpec("", false, false, 10))),
		},
		want: []string{"v1.31.0 stage Alpha -> unknown stage"},
	}, {
		name: "a release that could not be read is skipped, and the change says so",
		reads: []Read{
			histRead("v1.26.0", histGate("G", histSpec("Alpha", false, false, 10))),
			histFailed("v1.27.0"),
			histRead("v1.28.0", histGate("G", histSpec("Beta", false, false, 10))),
		},
		want: []string{"v1.28.0 promoted Alpha -> Beta (since v1.26.0; v1.27.0 not read)"},
	}, {
		name: "a gate with no readable spec is compared in existence only",
		reads: []Read{
			histRead("v1.25.0"),
			histRead("v1.26.0", histGate("G")),
			histRead("v1.27.0", histGate("G", histSpec("Beta", false, false, 10))),
			histRead("v1.28.0"),
		},
		want: []string{"v1.26.0 added", "v1.28.0 removed"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Of(tt.reads, []string{"G"}, source)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Gates) != 1 {
				t.Fatalf("got %d gates, want 1", len(rep.Gates))
			}
			if got := histChanges(rep.Gates[0]); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes:\n got %q\nwant %q", got, tt.want)
			}
			if got := len(rep.Gates[0].Releases); got != len(tt.reads) {
				t.Errorf("got %d rows, want one per release, %d", got, len(tt.reads))
			}
		})
	}
}

func TestGateHistoryRows(t *testing.T) {
	versioned := answer.Gate{Name: "G", Format: "versioned", Specs: []answer.Spec{
		{Version: "1.26", PreRelease: "Alpha", Pos: answer.Pos{File: "f.go", Line: 1}},
		{Version: "1.28", PreRelease: "Beta", Default: true, Pos: answer.Pos{File: "f.go", Line: 2}},
	}}
	rep, err := Of([]Read{
		histRead("v1.25.16"),
		histRead("v1.27.3", versioned), // names a later spec, not yet in force
		histRead("v1.28.0", versioned),
		histFailed("v1.29.0"),
	}, []string{"G"}, source)
	if err != nil {
		t.Fatal(err)
	}
	rows := rep.Gates[0].Releases
	if r := rows[0]; r.Exists || r.Effective != nil || r.Newest != "" || r.Error != "" {
		t.Errorf("v1.25.16: got %+v, want a gate that does not exist", r)
	}
	if r := rows[1]; !r.Exists || r.Effective == nil || r.Effective.PreRelease != "Alpha" || r.Effective.Version != "1.26" || r.Newest != "1.28" || r.Effective.Pos.Line != 1 {
		t.Errorf("v1.27.3: got %+v, want the 1.26 Alpha spec in force, the newest naming 1.28", r)
	}
	if r := rows[2]; r.Effective == nil || r.Effective.PreRelease != "Beta" || !r.Effective.Default || r.Effective.Pos.Line != 2 {
		t.Errorf("v1.28.0: got %+v, want the 1.28 Beta spec in force", r)
	}
	if r := rows[3]; r.Exists || r.Error != "cannot fetch k8s.io/kubernetes@v1.29.0" {
		t.Errorf("v1.29.0: got %+v, want its error", r)
	}
	if got := histChanges(rep.Gates[0]); !reflect.DeepEqual(got, []string{"v1.27.3 added (Alpha, default false)", "v1.28.0 promoted Alpha -> Beta", "v1.28.0 default flipped false -> true"}) {
		t.Errorf("changes: got %q", got)
	}
	if len(rep.Releases) != 4 || rep.Releases[3].Error == "" || rep.Releases[1].Source.KubernetesVersion != "v1.27.3" {
		t.Errorf("releases: got %+v", rep.Releases)
	}
}

func TestGateHistoryNames(t *testing.T) {
	old := answer.Gate{Name: "OldName", Const: "QuotaPeriod", Specs: []answer.Spec{histSpec("Alpha", false, false, 1)}}
	renamed := answer.Gate{Name: "NewName", Const: "QuotaPeriod", Specs: []answer.Spec{histSpec("Beta", true, false, 1)}}
	reads := []Read{
		histRead("v1.30.0", old, histGate("B", histSpec("Alpha", false, false, 2))),
		histRead("v1.31.0", renamed, histGate("A", histSpec("Alpha", false, false, 3))),
	}

	// The constant's identifier names the gate; its name is the newest release's.
	rep, err := Of(reads, []string{"QuotaPeriod"}, source)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Gates) != 1 || rep.Gates[0].Name != "NewName" {
		t.Fatalf("got %+v, want one gate, NewName", rep.Gates)
	}
	if rows := rep.Gates[0].Releases; !rows[0].Exists || !rows[1].Exists {
		t.Errorf("got %+v, want the gate in both releases", rows)
	}

	// A gate named twice (by name and constant) is one gate; order is as given.
	rep, err = Of(reads, []string{"B", "NewName", "QuotaPeriod"}, source)
	if err != nil {
		t.Fatal(err)
	}
	if got := histNames(rep); !reflect.DeepEqual(got, []string{"B", "NewName"}) {
		t.Errorf("got %q, want [B NewName]", got)
	}

	// No names: every gate any release declares, sorted.
	rep, err = Of(reads, nil, source)
	if err != nil {
		t.Fatal(err)
	}
	if got := histNames(rep); !reflect.DeepEqual(got, []string{"A", "B", "NewName", "OldName"}) {
		t.Errorf("got %q, want [A B NewName OldName]", got)
	}
}

func histNames(rep *answer.GateHistoryReport) []string {
	var out []string
	for _, g := range rep.Gates {
		out = append(out, g.Name)
	}
	return out
}

func TestGateHistoryErrors(t *testing.T) {
	reads := []Read{histRead("v1.30.0", histGate("A")), histFailed("v1.31.0"), histRead("v1.32.0", histGate("A"))}
	_, err := Of(reads, []string{"A", "NoSuchGate"}, source)
	if u := (*UnknownName)(nil); !errors.As(err, &u) || u.Name != "NoSuchGate" || !reflect.DeepEqual(u.Releases, []string{"v1.30.0", "v1.32.0"}) {
		t.Errorf("got %v, want an error naming NoSuchGate and the releases read", err)
	}
	_, err = Of(reads[:1], []string{"NoSuchGate"}, source)
	if u := (*UnknownName)(nil); !errors.As(err, &u) || u.Name != "NoSuchGate" || !reflect.DeepEqual(u.Releases, []string{"v1.30.0"}) {
		t.Errorf("got %v, want an error naming NoSuchGate and the release", err)
	}
	_, err = Of([]Read{histFailed("v1.30.0"), histFailed("v1.31.0")}, []string{"A"}, source)
	if err == nil || err.Error() != "none of the 2 releases could be read; v1.30.0: cannot fetch k8s.io/kubernetes@v1.30.0" {
		t.Errorf("got %v, want an error saying no release could be read", err)
	}
	_, err = Of(nil, []string{"A"}, source)
	if err == nil {
		t.Error("no releases: got no error")
	}
	// An error that spans lines is kept to one.
	rep, err := Of([]Read{histRead("v1.30.0", histGate("A")), {Version: "v1.31.0", Err: errors.New("go: line one\n\tline two")}}, []string{"A"}, source)
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Gates[0].Releases[1].Error; got != "go: line one line two" {
		t.Errorf("got %q, want the error on one line", got)
	}
}

func TestGateHistorySortsVersions(t *testing.T) {
	got := SortVersions([]string{"v1.30.0", "v1.9.1", "junk", "v1.30.0", "v1.29.15", "v1.29.2"})
	want := []string{"v1.9.1", "v1.29.2", "v1.29.15", "v1.30.0", "junk"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGateHistoryEachRelease(t *testing.T) {
	versions := []string{"v1.25.0", "v1.26.0", "v1.27.0", "v1.28.0", "v1.29.0"}
	var mu sync.Mutex
	var dones []int
	got := Each(versions, 2, func(done, total int, v string) {
		mu.Lock()
		defer mu.Unlock()
		if total != len(versions) {
			t.Errorf("progress total %d, want %d", total, len(versions))
		}
		dones = append(dones, done)
	}, func(v string) string { return "answer " + v })
	for i, v := range versions {
		if got[i] != "answer "+v {
			t.Errorf("answer %d: got %q, want the answer for %s, in order", i, got[i], v)
		}
	}
	if !reflect.DeepEqual(dones, []int{1, 2, 3, 4, 5}) {
		t.Errorf("progress: got %v, want 1 to 5", dones)
	}
}

// source is a release's Source when it was not read.
func source(version string) answer.Source {
	return answer.Source{Dir: "k8s.io/kubernetes@" + version, KubernetesVersion: version}
}
