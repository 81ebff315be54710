package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInspections counts the pods each relist inspected from the
// kubelet's own lines, and only those within the fault.
func TestInspections(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 11, 0, 0, 0, time.UTC)
	line := func(s int, raw string) LogLine {
		return LogLine{Time: t0.Add(time.Duration(s) * time.Second), Raw: raw}
	}
	listed := `I1207 kuberuntime_manager.go:484] "Retrieved pods from runtime" all=true`
	wrote := `I1207 generic.go:534] "PLEG: Write status" pod="default/load-001-plegvet-node"`
	run := &FaultRun{Fault: Overload(time.Second, time.Minute, 3), Frozen: t0.Add(10 * time.Second), Thawed: t0.Add(100 * time.Second), Log: []LogLine{
		line(5, listed), line(6, wrote), // before the fault
		line(12, listed), line(14, wrote), line(16, wrote),
		line(17, listed), // the image garbage collector's, amid the inspections
		line(18, wrote),
		line(20, `I1207 kuberuntime_manager.go:484] "Retrieved pods from runtime" all=false`),
		line(22, wrote),
		line(30, listed),
		line(40, listed), line(42, wrote),
		line(101, listed), line(102, wrote), // after it
	}}
	ins := run.Inspections()
	var got []int
	for _, i := range ins {
		got = append(got, i.Pods)
	}
	if len(got) != 3 || got[0] != 4 || got[1] != 0 || got[2] != 1 {
		t.Fatalf("pods inspected per relist = %v, want [4 0 1]", got)
	}
	most, ok := MostInspected(ins)
	if !ok || most.Pods != 4 || most.Last.Sub(most.Listed) != 10*time.Second {
		t.Errorf("MostInspected = %+v %v, want 4 pods stored over 10s", most, ok)
	}
	if _, ok := MostInspected(ins[1:2]); ok {
		t.Errorf("a relist that inspected nothing counts as inspecting")
	}
}

// TestAddStaticPods writes n manifests, each its own pod and container,
// beside the one StaticPod.
func TestAddStaticPods(t *testing.T) {
	k := &Kubelet{Dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(k.Dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := k.AddStaticPods(3); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"load-000", "load-001", "load-002"} {
		b, err := os.ReadFile(filepath.Join(k.Dir, "manifests", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(b), "name: "+name+"\n") != 2 || !strings.Contains(string(b), "imagePullPolicy: Never") {
			t.Errorf("%s.yaml:\n%s", name, b)
		}
	}
	if es, _ := os.ReadDir(filepath.Join(k.Dir, "manifests")); len(es) != 3 {
		t.Errorf("%d manifests, want 3", len(es))
	}
	f := Overload(time.Second, 10*time.Minute, 100)
	if f.Name() != "runtime-slow-1s-100pods" || !strings.Contains(f.Describe(), "100 static pods are started at once") {
		t.Errorf("Overload: %q, %q", f.Name(), f.Describe())
	}
}

// TestKubeletConfig keeps every setting the harness asks for: the gates
// beside the profiling handlers and maxPods (gates once replaced them).
func TestKubeletConfig(t *testing.T) {
	k := &Kubelet{Gates: map[string]bool{"EventedPLEG": true}, Profiling: true, MaxPods: 161}
	conf := k.config(&Runtime{Sock: "/run/c.sock"})
	for _, want := range []string{"featureGates:\n  EventedPLEG: true\n", "enableProfilingHandler: true\n", "maxPods: 161\n"} {
		if !strings.Contains(conf, want) {
			t.Errorf("the configuration lacks %q:\n%s", want, conf)
		}
	}
}
