package kubeletcheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// releases are the kubelets the tests run.
func releases() []string {
	if v := os.Getenv("PLEGVET_KUBELETCHECK_RELEASES"); v != "" {
		return strings.Split(v, ",")
	}
	return []string{"v1.37.2"}
}

var (
	prepareOnce sync.Once
	parts       *harness.Parts
	prepareErr  error
)

// prepare readies the host and the shared parts once; a machine that
// cannot run a kubelet skips every test with the reason (fails under CI).
func prepare(t *testing.T) *harness.Parts {
	t.Helper()
	prepareOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		parts, prepareErr = harness.Prepare(ctx, func(f string, a ...any) { fmt.Fprintf(os.Stderr, "kubeletcheck: "+f+"\n", a...) })
	})
	skipOrFail(t, prepareErr)
	return parts
}

// skipOrFail ends the test on err: a skip with the reason when the
// machine cannot run the harness, except under CI (CI=true), where a
// runner that cannot run it must fail rather than pass unseen.
func skipOrFail(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if underCI, _ := strconv.ParseBool(os.Getenv("CI")); errors.Is(err, harness.ErrUnsupported) && !underCI {
		t.Skip(err)
	}
	t.Fatal(err)
}

// The log lines that mark a state, as each release's evented PLEG words
// them (pkg/kubelet/pleg/evented.go).
const (
	// v1.26-v1.36: the evented PLEG restores the generic relist.
	logFellBack = "Fall back to Generic PLEG relisting since Evented PLEG is not working"
	// v1.37: the watcher stops; the generic PLEG keeps its period.
	logStopped = "disabling container-termination fast path after exhausting event stream retries"
	// Both: a stream attempt failed.
	logStreamFailed = "ailed to get container events"
)

// expectation says which verdict plegvet must give for a scrape, from the
// kubelet's log: the state it had logged by the scrape's start. ok is
// false while a state change lies within the scrape (or has not come
// yet), where the log cannot say which state the scrape saw.
type expectation func(log []harness.LogLine, c harness.Capture) (verdict, why string, ok bool)

func always(verdict, why string) expectation {
	return func([]harness.LogLine, harness.Capture) (string, string, bool) { return verdict, why, true }
}

// afterLine expects verdict once line is logged before the scrape began.
func afterLine(line, verdict string) expectation {
	return func(log []harness.LogLine, c harness.Capture) (string, string, bool) {
		l := harness.First(log, line, c.Start)
		if l == nil {
			return "", "", false
		}
		return verdict, fmt.Sprintf("the kubelet logged at %s (%s): %s", l.Time.Format("15:04:05.000000"), l.Source, line), true
	}
}

// streaming expects verdict while the log shows no failed stream.
func streaming(verdict string) expectation {
	return func(log []harness.LogLine, c harness.Capture) (string, string, bool) {
		if l := harness.First(log, logStreamFailed, c.End); l != nil {
			return "", "", false
		}
		return verdict, "the kubelet logged no failed event stream", true
	}
}

type scenario struct {
	name    string
	runtime string // debian | built
	gateOn  bool
	expect  func(release string) expectation
}

// The scenarios of issue 20: the gate unset on each runtime, and on with
// each.
var scenarios = []scenario{
	{"gate-unset/containerd-1.6", "debian", false, func(string) expectation {
		return always(nodeverdict.Generic, "EventedPLEG is unset, and off by default")
	}},
	{"gate-unset/containerd-2", "built", false, func(string) expectation {
		return always(nodeverdict.Generic, "EventedPLEG is unset, and off by default")
	}},
	{"gate-on/containerd-1.6", "debian", true, func(release string) expectation {
		if design(release) == "relist-trigger" {
			return afterLine(logStopped, nodeverdict.FellBack)
		}
		return afterLine(logFellBack, nodeverdict.FellBack)
	}},
	{"gate-on/containerd-2", "built", true, func(release string) expectation {
		if design(release) == "relist-trigger" {
			return streaming(nodeverdict.GenericWithEventHints)
		}
		return streaming(nodeverdict.Evented)
	}},
}

// design is the evented PLEG's design by release, as plegvet's own
// integration tests establish it from source (v1.37: relist-trigger).
func design(release string) string {
	if strings.HasPrefix(release, "v1.37.") {
		return "relist-trigger"
	}
	return "event-source"
}

