package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// savedRunFile is the file Save writes the run's header to.
const savedRunFile = "run.json"

// savedRun is run.json: what a run was, beside what it saw.
type savedRun struct {
	Release  string          `json:"release"`
	Fault    Fault           `json:"fault"`
	Describe string          `json:"describe"`
	Gates    map[string]bool `json:"gates,omitempty"`
	Every    time.Duration   `json:"every"`
	Took     time.Duration   `json:"took"`
}

// savedRounds is rounds.json.
type savedRounds struct {
	Frozen time.Time   `json:"frozen"`
	Thawed time.Time   `json:"thawed"`
	Rounds []KeptRound `json:"rounds"`
}

// knownGates are the feature gates a run's name may end in, lower case
// (Name): an older save has no run.json to read them from.
var knownGates = []string{"EventedPLEG"}

// LoadRun reads a run Save wrote under dir back into a FaultRun: what
// the tables and the picture read of it. A round's /metrics body is
// rebuilt from the two samples rounds.json keeps of it
// (kubelet_pleg_last_seen_seconds and the relist count), its Prometheus
// series from the kept up, scrape durations and kube-state-metrics
// Ready, its targets from the kept errors; the goroutine dumps from
// their files. Lost names what the save did not hold (an older Save's),
// and what stands in for it.
func LoadRun(dir string) (run *FaultRun, lost []string, err error) {
	var rs savedRounds
	if err := readJSON(filepath.Join(dir, "rounds.json"), &rs); err != nil {
		return nil, nil, err
	}
	run = &FaultRun{Frozen: rs.Frozen, Thawed: rs.Thawed}
	var head savedRun
	switch err := readJSON(filepath.Join(dir, savedRunFile), &head); {
	case err == nil:
		run.Release, run.Fault, run.Gates, run.Every, run.Took = head.Release, head.Fault, head.Gates, head.Every, head.Took
	case errors.Is(err, fs.ErrNotExist):
		run.Fault, run.Gates = faultNamed(filepath.Base(dir), run.Thawed.Sub(run.Frozen))
		lost = append(lost, fmt.Sprintf("%s: the release, the fault's timing and how long the run took (the fault %q and its gates read from the directory's name)", savedRunFile, run.Fault.Kind))
	default:
		return nil, nil, err
	}
	noAlertsAt := false
	for _, k := range rs.Rounds {
		o := restore(k)
		if k.AlertsAt.IsZero() {
			o.AlertsAt, noAlertsAt = k.Start, true
		}
		if data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("node-%03d.json", k.Index))); err == nil {
			o.Node = data
		}
		run.Rounds = append(run.Rounds, o)
	}
	if noAlertsAt {
		lost = append(lost, "rounds.json alertsAt: an alert's moment is its round's start (Prometheus's alerts were read beside the round's requests)")
	}
	if run.Every == 0 {
		run.Every = roundPeriod(run.Rounds)
	}
	for _, f := range []struct {
		name string
		into any
		// Save writes delays.json only for a latency run's proxy.
		optional bool
	}{{"kubectl-pleg.json", &run.Pleg, false}, {"patient.json", &run.Patient, false}, {"delays.json", &run.Delays, true},
		// Saves before the server's paths were asked have none.
		{"patient-paths.json", &run.PatientPaths, true}} {
		if err := readJSON(filepath.Join(dir, f.name), f.into); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		} else if err != nil && !f.optional {
			lost = append(lost, f.name)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "proxy.txt")); err == nil {
		run.Stall = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if run.Fault.Kind == FaultLatency && run.Fault.Latency == 0 {
			run.Fault.Latency = proxyLatency(run.Stall)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "rules.yml")); err == nil {
		run.Rules = string(data)
	} else {
		lost = append(lost, "rules.yml (the rules Prometheus ran)")
	}
	run.Crictl, _ = os.ReadFile(filepath.Join(dir, "crictl.txt"))
	run.Configz, _ = os.ReadFile(filepath.Join(dir, "configz.json"))
	if run.Dumps, err = loadDumps(dir); err != nil {
		return nil, nil, err
	}
	if run.Log, err = ReadLogOf(filepath.Join(dir, "kubelet.log"), run.Frozen.UTC().Year()); err != nil {
		return nil, nil, err
	}
	return run, lost, nil
}

