package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/plegvet/plegvet/nodeverdict"
)

// KeptRound is one round's entry in rounds.json: what every read of the
// round gave, without the bodies.
type KeptRound struct {
	Index     int                `json:"index"`
	Start     time.Time          `json:"start"`
	Metrics   Answer             `json:"metrics"`
	Answers   []Answer           `json:"endpoints"`
	Ready     Condition          `json:"ready"`
	ReadyErr  string             `json:"readyError,omitempty"`
	AlertsAt  time.Time          `json:"alertsAt"`
	Alerts    []Alert            `json:"alerts"`
	AlertsErr string             `json:"alertsError,omitempty"`
	Up        map[string]float64 `json:"up"`
	Durations map[string]float64 `json:"scrapeDurationSeconds"`
	Errors    map[string]string  `json:"targetErrors,omitempty"`
	LastSeen  float64            `json:"kubeletPlegLastSeenSeconds,omitempty"`
	Relists   float64            `json:"kubeletPlegRelistCount,omitempty"`
	KSMReady  string             `json:"kubeStateMetricsReady,omitempty"`
}

func (r *Round) kept() KeptRound {
	k := KeptRound{Index: r.Index, Start: r.Start, Metrics: r.MetricsAnswer, Answers: r.Answers, Ready: r.Ready,
		Alerts: r.Alerts, Up: r.Up(), Durations: r.Durations(), LastSeen: r.LastSeen(),
		Relists: r.Relists(), KSMReady: r.KSMReady()}
	k.AlertsAt = r.AlertsAt
	if r.ReadyErr != nil {
		k.ReadyErr = r.ReadyErr.Error()
	}
	if r.AlertsErr != nil {
		k.AlertsErr = r.AlertsErr.Error()
	}
	for _, t := range r.Targets {
		if t.LastError != "" {
			if k.Errors == nil {
				k.Errors = map[string]string{}
			}
			k.Errors[t.Labels["metrics_path"]] = t.LastError
		}
	}
	return k
}

// Save writes everything the run saw under dir, for reading by hand
// and for LoadRun: run.json (the release, the fault, the gates, the
// round, how long the run took), rounds.json, kubectl-pleg.json,
// patient.json, relists.json, rules.yml, crictl.txt, configz.json,
// delays.json, each goroutine dump whole and its blocked handlers
// trimmed, the Node object of every round whose Ready changed, the last
// good scrape, the kubelet's log.
func (r *FaultRun) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, data []byte) error { return os.WriteFile(filepath.Join(dir, name), data, 0o644) }
	js := func(name string, v any) error {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		return write(name, append(data, '\n'))
	}
	header := savedRun{Release: r.Release, Fault: r.Fault, Describe: r.Fault.Describe(), Gates: r.Gates, Every: r.Every, Took: r.Took}
	if err := js(savedRunFile, header); err != nil {
		return err
	}
	for name, data := range map[string]string{"rules.yml": r.Rules, "crictl.txt": string(r.Crictl), "configz.json": string(r.Configz)} {
		if data == "" {
			continue
		}
		if err := write(name, []byte(data)); err != nil {
			return err
		}
	}
	if len(r.Delays) > 0 {
		if err := js("delays.json", r.Delays); err != nil {
			return err
		}
	}
	var rounds []KeptRound
	for i := range r.Rounds {
		rounds = append(rounds, r.Rounds[i].kept())
	}
	if err := js("rounds.json", map[string]any{"frozen": r.Frozen, "thawed": r.Thawed, "rounds": rounds}); err != nil {
		return err
	}
	if err := js("kubectl-pleg.json", r.Pleg); err != nil {
		return err
	}
	if err := js("patient.json", r.Patient); err != nil {
		return err
	}
	if err := js("patient-paths.json", r.PatientPaths); err != nil {
		return err
	}
	if err := js("relists.json", r.RelistSamples()); err != nil {
		return err
	}
	if len(r.Stall) > 0 {
		if err := write("proxy.txt", []byte(strings.Join(r.Stall, "\n")+"\n")); err != nil {
			return err
		}
	}
	for i, d := range r.Dumps {
		if err := write(fmt.Sprintf("goroutines-%d.txt", i), []byte(fmt.Sprintf("# GET %s at %s (%.0fs after the fault), took %s, status %d, error %q\n%s",
			d.Path, d.Start.UTC().Format(time.RFC3339Nano), d.Start.Sub(r.Frozen).Seconds(), d.Took, d.Status, d.Err, d.Text))); err != nil {
			return err
		}
		if err := write(fmt.Sprintf("blocked-%d.txt", i), []byte(r.BlockedText(d))); err != nil {
			return err
		}
	}
	prev := ""
	for _, o := range r.Rounds {
		key := o.Ready.Status + o.Ready.Message
		if key != prev && o.Node != nil {
			if err := write(fmt.Sprintf("node-%03d.json", o.Index), o.Node); err != nil {
				return err
			}
		}
		prev = key
	}
	tl := r.Timeline(nil)
	if tl.LastGood != nil {
		if err := write("last-good-metrics.txt", TrimMetrics(tl.LastGood.Metrics, tl.LastGood.Start)); err != nil {
			return err
		}
	}
	var log strings.Builder
	for _, l := range r.Log {
		log.WriteString(l.Raw + "\n")
	}
	return write("kubelet.log", []byte(log.String()))
}