// TestVerdictAtEveryScrape runs each scenario on each release and
// requires plegvet's verdict on every scrape, from the first the kubelet
// answers, to be the state the kubelet's log shows at that moment.
func TestVerdictAtEveryScrape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs kubelets")
	}
	p := prepare(t)
	for _, release := range releases() {
		t.Run(release, func(t *testing.T) {
			ctx := context.Background()
			bin, err := p.Builder.Kubernetes(ctx, release, "kubelet")
			if err != nil {
				t.Fatal(err)
			}
			src, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release}, release)
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					caps, log := runScenario(t, p, release, bin, sc.runtime, sc.gateOn, false, nil)
					checkVerdicts(t, src, caps, log, sc.expect(release))
				})
			}
		})
	}
}

// runScenario runs one kubelet and returns its captures and log; on
// failure it prints the kubelet's log's last lines. PLEGVET_KUBELETCHECK_OUT
// keeps the captures under that directory.
func runScenario(t *testing.T, p *harness.Parts, release, bin, runtimeName string, gateOn, pod bool, during func(context.Context, *harness.Runtime) error) ([]harness.Capture, []harness.LogLine) {
	t.Helper()
	ctx := context.Background()
	rt, dir, err := p.NewRuntimeNamed(ctx, runtimeName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rt.Stop()
		os.RemoveAll(dir)
	})
	k := &harness.Kubelet{Version: release, Bin: bin, Dir: filepath.Join(dir, "kubelet"), Gates: map[string]bool{}}
	if gateOn {
		k.Gates["EventedPLEG"] = true
	}
	out := ""
	if base := os.Getenv("PLEGVET_KUBELETCHECK_OUT"); base != "" {
		out = filepath.Join(base, release, strings.ReplaceAll(t.Name(), "/", "_"))
	}
	s := &harness.Scenario{Name: t.Name(), Kubelet: k, Runtime: rt, WithPod: pod, Scrapes: 24, Every: 500 * time.Millisecond, Out: out,
		Logf: t.Logf, At: 6}
	if during != nil {
		s.Scrapes = 40
		s.During = func(ctx context.Context) error { return during(ctx, rt) }
	}
	caps, err := s.Run(ctx, p.Image)
	log, lerr := harness.ReadLog(k.Log())
	if out != "" {
		data, _ := os.ReadFile(k.Log())
		os.WriteFile(filepath.Join(out, "kubelet.log"), data, 0o644)
	}
	if err != nil || lerr != nil {
		data, _ := os.ReadFile(k.Log())
		t.Fatalf("%v %v\nkubelet log, last lines:\n%s", err, lerr, harness.LastLines(data, 40))
	}
	return caps, log
}

// checkVerdicts decides each scrape with plegvet and compares it with
// the state the log shows.
func checkVerdicts(t *testing.T, src *plegvet.NodeSource, caps []harness.Capture, log []harness.LogLine, expect expectation) {
	t.Helper()
	ctx := context.Background()
	rt, err := nodeverdict.ReadCrictl("crictl version", caps[0].Crictl)
	if err != nil {
		t.Fatalf("plegvet cannot read what real crictl version printed: %v\n%s", err, caps[0].Crictl)
	}
	plegvet.JudgeRuntime(ctx, rt)
	asserted := 0
	for _, c := range caps {
		if c.Err != nil {
			t.Errorf("scrape %d: %v", c.Index, c.Err)
			continue
		}
		rep := decide(t, src, rt, c.Scrape, fmt.Sprintf("scrape %d", c.Index))
		want, why, ok := expect(log, c)
		elapsed := c.Start.Sub(caps[0].Start).Seconds()
		if !ok {
			t.Logf("scrape %d (+%.1fs): %s; not asserted: the log's state changes within it or has not come", c.Index, elapsed, rep.Verdict)
			continue
		}
		asserted++
		if rep.Verdict != want {
			t.Errorf("scrape %d (+%.1fs, %s): plegvet says %s, want %s: %s\n%s", c.Index, elapsed, c.Dir, rep.Verdict, want, why, reasons(rep))
		}
	}
	if asserted < len(caps)/2 {
		t.Errorf("only %d of %d scrapes could be asserted against the log", asserted, len(caps))
	}
}