func readJSON(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// restore is the round a KeptRound keeps, as far as it keeps it.
func restore(k KeptRound) Round {
	r := Round{MetricsAnswer: k.Metrics, Answers: k.Answers, Series: map[string][]Sample{}}
	r.Index, r.Start, r.End = k.Index, k.Start, k.Metrics.Start.Add(k.Metrics.Took)
	r.Ready, r.Alerts, r.AlertsAt = k.Ready, k.Alerts, k.AlertsAt
	if k.ReadyErr != "" {
		r.ReadyErr = errors.New(k.ReadyErr)
	}
	if k.AlertsErr != "" {
		r.AlertsErr = errors.New(k.AlertsErr)
	}
	if a := k.Metrics; a.OK() {
		var body strings.Builder
		for name, v := range map[string]float64{"kubelet_pleg_last_seen_seconds": k.LastSeen, MetricRelists: k.Relists} {
			if v != 0 {
				fmt.Fprintf(&body, "%s %s\n", name, strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		r.Metrics = []byte(body.String())
	} else {
		r.Err = errors.New(a.Err)
		if a.Err == "" {
			r.Err = fmt.Errorf("GET /metrics: %d", a.Status)
		}
	}
	at := float64(k.Start.UnixMilli()) / 1000
	for query, values := range map[string]map[string]float64{Queries[0]: k.Up, Queries[1]: k.Durations} {
		for path, v := range values {
			r.Series[query] = append(r.Series[query], Sample{Metric: map[string]string{"metrics_path": path}, Value: [2]any{at, strconv.FormatFloat(v, 'f', -1, 64)}})
		}
	}
	if k.KSMReady != "" {
		r.Series[QueryReady] = []Sample{{Metric: map[string]string{"condition": "Ready", "status": k.KSMReady}, Value: [2]any{at, "1"}}}
	}
	for path, e := range k.Errors {
		r.Targets = append(r.Targets, Target{Labels: map[string]string{"metrics_path": path}, LastError: e})
	}
	return r
}

// faultNamed is the fault (and the gates set on) a run's directory
// names (Name), lasting for d.
func faultNamed(name string, d time.Duration) (Fault, map[string]bool) {
	var f Fault
	rest := name
	for _, c := range []Fault{{Kind: FaultHeld}, {Kind: FaultStopped}, {Kind: FaultFrozen}} {
		if strings.HasPrefix(name, c.Name()) {
			f, rest = c, strings.TrimPrefix(name, c.Name())
			break
		}
	}
	if f.Kind == "" {
		if m := regexp.MustCompile(`^runtime-slow-([0-9a-zµ.]+?)((-[a-z]+)*)$`).FindStringSubmatch(name); m != nil {
			l, _ := time.ParseDuration(m[1])
			// A rung lasts a whole number of ten seconds; the measured
			// span a little more.
			f, rest = Latency(l, d.Truncate(10*time.Second)), m[2]
		}
	}
	gates := map[string]bool{}
	for _, g := range strings.Split(strings.TrimPrefix(rest, "-"), "-") {
		for _, k := range knownGates {
			if g == strings.ToLower(k) {
				gates[k] = true
			}
		}
	}
	if len(gates) == 0 {
		gates = nil
	}
	return f, gates
}

// proxyLatency is the latency the proxy's account says it set first
// ("HH:MM:SS.mmm latency 40s").
func proxyLatency(stall []string) time.Duration {
	for _, l := range stall {
		if f := strings.Fields(l); len(f) == 3 && f[1] == "latency" {
			if d, err := time.ParseDuration(f[2]); err == nil && d > 0 {
				return d
			}
		}
	}
	return 0
}

// roundPeriod is the rounds' period: the median time between two
// starts, to the second.
func roundPeriod(rounds []Round) time.Duration {
	var gaps []time.Duration
	for i := 1; i < len(rounds); i++ {
		gaps = append(gaps, rounds[i].Start.Sub(rounds[i-1].Start))
	}
	if len(gaps) == 0 {
		return 0
	}
	sort.Slice(gaps, func(i, j int) bool { return gaps[i] < gaps[j] })
	return gaps[len(gaps)/2].Round(time.Second)
}

// dumpHeader is the first line Save writes a goroutine dump under.
var dumpHeader = regexp.MustCompile(`^# GET (\S+) at (\S+) \([^)]*\), took (\S+), status (\d+), error (".*")$`)

// loadDumps reads the goroutine dumps Save wrote (goroutines-N.txt).
func loadDumps(dir string) ([]Dump, error) {
	var dumps []Dump
	for i := 0; ; i++ {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("goroutines-%d.txt", i)))
		if errors.Is(err, fs.ErrNotExist) {
			return dumps, nil
		} else if err != nil {
			return nil, err
		}
		head, text, _ := strings.Cut(string(data), "\n")
		m := dumpHeader.FindStringSubmatch(head)
		if m == nil {
			return nil, fmt.Errorf("goroutines-%d.txt: its first line %q is not Save's", i, head)
		}
		d := Dump{Text: text}
		d.Path = m[1]
		d.Start, _ = time.Parse(time.RFC3339Nano, m[2])
		d.Took, _ = time.ParseDuration(m[3])
		d.Status, _ = strconv.Atoi(m[4])
		d.Err, _ = strconv.Unquote(m[5])
		dumps = append(dumps, d)
	}
}