// BlockedText is a dump's goroutines waiting on a CRI call, trimmed:
// first those serving an HTTP request (a kubelet endpoint's handler),
// then the others.
func (r *FaultRun) BlockedText(d Dump) string {
	collectors, gathers, others := BlockedMetrics(d.Text)
	var b strings.Builder
	fmt.Fprintf(&b, "# %d goroutines in the dump taken %.0fs after the fault: %d metrics collectors wait on a CRI call, %d endpoint handlers wait in Gather for them, %d others wait on a CRI call\n",
		len(ParseGoroutines(d.Text)), d.Start.Sub(r.Frozen).Seconds(), len(collectors), len(gathers), len(others))
	seen := map[string]int{}
	var order []string
	for _, set := range [][]Goroutine{collectors, gathers, others} {
		for _, g := range set {
			t := g.Trimmed()
			// Goroutines alike but for their numbers and minutes are one.
			key := regexp.MustCompile(`goroutine \d+ \[([^,\]]+)[^\]]*\]:`).ReplaceAllString(t, "goroutine [$1]:")
			if seen[key] == 0 {
				order = append(order, key)
			}
			seen[key]++
		}
	}
	for _, k := range order {
		fmt.Fprintf(&b, "\n# %d alike\n%s", seen[k], k)
	}
	return b.String()
}

// DarkPicks are the moments into a latency fault whose rounds Keep
// keeps whole: early, at the PLEG's threshold, and late.
var DarkPicks = []time.Duration{time.Minute, 3*time.Minute + 10*time.Second, 5 * time.Minute}