// decide gives plegvet's node report on a scrape; a scrape it cannot
// read or decide fails the test, named what.
func decide(t *testing.T, src *plegvet.NodeSource, rt *nodeverdict.Runtime, sc harness.Scrape, what string) *answer.NodeReport {
	t.Helper()
	return decideAt(t, src, rt, sc, time.Time{}, what)
}

// decideAt is decide with the capture's time (zero: none given).
func decideAt(t *testing.T, src *plegvet.NodeSource, rt *nodeverdict.Runtime, sc harness.Scrape, at time.Time, what string) *answer.NodeReport {
	t.Helper()
	cfg, err := nodeverdict.ReadConfigz("configz", sc.Configz)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	met, err := nodeverdict.ReadMetrics("metrics", sc.Metrics)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	c := plegvet.NodeCapture{Config: cfg, Metrics: met, Runtime: rt}
	if !at.IsZero() {
		c.At, c.AtFrom = &at, "the scrape's start"
	}
	rep, err := src.Decide(c)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return rep
}

// kubernetesBins builds (or finds built) the release's kubelet and
// kube-apiserver.
func kubernetesBins(t *testing.T, p *harness.Parts, release string) (kubelet, apiserver string) {
	t.Helper()
	kubelet, apiserver, err := p.NodeBins(context.Background(), release)
	if err != nil {
		t.Fatal(err)
	}
	return kubelet, apiserver
}

func reasons(rep *answer.NodeReport) string {
	var b strings.Builder
	for _, r := range rep.Reasons {
		a := "note"
		if r.Agrees != nil {
			a = strconv.FormatBool(*r.Agrees)
		}
		fmt.Fprintf(&b, "  [%s %s] %s\n", a, r.Points, r.Claim)
	}
	return b.String()
}

// The log lines that show a container's exit reached the kubelet over
// the event stream (pkg/kubelet/pleg/evented.go, -v=4).
const (
	// v1.26-v1.36: the evented PLEG builds the pod's status from the event.
	logEventStatus = "Evented PLEG: Generated pod status from the received event"
	// v1.37: the watcher asks the generic PLEG to relist the pod.
	logEventRelist = "Evented PLEG: requested pod relist after container termination"
)

// TestContainerKilled runs the static pod with the gate on against the
// containerd that streams, kills the pod's container, and requires the
// exit to reach the kubelet over the stream (its log, and in event-source
// releases its event counter) while plegvet's verdict stays what it was
// at every scrape.
func TestContainerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs kubelets")
	}
	p := prepare(t)
	for _, release := range releases() {
		t.Run(release, func(t *testing.T) {
			ctx := context.Background()
			bin, err := p.Builder.Kubernetes(ctx, release, "kubelet")
			if err != nil {
				t.Fatal(err)
			}
			src, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release}, release)
			if err != nil {
				t.Fatal(err)
			}
			var killed time.Time
			caps, log := runScenario(t, p, release, bin, "built", true, true, func(ctx context.Context, rt *harness.Runtime) error {
				var err error
				killed, err = rt.KillContainer(ctx, "sleeper")
				return err
			})
			want, line := nodeverdict.Evented, logEventStatus
			if design(release) == "relist-trigger" {
				want, line = nodeverdict.GenericWithEventHints, logEventRelist
			}
			checkVerdicts(t, src, caps, log, streaming(want))
			var seen *harness.LogLine
			for i := range log {
				if log[i].Time.After(killed) && strings.Contains(log[i].Text, line) {
					seen = &log[i]
					break
				}
			}
			if seen == nil {
				t.Fatalf("the kubelet did not log %q after the container was killed at %s", line, killed.Format("15:04:05.000"))
			}
			t.Logf("killed at %s; the kubelet logged at %s (%s): %s", killed.Format("15:04:05.000000"), seen.Time.Format("15:04:05.000000"), seen.Source, line)
			if design(release) == "event-source" {
				last := caps[len(caps)-1]
				n, ok := harness.Metric(last.Metrics, "kubelet_evented_pleg_connection_latency_seconds_count")
				if !ok || n == "0" {
					t.Errorf("the last scrape counts no event received over the stream: kubelet_evented_pleg_connection_latency_seconds_count %q", n)
				}
			}
		})
	}
}
