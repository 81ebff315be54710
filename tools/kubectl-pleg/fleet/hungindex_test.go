package fleet

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// Hung v1.37.2 kubelets decided with no Go toolchain on PATH, from the
// index built into the binary: each row's cause names, itself, the chain
// a hung runtime holds /metrics on (the collector, the stats provider,
// the CRI method) and the CRI calls' deadline (configz's, where the
// source gives it to the CRI client, the source's default); the
// evidence gives each call with its line. plegvet node, reading the files
// --save wrote, from the index too, gives the same health.
func TestSaveHungFromTheIndex(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no go command: the index answers, or nothing does
	hung := func(name string) fakecluster.Node {
		return fakecluster.Node{Name: name, KubeletVersion: "v1.37.2", RuntimeVersion: "containerd://2.1.4", MetricsDelay: time.Minute}
	}
	n1, n2 := hung("hung-1"), hung("hung-2")
	n1.Ready = readyTrue(5 * time.Second)
	n2.Ready = fakecluster.RuntimeDownNotReady(3*time.Minute+19*time.Second, 10*time.Second)
	kc := start(t, &fakecluster.Cluster{Nodes: []fakecluster.Node{n1, n2}})
	hooks := newRecorder(t).hooks()
	hooks.LoadSource = nil // plegvet's own: the index
	dir := t.TempDir()
	code, js, stderr := runMain(t, hooks, "--kubeconfig", kc, "--metrics-timeout", "1s", "--save", dir, "-o", "json")
	if code != exitInconsistent {
		t.Fatalf("exit code %d; want %d for hung-2's unhealthy PLEG\n%s", code, exitInconsistent, stderr)
	}
	var rows []struct {
		Node   string
		Source answer.Source
		Health json.RawMessage
	}
	if err := json.Unmarshal([]byte(js), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%v\n%s", err, js)
	}
	const (
		chain   = "a hung runtime holds /metrics on collectors.NewVolumeStatsCollector, through the stats provider criStatsProvider, to RuntimeService.ListContainerStats, each call for its deadline"
		timeout = "(runtimeRequestTimeout 2m0s, from configz, given to the CRI client at pkg/kubelet/kubelet.go:416; the source's default 2m0s (pkg/kubelet/apis/config/v1beta1/defaults.go:188))"
		calls   = "metrics.RegisterCollectors(collectors.NewVolumeStatsCollector) (pkg/kubelet/kubelet.go:1776) > volumeStatsCollector.CollectWithStability"
	)
	for _, r := range rows {
		var h nodeverdict.Health
		if err := json.Unmarshal(r.Health, &h); err != nil {
			t.Fatal(err)
		}
		if r.Source.From != answer.FromIndex || !strings.Contains(h.Cause, chain) || !strings.Contains(h.Cause, timeout) ||
			!strings.Contains(strings.Join(h.Evidence, "\n"), calls) {
			t.Errorf("%s: source from %q, health %s\ncause: %s\n%s", r.Node, r.Source.From, h.State, h.Cause, strings.Join(h.Evidence, "\n"))
		}
		rep, err := plegvet.Node(context.Background(), plegvet.NodeOptions{NodeFiles: plegvet.NodeFiles{SkipRuntimeSource: true,
			Configz: filepath.Join(dir, r.Node+".configz.json"), MetricsErrorFile: filepath.Join(dir, r.Node+".metrics-error.txt"), Node: filepath.Join(dir, r.Node+".node.json")}})
		if err != nil {
			t.Fatal(err)
		}
		have, _ := json.Marshal(rep.Health)
		if want := compact(t, r.Health); string(have) != string(want) {
			t.Errorf("%s: plegvet node on the saved files:\n%s\nkubectl pleg:\n%s", r.Node, have, want)
		}
	}
}