// keepDark writes, for the first round at or after each of DarkPicks
// whose /metrics failed, rounds/NNN/metrics-error.txt (as
// metrics-error.txt) and rounds/NNN/node.json, the Node object it read.
func (r *FaultRun) keepDark(dir string) error {
	for _, d := range DarkPicks {
		for i := range r.Rounds {
			o := &r.Rounds[i]
			if o.Start.Before(r.Frozen.Add(d)) || !o.Start.Before(r.Thawed) || o.Err == nil || o.Node == nil {
				continue
			}
			sub := filepath.Join(dir, "rounds", fmt.Sprintf("%03d", o.Index))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
			a := o.MetricsAnswer
			start := a.Start
			if err := os.WriteFile(filepath.Join(sub, "metrics-error.txt"), nodeverdict.NewMetricsFailure(a.Err, a.Took, &start).Format(), 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(sub, "node.json"), o.Node, 0o644); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// Keep writes the trimmed captures nodeverdict's tests read under dir:
// crictl.txt; configz.json; last-good.txt, the last /metrics answer
// before the fault, trimmed (TrimMetrics); metrics-error.txt, the
// first timed-out request's error, when and how long it waited, as
// kubectl pleg --save keeps it (nodeverdict.MetricsFailure's Format); the
// Node object (node-ready.json before the fault, node-false.json once
// Ready turned False, node-pleg.json once it named the PLEG,
// node-true.json once Ready again); blocked.txt, the trimmed stacks of
// the handlers waiting on the runtime; kubelet.log (healthLine's lines
// from the fault to the recovery, of lines alike the first and the
// last); and moments.json, the timeline's rows with the endpoints'
// sums.
func (r *FaultRun) Keep(dir string, tl *FaultTimeline, fault string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, data []byte) error { return os.WriteFile(filepath.Join(dir, name), data, 0o644) }
	if err := write("crictl.txt", r.Crictl); err != nil {
		return err
	}
	if err := write("configz.json", r.Configz); err != nil {
		return err
	}
	if tl.LastGood != nil {
		if err := write("last-good.txt", TrimMetrics(tl.LastGood.Metrics, tl.LastGood.Start)); err != nil {
			return err
		}
	}
	if o := tl.FirstTimeout; o != nil {
		a := o.MetricsAnswer
		start := a.Start
		if err := write("metrics-error.txt", nodeverdict.NewMetricsFailure(a.Err, a.Took, &start).Format()); err != nil {
			return err
		}
	}
	nodes := map[string]*Round{"node-false.json": tl.ReadyFalse, "node-pleg.json": tl.ReadyPLEG, "node-true.json": tl.ReadyTrue}
	if tl.LastGood != nil {
		nodes["node-ready.json"] = tl.LastGood
	}
	for name, o := range nodes {
		if o != nil && o.Node != nil {
			if err := write(name, o.Node); err != nil {
				return err
			}
		}
	}
	if r.Fault.Kind == FaultLatency {
		if err := r.keepDark(dir); err != nil {
			return err
		}
	}
	for i := len(r.Dumps) - 1; i >= 0; i-- {
		if c, _, _ := BlockedMetrics(r.Dumps[i].Text); len(c) > 0 {
			if err := write("blocked.txt", []byte(r.BlockedText(r.Dumps[i]))); err != nil {
				return err
			}
			break
		}
	}
	var log strings.Builder
	digits := regexp.MustCompile(`[0-9]+`)
	first, last := map[string]int{}, map[string]int{}
	var lines []LogLine
	end := r.Thawed.Add(time.Minute)
	if tl.ReadyTrue != nil {
		end = tl.ReadyTrue.Start
	}
	for _, l := range r.Log {
		// A slow runtime's loops are timed by their -v=4 lines.
		timing := r.Fault.Kind == FaultLatency && (strings.Contains(l.Raw, LogRelisted) || strings.Contains(l.Raw, LogRuntimeStatus))
		if l.Time.Before(r.Frozen) || l.Time.After(end) || !healthLine(l) && !strings.Contains(l.Text, "DeadlineExceeded") && !timing {
			continue
		}
		key := l.Source + digits.ReplaceAllString(l.Text, "")
		if _, ok := first[key]; !ok {
			first[key] = len(lines)
		}
		last[key] = len(lines)
		lines = append(lines, l)
	}
	for i, l := range lines {
		key := l.Source + digits.ReplaceAllString(l.Text, "")
		if first[key] == i || last[key] == i {
			log.WriteString(Cut(l.Raw, 2000) + "\n")
		}
	}
	if err := write("kubelet.log", []byte(log.String())); err != nil {
		return err
	}
	var moments []map[string]any
	for _, row := range tl.Rows(fault) {
		m := map[string]any{"what": row.What, "evidence": row.Evidence}
		if !row.At.IsZero() {
			m["at"] = row.At
			m["afterFault"] = fmt.Sprintf("%.1fs", row.At.Sub(r.Frozen).Seconds())
		}
		moments = append(moments, m)
	}
	doc := map[string]any{"release": r.Release, "fault": fault, "frozen": r.Frozen, "thawed": r.Thawed,
		"moments": moments, "endpoints": r.Endpoints()}
	if r.Fault.Kind == FaultLatency {
		doc["latency"] = r.Fault.Latency.String()
		doc["relists"] = r.RelistSamples()
		doc["delays"] = r.Delays
	}
	if r.Fault.Pods > 0 {
		doc["pods"] = r.Fault.Pods
		doc["inspections"] = r.Inspections()
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return write("moments.json", append(data, '\n'))
}
